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

pub fn encode(state: &State, w: &mut karmem::Writer) {
    state
        .write_as_root(w)
        .expect("the benchmark state fits a message");
}

pub fn decode_into(bytes: &[u8], out: &mut State) {
    let r = karmem::Reader::new(bytes).expect("valid message");
    out.read_as_root(&r).expect("valid message");
}

/// Sum through a viewer: per monster one SoA directory scan of its path,
/// then three native `&[f32]` columns.
fn sum<M: karmem::Mode>(view: StateView<'_, M>) -> f64 {
    let mut sum = 0.0f32;
    for monster in view.monsters().iter() {
        let path = monster.data_path();
        for ((x, y), z) in path.x().iter().zip(path.y()).zip(path.z()) {
            sum += x + y + z;
        }
    }
    sum as f64
}

/// Every load bounds-checked.
pub fn sum_paths_checked(bytes: &[u8]) -> f64 {
    let r = karmem::Reader::new(bytes).expect("valid message");
    sum(StateView::root(&r))
}

/// Validate the whole message once, then read without bounds checks.
pub fn sum_paths_validated(bytes: &[u8]) -> f64 {
    let r = karmem::Reader::new(bytes).expect("valid message");
    sum(State::validate(&r).expect("valid message"))
}

pub fn validate(bytes: &[u8]) -> bool {
    let r = karmem::Reader::new(bytes).expect("valid message");
    State::validate(&r).is_ok()
}
