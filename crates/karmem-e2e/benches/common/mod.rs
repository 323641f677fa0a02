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
