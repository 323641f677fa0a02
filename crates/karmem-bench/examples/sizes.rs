//! Message sizes of the game state (1 000 monsters, paths of up to 2 000
//! points) and of the small message (one monster, up to 10 points) for
//! every contender: `cargo run --release -p karmem-bench --example sizes`.

use karmem_bench::Fixture;

fn main() {
    for (name, monsters, max_path) in [("game state", 1000, 2000), ("small message", 1, 10)] {
        let f = Fixture::new(monsters, max_path);
        f.check();
        let row: Vec<String> = f.sizes().iter().map(|(n, s)| format!("{n} {s}")).collect();
        println!("{name}: {}", row.join(", "));
    }
}
