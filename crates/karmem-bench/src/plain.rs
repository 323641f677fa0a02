//! The game state as plain Rust structs (the physical limit for reads) and
//! its deterministic generator, shared by every contender.

use rkyv::{Archive, Deserialize, Serialize};

#[derive(Archive, Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Archive, Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct Weapon {
    pub damage: i32,
    pub range: i32,
}

#[derive(Archive, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Monster {
    pub pos: Vec3,
    pub mana: i16,
    pub health: i16,
    pub name: String,
    pub team: u8,
    pub inventory: Vec<u8>,
    pub hitbox: [f64; 4],
    pub status: Vec<i32>,
    pub weapons: Vec<Weapon>,
    pub path: Vec<Vec3>,
}

#[derive(Archive, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct State {
    pub monsters: Vec<Monster>,
}

/// Small deterministic generator (xorshift): every run and every contender
/// sees the same data without a dependency on `rand`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn f32(&mut self) -> f32 {
        (self.below(1 << 20) as f32) / 1024.0 - 512.0
    }
}

/// `monsters` monsters, each with a path of 1..=`max_path` points.
pub fn generate(monsters: usize, max_path: usize) -> State {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let monsters = (0..monsters)
        .map(|i| Monster {
            pos: Vec3 {
                x: rng.f32(),
                y: rng.f32(),
                z: rng.f32(),
            },
            mana: rng.below(1000) as i16,
            health: rng.below(1000) as i16,
            name: format!(
                "Monster {i} the {}",
                ["Brave", "Wise", "Quick", "Grim"][i % 4]
            ),
            team: (i % 5) as u8,
            inventory: (0..rng.below(128)).map(|_| rng.below(256) as u8).collect(),
            hitbox: [
                rng.f32() as f64,
                rng.f32() as f64,
                rng.f32() as f64,
                rng.f32() as f64,
            ],
            status: (0..rng.below(16)).map(|_| rng.next() as i32).collect(),
            weapons: (0..rng.below(5))
                .map(|_| Weapon {
                    damage: rng.below(100) as i32,
                    range: rng.below(50) as i32,
                })
                .collect(),
            path: (0..1 + rng.below(max_path as u64))
                .map(|_| Vec3 {
                    x: rng.f32(),
                    y: rng.f32(),
                    z: rng.f32(),
                })
                .collect(),
        })
        .collect();
    State { monsters }
}

/// The reference result: the sum of every coordinate of every path point.
pub fn sum_paths(state: &State) -> f64 {
    let mut sum = 0.0f32;
    for monster in &state.monsters {
        for p in &monster.path {
            sum += p.x + p.y + p.z;
        }
    }
    sum as f64
}
