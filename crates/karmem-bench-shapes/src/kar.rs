//! The Karmem contender: code generated from `schemas/shapes.km` at build
//! time, Karmem's defaults (arrays of structs are SoA). Serialize writes the
//! generated object types into a reused `karmem::Writer`; access and read
//! go through the trusted viewer after `validate` (the fair comparison with
//! rkyv's and FlatBuffers' checked access, which also validate once and
//! then read unchecked), and through the checked viewer without validation.

#[allow(dead_code, clippy::all)]
pub mod gen {
    include!(concat!(env!("OUT_DIR"), "/karmem_shapes.rs"));
}

use crate::data::{self, enum_of, MeshSum, ELEMENTS, LEVELS, QUEST_STATES};
use gen::*;
use karmem::{Mode, Reader, Trusted};

pub fn encode<T: Root>(value: &T, w: &mut karmem::Writer) {
    value
        .write_root(w)
        .expect("the benchmark data fits a message");
}

/// The generated root types, behind one trait so that the benchmark can
/// serialize, validate and decode any workload the same way.
pub trait Root: Sized {
    type View<'a>;
    fn write_root(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error>;
    fn decode(bytes: &[u8]) -> Result<Self, karmem::Error>;
    fn validate_root<'a>(r: &Reader<'a>) -> Result<Self::View<'a>, karmem::Error>;
}

macro_rules! root {
    ($t:ident, $view:ident) => {
        impl Root for $t {
            type View<'a> = $view<'a, Trusted>;
            fn write_root(&self, w: &mut karmem::Writer) -> Result<(), karmem::Error> {
                self.write_as_root(w)
            }
            fn decode(bytes: &[u8]) -> Result<Self, karmem::Error> {
                $t::from_bytes(bytes)
            }
            fn validate_root<'a>(r: &Reader<'a>) -> Result<Self::View<'a>, karmem::Error> {
                $t::validate(r)
            }
        }
    };
}
root!(Log, LogView);
root!(Mesh, MeshView);
root!(Save, SaveView);
root!(Updates, UpdatesView);

/// Validate the whole message; the trusted viewer reads without bounds
/// checks afterwards.
pub fn validate<T: Root>(bytes: &[u8]) -> T::View<'_> {
    let r = Reader::new(bytes).expect("aligned message");
    T::validate_root(&r).expect("valid message")
}

/// The checked reader: every load bounds-checked, no validation pass.
pub fn checked(bytes: &[u8]) -> Reader<'_> {
    Reader::new(bytes).expect("aligned message")
}

// --- read ---

pub fn read_log<M: Mode>(v: LogView<'_, M>) -> u64 {
    let entries = v.entries();
    let mut acc = 0;
    for (e, (&ts, &level)) in entries
        .iter()
        .zip(entries.timestamp().iter().zip(entries.level()))
    {
        acc = data::log_entry_sum(
            acc,
            ts,
            level.0 as u64,
            e.service_bytes().len(),
            e.message_bytes().len(),
        );
    }
    acc
}

pub fn read_mesh<M: Mode>(v: MeshView<'_, M>) -> MeshSum {
    let vs = v.vertices();
    let cols = [
        vs.pos_x(),
        vs.pos_y(),
        vs.pos_z(),
        vs.normal_x(),
        vs.normal_y(),
        vs.normal_z(),
        vs.uv_x(),
        vs.uv_y(),
    ];
    // Column by column: the order SoA favours (the checksum does not
    // depend on order).
    let s = cols
        .iter()
        .fold(0u64, |a, c| a.wrapping_add(data::column_bits(c)));
    (s, v.indices().iter().map(|&i| i as u64).sum())
}

pub fn read_save<M: Mode>(v: SaveView<'_, M>) -> i64 {
    let p = v.player();
    let mut acc = p.name_bytes().len() as i64 + p.level() as i64 + p.hp() as i64 + p.gold() as i64;
    for item in p.inventory().iter() {
        acc += item.id() as i64 + item.name_bytes().len() as i64 + item.count() as i64;
        let e = item.enchantments();
        for ((&el, &power), &duration) in e.element().iter().zip(e.power()).zip(e.duration()) {
            acc += el.0 as i64 + power as i64 + duration as i64;
        }
    }
    for q in v.quests().iter() {
        acc += q.id() as i64 + q.title_bytes().len() as i64 + q.state().0 as i64;
        for st in q.steps().iter() {
            acc += st.description_bytes().len() as i64 + st.done() as i64 + st.progress() as i64;
        }
    }
    acc
}

pub fn read_updates<M: Mode>(v: UpdatesView<'_, M>) -> i64 {
    let u = v.updates();
    let n = u.len();
    let (entity, dx, dy) = (&u.entity()[..n], &u.dx()[..n], &u.dy()[..n]);
    let (hp, flags) = (&u.hp()[..n], &u.flags()[..n]);
    let mut acc = 0;
    for i in 0..n {
        acc = data::update_sum(acc, entity[i], dx[i], dy[i], hp[i], flags[i]);
    }
    acc
}

// --- access ---

pub fn access_log<M: Mode>(v: LogView<'_, M>) -> usize {
    let e = v.entries();
    e.get(data::log_at(e.len()))
        .map_or(0, |e| e.message_bytes().len())
}

pub fn access_mesh<M: Mode>(v: MeshView<'_, M>) -> f32 {
    let vs = v.vertices();
    vs.get(data::vertex_at(vs.len()))
        .map_or(0.0, |v| v.normal_y())
}

