//! The four workloads as plain Rust structs, their deterministic generators
//! and the reference results of the measured operations. rkyv and bitcode
//! serialize these structs directly (their natural use); every other
//! contender converts from or to them outside timing.

use bitcode::{Decode, Encode};
use rkyv::{Archive, Deserialize, Serialize};

/// Entries in the log workload.
pub const LOG_ENTRIES: usize = 10_000;
/// Vertices in the mesh workload (indices: three per vertex).
pub const MESH_VERTICES: usize = 1 << 20;
/// Items in the save-game inventory and quests in its journal.
pub const SAVE_ITEMS: usize = 1_000;
pub const SAVE_QUESTS: usize = 300;
/// Updates in the updates batch.
pub const UPDATES: usize = 1_000;

// --- log ---

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, PartialEq)]
pub struct Entry {
    pub timestamp: u64,
    pub level: Level,
    pub service: String,
    pub message: String,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, Default, PartialEq)]
pub struct Log {
    pub entries: Vec<Entry>,
}

// --- mesh ---

#[derive(
    Archive, Serialize, Deserialize, Encode, Decode, Clone, Copy, Debug, Default, PartialEq,
)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(
    Archive, Serialize, Deserialize, Encode, Decode, Clone, Copy, Debug, Default, PartialEq,
)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

#[derive(
    Archive, Serialize, Deserialize, Encode, Decode, Clone, Copy, Debug, Default, PartialEq,
)]
pub struct Vertex {
    pub position: Vec3,
    pub normal: Vec3,
    pub uv: Vec2,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    pub vertices: Vec<Vertex>,
    pub indices: Vec<u32>,
}

// --- save-game ---

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Element {
    None,
    Fire,
    Frost,
    Shock,
    Poison,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum QuestState {
    Open,
    Active,
    Done,
    Failed,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Copy, Debug, PartialEq)]
pub struct Enchantment {
    pub element: Element,
    pub power: i16,
    pub duration: u32,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, PartialEq)]
pub struct Item {
    pub id: u32,
    pub name: String,
    pub count: u16,
    pub weight: f32,
    pub enchantments: Vec<Enchantment>,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, PartialEq)]
pub struct Step {
    pub description: String,
    pub done: bool,
    pub progress: u16,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, PartialEq)]
pub struct Quest {
    pub id: u32,
    pub title: String,
    pub state: QuestState,
    pub steps: Vec<Step>,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, Default, PartialEq)]
pub struct Player {
    pub name: String,
    pub level: u16,
    pub hp: i32,
    pub gold: u32,
    pub position: Vec3,
    pub inventory: Vec<Item>,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, Default, PartialEq)]
pub struct Save {
    pub player: Player,
    pub quests: Vec<Quest>,
}

// --- updates ---

#[derive(
    Archive, Serialize, Deserialize, Encode, Decode, Clone, Copy, Debug, Default, PartialEq,
)]
pub struct Update {
    pub entity: u32,
    pub dx: i16,
    pub dy: i16,
    pub hp: i8,
    pub flags: u8,
}

#[derive(Archive, Serialize, Deserialize, Encode, Decode, Clone, Debug, Default, PartialEq)]
pub struct Updates {
    pub updates: Vec<Update>,
}

// --- enum conversions (every format stores these enums as small integers) ---

pub const LEVELS: [Level; 5] = [
    Level::Trace,
    Level::Debug,
    Level::Info,
    Level::Warn,
    Level::Error,
];
pub const ELEMENTS: [Element; 5] = [
    Element::None,
    Element::Fire,
    Element::Frost,
    Element::Shock,
    Element::Poison,
];
pub const QUEST_STATES: [QuestState; 4] = [
    QuestState::Open,
    QuestState::Active,
    QuestState::Done,
    QuestState::Failed,
];

/// The enum value of a stored number; unknown numbers map to the first
/// value, as Karmem and protobuf readers do for unknown enum values.
pub fn enum_of<T: Copy>(values: &[T], n: u64) -> T {
    *values.get(n as usize).unwrap_or(&values[0])
}

