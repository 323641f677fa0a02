//! The Karmem contender: code generated from `schemas/game.km` by our own
//! generator at build time.

#[allow(dead_code, clippy::all)]
pub mod game {
    include!(concat!(env!("OUT_DIR"), "/karmem_game.rs"));
}

use crate::plain;
use game::*;

pub type Object = State;

/// The object-API value of the generated data (built once, outside timing).
pub fn from_plain(state: &plain::State) -> State {
    let v3 = |p: &plain::Vec3| Vec3 {
        x: p.x,
        y: p.y,
        z: p.z,
    };
    State {
        monsters: state
            .monsters
            .iter()
            .map(|m| Monster {
                data: MonsterData {
                    pos: v3(&m.pos),
                    mana: m.mana,
                    health: m.health,
                    name: m.name.clone(),
                    team: Team(m.team),
                    inventory: m.inventory.clone(),
                    hitbox: m.hitbox,
                    status: m.status.clone(),
                    weapons: m
                        .weapons
                        .iter()
                        .map(|w| Weapon {
                            data: WeaponData {
                                damage: w.damage,
                                range: w.range,
                            },
                        })
                        .collect(),
                    path: m.path.iter().map(v3).collect(),
                },
            })
            .collect(),
    }
}

/// The inverse of [`from_plain`], to check that a decode round-trips.
pub fn to_plain(state: &State) -> plain::State {
    let v3 = |p: &Vec3| plain::Vec3 {
        x: p.x,
        y: p.y,
        z: p.z,
    };
    plain::State {
        monsters: state
            .monsters
            .iter()
            .map(|m| {
                let m = &m.data;
                plain::Monster {
                    pos: v3(&m.pos),
                    mana: m.mana,
                    health: m.health,
                    name: m.name.clone(),
                    team: m.team.0,
                    inventory: m.inventory.clone(),
                    hitbox: m.hitbox,
                    status: m.status.clone(),
                    weapons: m
                        .weapons
                        .iter()
                        .map(|w| plain::Weapon {
                            damage: w.data.damage,
                            range: w.data.range,
                        })
                        .collect(),
                    path: m.path.iter().map(v3).collect(),
                }
            })
            .collect(),
    }
}

/// Encode into a reused writer (steady state: no allocation).
pub fn encode(state: &State, w: &mut karmem::Writer) {
    state
        .write_as_root(w)
        .expect("the benchmark state fits a message");
}

/// Decode into an existing object, reusing its allocations.
pub fn decode_into(bytes: &[u8], out: &mut State) {
    let r = karmem::Reader::new(bytes).expect("valid message");
    out.read_as_root(&r).expect("valid message");
}

/// Decode into a new object (what FlatBuffers' object API and rkyv's
/// deserialize do).
pub fn decode_new(bytes: &[u8]) -> State {
    State::from_bytes(bytes).expect("valid message")
}

/// Sum through a viewer: per monster one SoA directory scan of its path,
/// then three native `&[f32]` columns.
pub fn sum<M: karmem::Mode>(view: StateView<'_, M>) -> f64 {
    let mut sum = 0.0f32;
    for monster in view.monsters().iter() {
        let path = monster.data_path();
        for ((x, y), z) in path.x().iter().zip(path.y()).zip(path.z()) {
            sum += x + y + z;
        }
    }
    sum as f64
}

/// Every load bounds-checked, no validation pass.
pub fn sum_paths_checked(bytes: &[u8]) -> f64 {
    let r = karmem::Reader::new(bytes).expect("valid message");
    sum(StateView::root(&r))
}

/// Validate the whole message once, then read without bounds checks.
pub fn sum_paths_validated(bytes: &[u8]) -> f64 {
    sum(validate(bytes))
}

/// Validate the whole message; the trusted viewer it returns reads without
/// bounds checks.
pub fn validate(bytes: &[u8]) -> StateView<'_, karmem::Trusted> {
    let r = karmem::Reader::new(bytes).expect("valid message");
    State::validate(&r).expect("valid message")
}

/// A trusted viewer without running the validator, to time the trusted
/// read path alone. Only for messages validated earlier ([`crate::Fixture`]
/// validates its message in `check`).
pub fn trusted_unvalidated(bytes: &[u8]) -> StateView<'_, karmem::Trusted> {
    let r = karmem::Reader::new(bytes).expect("valid message");
    // SAFETY: callers pass only the fixture's message, which passed
    // `State::validate` in `Fixture::check`.
    let r = unsafe { r.assume_trusted() };
    StateView::root(&r)
}
