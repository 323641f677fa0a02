//! The prost contender: hand-written structs deriving `prost::Message` (no
//! .proto file and no protoc: the derive is what prost-build would emit for
//! the equivalent proto3 schema, written out in each struct's comment).
//! Enums are `uint32` fields: on the wire identical to a proto3 enum.
//! Protobuf cannot be read in place: validate, access and read all decode
//! the whole message first (decoding is protobuf's validation).

use crate::data::{self, enum_of, MeshSum, ELEMENTS, LEVELS, QUEST_STATES};
use prost::Message;

/// `message Entry { uint64 timestamp = 1; uint32 level = 2; string service = 3; string message = 4; }`
#[derive(Clone, PartialEq, Message)]
pub struct Entry {
    #[prost(uint64, tag = "1")]
    pub timestamp: u64,
    #[prost(uint32, tag = "2")]
    pub level: u32,
    #[prost(string, tag = "3")]
    pub service: String,
    #[prost(string, tag = "4")]
    pub message: String,
}

/// `message Log { repeated Entry entries = 1; }`
#[derive(Clone, PartialEq, Message)]
pub struct Log {
    #[prost(message, repeated, tag = "1")]
    pub entries: Vec<Entry>,
}

/// `message Mesh { repeated float positions = 1; repeated float normals = 2;
/// repeated float uvs = 3; repeated uint32 indices = 4; }` — packed arrays
/// of coordinates (x, y, z, x, y, z, …) rather than a message per vertex:
/// what a protobuf user who cares about speed writes, and protobuf's best
/// case (a message per vertex costs a tag and a length per vertex).
#[derive(Clone, PartialEq, Message)]
pub struct Mesh {
    #[prost(float, repeated, tag = "1")]
    pub positions: Vec<f32>,
    #[prost(float, repeated, tag = "2")]
    pub normals: Vec<f32>,
    #[prost(float, repeated, tag = "3")]
    pub uvs: Vec<f32>,
    #[prost(uint32, repeated, tag = "4")]
    pub indices: Vec<u32>,
}

/// `message Enchantment { uint32 element = 1; sint32 power = 2; uint32 duration = 3; }`
#[derive(Clone, PartialEq, Message)]
pub struct Enchantment {
    #[prost(uint32, tag = "1")]
    pub element: u32,
    #[prost(sint32, tag = "2")]
    pub power: i32,
    #[prost(uint32, tag = "3")]
    pub duration: u32,
}

/// `message Item { uint32 id = 1; string name = 2; uint32 count = 3; float weight = 4; repeated Enchantment enchantments = 5; }`
#[derive(Clone, PartialEq, Message)]
pub struct Item {
    #[prost(uint32, tag = "1")]
    pub id: u32,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(uint32, tag = "3")]
    pub count: u32,
    #[prost(float, tag = "4")]
    pub weight: f32,
    #[prost(message, repeated, tag = "5")]
    pub enchantments: Vec<Enchantment>,
}

/// `message Step { string description = 1; bool done = 2; uint32 progress = 3; }`
#[derive(Clone, PartialEq, Message)]
pub struct Step {
    #[prost(string, tag = "1")]
    pub description: String,
    #[prost(bool, tag = "2")]
    pub done: bool,
    #[prost(uint32, tag = "3")]
    pub progress: u32,
}

/// `message Quest { uint32 id = 1; string title = 2; uint32 state = 3; repeated Step steps = 4; }`
#[derive(Clone, PartialEq, Message)]
pub struct Quest {
    #[prost(uint32, tag = "1")]
    pub id: u32,
    #[prost(string, tag = "2")]
    pub title: String,
    #[prost(uint32, tag = "3")]
    pub state: u32,
    #[prost(message, repeated, tag = "4")]
    pub steps: Vec<Step>,
}

/// `message Vec3 { float x = 1; float y = 2; float z = 3; }`
#[derive(Clone, PartialEq, Message)]
pub struct Vec3 {
    #[prost(float, tag = "1")]
    pub x: f32,
    #[prost(float, tag = "2")]
    pub y: f32,
    #[prost(float, tag = "3")]
    pub z: f32,
}