// --- generators ---

/// Small deterministic generator (xorshift): every run and every contender
/// sees the same data without a dependency on `rand`.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// A float with 20 significant bits, in [-512, 512).
    pub fn f32(&mut self) -> f32 {
        (self.below(1 << 20) as f32) / 1024.0 - 512.0
    }
    /// Text of `min..min + span` bytes from a small vocabulary (ASCII,
    /// like most logs).
    pub fn text(&mut self, min: usize, span: u64) -> String {
        let len = min + self.below(span) as usize;
        const WORDS: [&str; 12] = [
            "request",
            "user",
            "timeout",
            "cache",
            "miss",
            "ok",
            "retry",
            "db",
            "shard",
            "latency",
            "error",
            "connection",
        ];
        let mut s = String::with_capacity(len + 12);
        while s.len() < len {
            s.push_str(WORDS[self.below(WORDS.len() as u64) as usize]);
            s.push(' ');
        }
        s.truncate(len);
        s
    }
}

pub fn log(entries: usize) -> Log {
    let mut rng = Rng::new(0x10C);
    const SERVICES: [&str; 6] = ["auth", "billing", "gateway", "search", "storage", "mailer"];
    let mut timestamp = 1_700_000_000_000_000u64;
    let entries = (0..entries)
        .map(|_| {
            timestamp += rng.below(5_000);
            Entry {
                timestamp,
                level: enum_of(&LEVELS, rng.below(5)),
                service: SERVICES[rng.below(6) as usize].to_string(),
                message: rng.text(20, 181),
            }
        })
        .collect();
    Log { entries }
}

pub fn mesh(vertices: usize) -> Mesh {
    let mut rng = Rng::new(0x3E5);
    let v3 = |rng: &mut Rng| Vec3 {
        x: rng.f32(),
        y: rng.f32(),
        z: rng.f32(),
    };
    let vertices: Vec<Vertex> = (0..vertices)
        .map(|_| Vertex {
            position: v3(&mut rng),
            normal: v3(&mut rng),
            uv: Vec2 {
                x: rng.f32(),
                y: rng.f32(),
            },
        })
        .collect();
    let n = vertices.len().max(1) as u64;
    let indices = (0..3 * vertices.len())
        .map(|_| rng.below(n) as u32)
        .collect();
    Mesh { vertices, indices }
}

pub fn save(items: usize, quests: usize) -> Save {
    let mut rng = Rng::new(0x5A7E);
    let inventory = (0..items)
        .map(|i| Item {
            id: i as u32 * 7 + 1,
            name: rng.text(8, 24),
            count: 1 + rng.below(99) as u16,
            weight: rng.below(1000) as f32 / 10.0,
            // At least one, so that "the last enchantment" always exists.
            enchantments: (0..1 + rng.below(4))
                .map(|_| Enchantment {
                    element: enum_of(&ELEMENTS, rng.below(5)),
                    power: rng.below(2000) as i16 - 1000,
                    duration: rng.below(100_000) as u32,
                })
                .collect(),
        })
        .collect();
    let quests = (0..quests)
        .map(|i| Quest {
            id: 10_000 + i as u32,
            title: rng.text(10, 30),
            state: enum_of(&QUEST_STATES, rng.below(4)),
            steps: (0..1 + rng.below(8))
                .map(|_| Step {
                    description: rng.text(20, 60),
                    done: rng.below(2) == 1,
                    progress: rng.below(101) as u16,
                })
                .collect(),
        })
        .collect();
    Save {
        player: Player {
            name: "Aldric the Unready".to_string(),
            level: 42,
            hp: -3,
            gold: 123_456,
            position: Vec3 {
                x: 1.5,
                y: -2.25,
                z: 1024.0,
            },
            inventory,
        },
        quests,
    }
}

pub fn updates(n: usize) -> Updates {
    let mut rng = Rng::new(0x0BDA7E);
    let updates = (0..n)
        .map(|_| Update {
            entity: rng.below(100_000) as u32,
            dx: rng.below(201) as i16 - 100,
            dy: rng.below(201) as i16 - 100,
            hp: rng.below(41) as i8 - 20,
            flags: rng.below(256) as u8,
        })
        .collect();
    Updates { updates }
}