pub fn access_save<M: Mode>(v: SaveView<'_, M>) -> i16 {
    let inv = v.player().inventory();
    inv.get(data::item_at(inv.len())).map_or(0, |item| {
        let e = item.enchantments();
        e.get(e.len().wrapping_sub(1)).map_or(0, |e| e.power())
    })
}

pub fn access_updates<M: Mode>(v: UpdatesView<'_, M>) -> i8 {
    let u = v.updates();
    u.get(data::update_at(u.len())).map_or(0, |u| u.hp())
}

// --- conversions from and to the plain structs (outside timing) ---

fn v3(p: &data::Vec3) -> Vec3 {
    Vec3 {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}
fn p3(p: &Vec3) -> data::Vec3 {
    data::Vec3 {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

pub fn from_log(l: &data::Log) -> Log {
    Log {
        entries: l
            .entries
            .iter()
            .map(|e| Entry {
                timestamp: e.timestamp,
                level: Level(e.level as u8),
                service: e.service.clone(),
                message: e.message.clone(),
            })
            .collect(),
    }
}

pub fn to_log(l: &Log) -> data::Log {
    data::Log {
        entries: l
            .entries
            .iter()
            .map(|e| data::Entry {
                timestamp: e.timestamp,
                level: enum_of(&LEVELS, e.level.0 as u64),
                service: e.service.clone(),
                message: e.message.clone(),
            })
            .collect(),
    }
}

pub fn from_mesh(m: &data::Mesh) -> Mesh {
    Mesh {
        vertices: m
            .vertices
            .iter()
            .map(|v| Vertex {
                pos: v3(&v.position),
                normal: v3(&v.normal),
                uv: Vec2 {
                    x: v.uv.x,
                    y: v.uv.y,
                },
            })
            .collect(),
        indices: m.indices.clone(),
    }
}

pub fn to_mesh(m: &Mesh) -> data::Mesh {
    data::Mesh {
        vertices: m
            .vertices
            .iter()
            .map(|v| data::Vertex {
                position: p3(&v.pos),
                normal: p3(&v.normal),
                uv: data::Vec2 {
                    x: v.uv.x,
                    y: v.uv.y,
                },
            })
            .collect(),
        indices: m.indices.clone(),
    }
}

/// The save game's object for a root type of the Save shape: the schema's
/// default (SoA) and the AoS variant differ only in type names.
macro_rules! from_save {
    ($f:ident, $save:ident, $player:ident, $item:ident, $quest:ident) => {
        pub fn $f(s: &data::Save) -> $save {
            let p = &s.player;
            $save {
                player: $player {
                    name: p.name.clone(),
                    level: p.level,
                    hp: p.hp,
                    gold: p.gold,
                    position: v3(&p.position),
                    inventory: p
                        .inventory
                        .iter()
                        .map(|i| $item {
                            id: i.id,
                            name: i.name.clone(),
                            count: i.count,
                            weight: i.weight,
                            enchantments: i
                                .enchantments
                                .iter()
                                .map(|e| Enchantment {
                                    element: Element(e.element as u8),
                                    power: e.power,
                                    duration: e.duration,
                                })
                                .collect(),
                        })
                        .collect(),
                },
                quests: s
                    .quests
                    .iter()
                    .map(|q| $quest {
                        id: q.id,
                        title: q.title.clone(),
                        state: QuestState(q.state as u8),
                        steps: q
                            .steps
                            .iter()
                            .map(|st| Step {
                                description: st.description.clone(),
                                done: st.done,
                                progress: st.progress,
                            })
                            .collect(),
                    })
                    .collect(),
            }
        }
    };
}
from_save!(from_save, Save, Player, Item, Quest);
from_save!(from_save_aos, SaveAos, PlayerAos, ItemAos, QuestAos);

pub fn to_save(s: &Save) -> data::Save {
    let p = &s.player;
    data::Save {
        player: data::Player {
            name: p.name.clone(),
            level: p.level,
            hp: p.hp,
            gold: p.gold,
            position: p3(&p.position),
            inventory: p
                .inventory
                .iter()
                .map(|i| data::Item {
                    id: i.id,
                    name: i.name.clone(),
                    count: i.count,
                    weight: i.weight,
                    enchantments: i
                        .enchantments
                        .iter()
                        .map(|e| data::Enchantment {
                            element: enum_of(&ELEMENTS, e.element.0 as u64),
                            power: e.power,
                            duration: e.duration,
                        })
                        .collect(),
                })
                .collect(),
        },
        quests: s
            .quests
            .iter()
            .map(|q| data::Quest {
                id: q.id,
                title: q.title.clone(),
                state: enum_of(&QUEST_STATES, q.state.0 as u64),
                steps: q
                    .steps
                    .iter()
                    .map(|st| data::Step {
                        description: st.description.clone(),
                        done: st.done,
                        progress: st.progress,
                    })
                    .collect(),
            })
            .collect(),
    }
}

pub fn from_updates(u: &data::Updates) -> Updates {
    Updates {
        updates: u
            .updates
            .iter()
            .map(|u| Update {
                entity: u.entity,
                dx: u.dx,
                dy: u.dy,
                hp: u.hp,
                flags: u.flags,
            })
            .collect(),
    }
}

pub fn to_updates(u: &Updates) -> data::Updates {
    data::Updates {
        updates: u
            .updates
            .iter()
            .map(|u| data::Update {
                entity: u.entity,
                dx: u.dx,
                dy: u.dy,
                hp: u.hp,
                flags: u.flags,
            })
            .collect(),
    }
}
