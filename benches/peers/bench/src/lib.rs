//! Support for `benches/peers.rs`: CPU-time measurements for criterion and
//! where the peers' guest modules are.
//!
//! Two clocks, because the peers do not all keep their work on the calling
//! thread: Extism's SDK tells a timer thread of its own when each call
//! starts and stops (a channel message each, waking that thread), which
//! the calling thread's CPU time does not see. [`ThreadTime`] is the
//! project's measure (as in crates/karmem-e2e/benches/calls.rs: the time
//! preempted on a shared machine does not count); [`ProcessTime`] adds
//! what the other threads of the process spend meanwhile.

use std::path::PathBuf;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};

fn cpu_time(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; both clock ids used here
    // exist on every Linux.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime({clock})");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Durations are nanoseconds as wall time's are, so wall time's formatter
/// prints them with the right units.
static WALL: WallTime = WallTime;

/// Implements criterion's `Measurement` for a CPU clock: both clocks differ
/// only in the clock id.
macro_rules! cpu_measurement {
    ($name:ident, $clock:expr) => {
        impl Measurement for $name {
            type Intermediate = Duration;
            type Value = Duration;

            fn start(&self) -> Duration {
                cpu_time($clock)
            }

            fn end(&self, start: Duration) -> Duration {
                cpu_time($clock).saturating_sub(start)
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
    };
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`): host and
/// guest code of a call both run on it.
pub struct ThreadTime;
cpu_measurement!(ThreadTime, libc::CLOCK_THREAD_CPUTIME_ID);

/// CPU time of the whole process (`CLOCK_PROCESS_CPUTIME_ID`): the calling
/// thread plus helper threads (Extism's timer; Karmem's and nobody else's
/// epoch ticker, which wakes once a tick, not per call).
pub struct ProcessTime;
cpu_measurement!(ProcessTime, libc::CLOCK_PROCESS_CPUTIME_ID);

/// The directory `run.sh` (through `build-guests.sh`) writes the guest
/// modules to; `PEERS_OUT` overrides it.
pub fn out_dir() -> PathBuf {
    std::env::var_os("PEERS_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../out")))
}

/// The bytes of `out/<file>`; panics saying how to build it.
pub fn guest(file: &str) -> Vec<u8> {
    let path = out_dir().join(file);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; build the guests first (benches/peers/build-guests.sh, or run.sh)",
            path.display()
        )
    })
}
