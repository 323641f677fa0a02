//! What the benchmarks of this crate share: a runtime whose compiled
//! modules persist between runs, and criterion's measurement of the
//! benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall time:
//! on a shared machine a preempted call would count the time other
//! processes ran; the guest and the host both run on this thread. On a
//! quiet machine the two are the same.

use std::path::PathBuf;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use karmem_host::{Runtime, RuntimeConfig};

/// A runtime set up as `config` says, with its module cache inside the
/// target directory: a Go module takes seconds to compile, so compiled
/// modules are kept between runs (the cache key covers the engine
/// configuration, so differently configured runtimes share it safely).
pub fn runtime(config: RuntimeConfig) -> Runtime {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-module-cache");
    Runtime::new(RuntimeConfig {
        cache_dir: Some(cache),
        ..config
    })
    .expect("create the runtime")
}

/// CPU time of the calling thread.
pub struct ThreadTime;

fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; the clock id is a constant
    // every Linux has.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Values are nanoseconds like wall time's: its formatter prints them.
static WALL: WallTime = WallTime;

impl Measurement for ThreadTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_time()
    }

    fn end(&self, start: Duration) -> Duration {
        thread_cpu_time().saturating_sub(start)
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

/// Imports for running a guest module under plain wasmtime, outside the
/// runtime (the floors under the runtime's figures): every function import
/// returns zeros, except what Go's runtime needs of WASI to start — a clock
/// that does not read 0, no arguments or environment (their sizes written
/// as 0, not left as whatever memory held) and no preopened directories.
/// Defined without a store, so an `InstancePre` can use them.
#[allow(dead_code)] // each bench compiles this module; not all call it
pub fn stub_imports<T: 'static>(linker: &mut wasmtime::Linker<T>, module: &wasmtime::Module) {
    use wasmtime::{Caller, Extern, Val, ValType};
    fn write<T>(caller: &mut Caller<'_, T>, at: i32, bytes: &[u8]) -> i32 {
        let memory = caller
            .get_export("memory")
            .and_then(Extern::into_memory)
            .expect("an exported memory");
        match memory.write(caller, at as usize, bytes) {
            Ok(()) => 0,
            Err(_) => 28, // EINVAL
        }
    }
    const WASI: &str = "wasi_snapshot_preview1";
    linker
        .func_wrap(
            WASI,
            "clock_time_get",
            |mut caller: Caller<'_, T>, _id: i32, _precision: i64, at: i32| {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64;
                write(&mut caller, at, &now.to_le_bytes())
            },
        )
        .unwrap();
    // No preopened directories: Go asks for descriptors from 3 on until
    // one is bad.
    linker
        .func_wrap(WASI, "fd_prestat_get", |_fd: i32, _at: i32| 8) // EBADF
        .unwrap();
    for name in ["args_sizes_get", "environ_sizes_get"] {
        linker
            .func_wrap(
                WASI,
                name,
                |mut caller: Caller<'_, T>, count: i32, size: i32| {
                    write(&mut caller, count, &[0; 4]) | write(&mut caller, size, &[0; 4])
                },
            )
            .unwrap();
    }
    let defined = [
        "clock_time_get",
        "fd_prestat_get",
        "args_sizes_get",
        "environ_sizes_get",
    ];
    // A module may import the same function twice (Go does).
    let mut seen = std::collections::HashSet::new();
    for import in module.imports() {
        let Some(ty) = import.ty().func().cloned() else {
            continue;
        };
        if import.module() == WASI && defined.contains(&import.name())
            || !seen.insert((import.module(), import.name()))
        {
            continue;
        }
        let results: Vec<Val> = ty
            .results()
            .map(|r| match r {
                ValType::I32 => Val::I32(0),
                ValType::I64 => Val::I64(0),
                ValType::F32 => Val::F32(0),
                ValType::F64 => Val::F64(0),
                other => panic!("an import returning {other}"),
            })
            .collect();
        linker
            .func_new(import.module(), import.name(), ty, move |_, _, out| {
                out.clone_from_slice(&results);
                Ok(())
            })
            .unwrap();
    }
}