/// `message Player { string name = 1; uint32 level = 2; sint32 hp = 3; uint32 gold = 4; Vec3 position = 5; repeated Item inventory = 6; }`
#[derive(Clone, PartialEq, Message)]
pub struct Player {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(uint32, tag = "2")]
    pub level: u32,
    #[prost(sint32, tag = "3")]
    pub hp: i32,
    #[prost(uint32, tag = "4")]
    pub gold: u32,
    #[prost(message, optional, tag = "5")]
    pub position: Option<Vec3>,
    #[prost(message, repeated, tag = "6")]
    pub inventory: Vec<Item>,
}

/// `message Save { Player player = 1; repeated Quest quests = 2; }`
#[derive(Clone, PartialEq, Message)]
pub struct Save {
    #[prost(message, optional, tag = "1")]
    pub player: Option<Player>,
    #[prost(message, repeated, tag = "2")]
    pub quests: Vec<Quest>,
}

/// `message Update { uint32 entity = 1; sint32 dx = 2; sint32 dy = 3; sint32 hp = 4; uint32 flags = 5; }`
#[derive(Clone, PartialEq, Message)]
pub struct Update {
    #[prost(uint32, tag = "1")]
    pub entity: u32,
    #[prost(sint32, tag = "2")]
    pub dx: i32,
    #[prost(sint32, tag = "3")]
    pub dy: i32,
    #[prost(sint32, tag = "4")]
    pub hp: i32,
    #[prost(uint32, tag = "5")]
    pub flags: u32,
}

/// `message Updates { repeated Update updates = 1; }`
#[derive(Clone, PartialEq, Message)]
pub struct Updates {
    #[prost(message, repeated, tag = "1")]
    pub updates: Vec<Update>,
}

/// Encode into `out`, reusing its allocation.
pub fn encode<T: Message>(value: &T, out: &mut Vec<u8>) {
    out.clear();
    value.encode(out).expect("a Vec grows to any message size");
}

pub fn decode<T: Message + Default>(bytes: &[u8]) -> T {
    T::decode(bytes).expect("valid message")
}

// --- read (on the decoded structs) ---

pub fn read_log(l: &Log) -> u64 {
    l.entries.iter().fold(0, |acc, e| {
        data::log_entry_sum(
            acc,
            e.timestamp,
            e.level as u64,
            e.service.len(),
            e.message.len(),
        )
    })
}

pub fn read_mesh(m: &Mesh) -> MeshSum {
    let mut s = 0;
    for ((p, n), t) in m
        .positions
        .chunks_exact(3)
        .zip(m.normals.chunks_exact(3))
        .zip(m.uvs.chunks_exact(2))
    {
        s = data::vertex_bits(s, [p[0], p[1], p[2], n[0], n[1], n[2], t[0], t[1]]);
    }
    (s, m.indices.iter().map(|&i| i as u64).sum())
}

pub fn read_save(s: &Save) -> i64 {
    let mut acc = 0;
    if let Some(p) = &s.player {
        acc += p.name.len() as i64 + p.level as i64 + p.hp as i64 + p.gold as i64;
        for item in &p.inventory {
            acc += item.id as i64 + item.name.len() as i64 + item.count as i64;
            for e in &item.enchantments {
                acc += e.element as i64 + e.power as i64 + e.duration as i64;
            }
        }
    }
    for q in &s.quests {
        acc += q.id as i64 + q.title.len() as i64 + q.state as i64;
        for st in &q.steps {
            acc += st.description.len() as i64 + st.done as i64 + st.progress as i64;
        }
    }
    acc
}

pub fn read_updates(u: &Updates) -> i64 {
    u.updates.iter().fold(0, |a, u| {
        data::update_sum(
            a,
            u.entity,
            u.dx as i16,
            u.dy as i16,
            u.hp as i8,
            u.flags as u8,
        )
    })
}

// --- access (on the decoded structs) ---

pub fn access_log(l: &Log) -> usize {
    l.entries
        .get(data::log_at(l.entries.len()))
        .map_or(0, |e| e.message.len())
}

pub fn access_mesh(m: &Mesh) -> f32 {
    let at = data::vertex_at(m.positions.len() / 3);
    m.normals.get(at * 3 + 1).copied().unwrap_or(0.0)
}

pub fn access_save(s: &Save) -> i16 {
    let Some(p) = &s.player else { return 0 };
    p.inventory
        .get(data::item_at(p.inventory.len()))
        .and_then(|i| i.enchantments.last())
        .map_or(0, |e| e.power as i16)
}

