//! Runs the benchmark operations outside criterion:
//!
//! * `ops list` — the operation names;
//! * `ops run NAME [N]` — NAME N times inside `measured` (for
//!   `valgrind --tool=callgrind --toggle-collect='*measured*'`, see
//!   scripts/bench-instructions.sh, and for `perf record`);
//! * `ops allocs` — allocation calls and bytes of one steady-state run of
//!   every operation (after two warm-up runs);
//! * `ops time FILTER...` — quick A/B timing while tuning: the operations
//!   whose names contain a filter, interleaved round-robin, 30 rounds of
//!   20 runs each; prints the fastest and the median round per run (the
//!   fastest round is the one least disturbed by other processes).
//!   Published numbers come from criterion (`make bench`).
//!
//! `KARMEM_BENCH_MONSTERS` and `KARMEM_BENCH_MAX_PATH` change the fixture
//! (default 1 000 monsters, paths of up to 2 000 points), e.g. `1` and `10`
//! for a message of the size a plugin call passes.

use karmem_bench::count::{allocations, Counting};
use karmem_bench::ops::{Ctx, Op, OPS};
use karmem_bench::{Fixture, MAX_PATH, MONSTERS};

#[global_allocator]
static ALLOC: Counting = Counting;

#[inline(never)]
fn measured(op: Op, ctx: &mut Ctx, n: u32) {
    for _ in 0..n {
        op(ctx);
    }
}

/// The fixture, sized by the environment (see the module comment).
fn fixture() -> Fixture {
    let var = |name: &str, default: usize| {
        std::env::var(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}: a number, not {v:?}"))
        })
    };
    Fixture::new(
        var("KARMEM_BENCH_MONSTERS", MONSTERS),
        var("KARMEM_BENCH_MAX_PATH", MAX_PATH),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["list"] => OPS.iter().for_each(|(name, _)| println!("{name}")),
        ["run", name, rest @ ..] => {
            let n = rest.first().map_or(1, |n| n.parse().expect("N: a number"));
            let (_, op) = OPS
                .iter()
                .find(|(o, _)| o == name)
                .unwrap_or_else(|| panic!("unknown operation {name} (see `ops list`)"));
            let mut ctx = Ctx::new(fixture());
            op(&mut ctx); // warm: buffers and reused objects at full size
            measured(*op, &mut ctx, n);
        }
        ["allocs"] => {
            let mut ctx = Ctx::new(fixture());
            println!("| operation | allocations | bytes allocated |");
            println!("|---|---:|---:|");
            for (name, op) in OPS {
                op(&mut ctx);
                op(&mut ctx);
                let (calls, bytes) = allocations(|| op(&mut ctx));
                println!("| {name} | {calls} | {bytes} |");
            }
        }
        ["time", filters @ ..] => {
            let mut ctx = Ctx::new(fixture());
            let chosen: Vec<&(&str, Op)> = OPS
                .iter()
                .filter(|(name, _)| filters.iter().any(|f| name.contains(f)))
                .collect();
            let mut rounds: Vec<Vec<f64>> = vec![Vec::new(); chosen.len()];
            for _ in 0..30 {
                for (k, (_, op)) in chosen.iter().enumerate() {
                    let start = std::time::Instant::now();
                    measured(*op, &mut ctx, 20);
                    rounds[k].push(start.elapsed().as_secs_f64() / 20.0);
                }
            }
            for ((name, _), mut r) in chosen.iter().zip(rounds) {
                r.sort_by(f64::total_cmp);
                println!(
                    "{name:55} min {:10.3} us  median {:10.3} us",
                    r[0] * 1e6,
                    r[r.len() / 2] * 1e6
                );
            }
        }
        _ => {
            eprintln!("usage: ops list | ops run NAME [N] | ops allocs | ops time FILTER...");
            std::process::exit(2);
        }
    }
}
