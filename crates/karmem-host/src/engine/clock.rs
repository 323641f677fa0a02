//! The runtime's clock: epoch ticks, counted by the engine's ticker thread
//! beside wasmtime's own epoch. Every deadline of a call is a tick number,
//! so the call path compares two integers instead of reading the system
//! clock (`Instant::now()` costs 20–25 ns, and a call used to read it five
//! times: RATIONALE R8.16).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A point in time as an epoch tick number.
pub(crate) type Tick = u64;

/// The tick counter of one engine and the length of its tick. Cheap to
/// clone (shared).
#[derive(Clone)]
pub(crate) struct Clock {
    now: Arc<AtomicU64>,
    tick: Duration,
}

impl Clock {
    pub fn new(tick: Duration) -> Clock {
        Clock {
            now: Arc::new(AtomicU64::new(0)),
            tick: tick.max(Duration::from_nanos(1)),
        }
    }

    /// Whether both are the clock of one engine.
    pub fn same(&self, other: &Clock) -> bool {
        Arc::ptr_eq(&self.now, &other.now)
    }

    /// The current tick: one atomic load.
    #[inline]
    pub fn now(&self) -> Tick {
        self.now.load(Ordering::Relaxed)
    }

    /// Advance by one tick (the ticker, right after the engine's epoch).
    pub fn advance(&self) {
        self.now.fetch_add(1, Ordering::Relaxed);
    }

    /// Ticks that cover `time` (at least one, and one more for the phase
    /// of the ticker): a deadline this far ahead passes at most one tick
    /// after `time` has.
    pub fn ticks(&self, time: Duration) -> u64 {
        u64::try_from(time.as_nanos().div_ceil(self.tick.as_nanos()))
            .unwrap_or(u64::MAX)
            .saturating_add(1)
    }

    /// The tick `ticks` (from [`Clock::ticks`]) from now.
    #[inline]
    pub fn after(&self, ticks: u64) -> Tick {
        self.now().saturating_add(ticks)
    }

    /// How long until `deadline` (zero once it has passed).
    pub fn left(&self, deadline: Tick) -> Duration {
        let ticks = deadline.saturating_sub(self.now());
        self.tick
            .saturating_mul(u32::try_from(ticks).unwrap_or(u32::MAX))
    }

    /// `deadline` as an `Instant` (for the public API: host functions).
    pub fn instant(&self, deadline: Tick) -> Instant {
        Instant::now() + self.left(deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_the_time_and_one_more() {
        let c = Clock::new(Duration::from_millis(1));
        assert_eq!(c.ticks(Duration::ZERO), 1);
        assert_eq!(c.ticks(Duration::from_micros(1)), 2);
        assert_eq!(c.ticks(Duration::from_millis(50)), 51);
        assert_eq!(c.after(c.ticks(Duration::from_millis(5))), 6);
        c.advance();
        assert_eq!(c.now(), 1);
        assert_eq!(c.left(3), Duration::from_millis(2));
        assert_eq!(c.left(0), Duration::ZERO);
    }
}