pub fn access_updates(u: &Updates) -> i8 {
    u.updates
        .get(data::update_at(u.updates.len()))
        .map_or(0, |u| u.hp as i8)
}

// --- conversions from and to the plain structs (outside timing) ---

pub fn from_log(l: &data::Log) -> Log {
    Log {
        entries: l
            .entries
            .iter()
            .map(|e| Entry {
                timestamp: e.timestamp,
                level: e.level as u32,
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
                level: enum_of(&LEVELS, e.level as u64),
                service: e.service.clone(),
                message: e.message.clone(),
            })
            .collect(),
    }
}

pub fn from_mesh(m: &data::Mesh) -> Mesh {
    let vs = &m.vertices;
    Mesh {
        positions: vs
            .iter()
            .flat_map(|v| [v.position.x, v.position.y, v.position.z])
            .collect(),
        normals: vs
            .iter()
            .flat_map(|v| [v.normal.x, v.normal.y, v.normal.z])
            .collect(),
        uvs: vs.iter().flat_map(|v| [v.uv.x, v.uv.y]).collect(),
        indices: m.indices.clone(),
    }
}

pub fn to_mesh(m: &Mesh) -> data::Mesh {
    let v3 = |p: &[f32]| data::Vec3 {
        x: p[0],
        y: p[1],
        z: p[2],
    };
    data::Mesh {
        vertices: m
            .positions
            .chunks_exact(3)
            .zip(m.normals.chunks_exact(3))
            .zip(m.uvs.chunks_exact(2))
            .map(|((p, n), t)| data::Vertex {
                position: v3(p),
                normal: v3(n),
                uv: data::Vec2 { x: t[0], y: t[1] },
            })
            .collect(),
        indices: m.indices.clone(),
    }
}

pub fn from_save(s: &data::Save) -> Save {
    let p = &s.player;
    Save {
        player: Some(Player {
            name: p.name.clone(),
            level: p.level as u32,
            hp: p.hp,
            gold: p.gold,
            position: Some(Vec3 {
                x: p.position.x,
                y: p.position.y,
                z: p.position.z,
            }),
            inventory: p
                .inventory
                .iter()
                .map(|i| Item {
                    id: i.id,
                    name: i.name.clone(),
                    count: i.count as u32,
                    weight: i.weight,
                    enchantments: i
                        .enchantments
                        .iter()
                        .map(|e| Enchantment {
                            element: e.element as u32,
                            power: e.power as i32,
                            duration: e.duration,
                        })
                        .collect(),
                })
                .collect(),
        }),
        quests: s
            .quests
            .iter()
            .map(|q| Quest {
                id: q.id,
                title: q.title.clone(),
                state: q.state as u32,
                steps: q
                    .steps
                    .iter()
                    .map(|st| Step {
                        description: st.description.clone(),
                        done: st.done,
                        progress: st.progress as u32,
                    })
                    .collect(),
            })
            .collect(),
    }
}

pub fn to_save(s: &Save) -> data::Save {
    let p = s.player.clone().unwrap_or_default();
    let pos = p.position.clone().unwrap_or_default();
    data::Save {
        player: data::Player {
            name: p.name,
            level: p.level as u16,
            hp: p.hp,
            gold: p.gold,
            position: data::Vec3 {
                x: pos.x,
                y: pos.y,
                z: pos.z,
            },
            inventory: p
                .inventory
                .iter()
                .map(|i| data::Item {
                    id: i.id,
                    name: i.name.clone(),
                    count: i.count as u16,
                    weight: i.weight,
                    enchantments: i
                        .enchantments
                        .iter()
                        .map(|e| data::Enchantment {
                            element: enum_of(&ELEMENTS, e.element as u64),
                            power: e.power as i16,
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
                state: enum_of(&QUEST_STATES, q.state as u64),
                steps: q
                    .steps
                    .iter()
                    .map(|st| data::Step {
                        description: st.description.clone(),
                        done: st.done,
                        progress: st.progress as u16,
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
                dx: u.dx as i32,
                dy: u.dy as i32,
                hp: u.hp as i32,
                flags: u.flags as u32,
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
                dx: u.dx as i16,
                dy: u.dy as i16,
                hp: u.hp as i8,
                flags: u.flags as u8,
            })
            .collect(),
    }
}
