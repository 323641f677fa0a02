//! Benchmark contenders for the game-state workload (see docs/benchmarks.md).
pub mod fb;
pub mod kar;
pub mod plain;
pub mod rk;