// --- what "read" and "access" compute, on the plain structs ---
//
// Every contender's read adds the same values in the same order, so the
// results are bit-identical (tests/agree.rs). Text counts by its length:
// the zero-copy readers return it without copying, and scanning its bytes
// would time the same loop for every contender.

/// Log: every timestamp, level and text length.
pub fn log_entry_sum(acc: u64, timestamp: u64, level: u64, service: usize, message: usize) -> u64 {
    acc.wrapping_add(timestamp)
        .wrapping_add(level)
        .wrapping_add(service as u64)
        .wrapping_add(message as u64)
}

/// Mesh: a checksum of every coordinate of every vertex — the sum of their
/// bit patterns. Wrapping integer addition is exact and does not depend on
/// order, so each contender may read in the order its layout favours
/// (Karmem column by column, the others vertex by vertex) and still agree
/// bit for bit; a float sum would need one fixed order and would time its
/// dependency chain of additions rather than the reads.
pub fn vertex_bits(acc: u64, v: [f32; 8]) -> u64 {
    v.iter()
        .fold(acc, |a, x| a.wrapping_add(x.to_bits() as u64))
}

/// The same checksum over one column of coordinates.
pub fn column_bits(c: &[f32]) -> u64 {
    c.iter()
        .fold(0u64, |a, x| a.wrapping_add(x.to_bits() as u64))
}

/// Mesh read result: the coordinate checksum and the index sum.
pub type MeshSum = (u64, u64);

pub fn read_log(l: &Log) -> u64 {
    l.entries.iter().fold(0, |acc, e| {
        log_entry_sum(
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
    for v in &m.vertices {
        let (p, n, t) = (v.position, v.normal, v.uv);
        s = vertex_bits(s, [p.x, p.y, p.z, n.x, n.y, n.z, t.x, t.y]);
    }
    (s, m.indices.iter().map(|&i| i as u64).sum())
}

/// Save: every integer field and every text length, as i64.
pub fn read_save(s: &Save) -> i64 {
    let p = &s.player;
    let mut acc = p.name.len() as i64 + p.level as i64 + p.hp as i64 + p.gold as i64;
    for item in &p.inventory {
        acc += item.id as i64 + item.name.len() as i64 + item.count as i64;
        for e in &item.enchantments {
            acc += e.element as i64 + e.power as i64 + e.duration as i64;
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

pub fn update_sum(acc: i64, entity: u32, dx: i16, dy: i16, hp: i8, flags: u8) -> i64 {
    acc + entity as i64 + dx as i64 + dy as i64 + hp as i64 + flags as i64
}

pub fn read_updates(u: &Updates) -> i64 {
    u.updates
        .iter()
        .fold(0, |a, u| update_sum(a, u.entity, u.dx, u.dy, u.hp, u.flags))
}

/// The elements "access" reads: one field deep inside each message.
pub fn log_at(entries: usize) -> usize {
    entries / 2
}
pub fn vertex_at(vertices: usize) -> usize {
    vertices / 2
}
pub fn item_at(items: usize) -> usize {
    items / 2
}
pub fn update_at(updates: usize) -> usize {
    updates / 2
}

/// Access results on the plain structs: entry's message length, vertex's
/// normal.y, the middle item's last enchantment's power, the middle
/// update's hp.
pub fn access_log(l: &Log) -> usize {
    l.entries[log_at(l.entries.len())].message.len()
}
pub fn access_mesh(m: &Mesh) -> f32 {
    m.vertices[vertex_at(m.vertices.len())].normal.y
}
pub fn access_save(s: &Save) -> i16 {
    let inv = &s.player.inventory;
    let item = &inv[item_at(inv.len())];
    item.enchantments[item.enchantments.len() - 1].power
}
pub fn access_updates(u: &Updates) -> i8 {
    u.updates[update_at(u.updates.len())].hp
}
