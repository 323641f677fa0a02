//! Benchmark contenders for the game-state workload (see docs/benchmarks.md).
pub mod fb;
pub mod plain;
pub mod rk;
