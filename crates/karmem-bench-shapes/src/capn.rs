//! The Cap'n Proto contender: code generated from `schemas/shapes.capnp`
//! by Debian's `capnp` and the `capnpc` crate at build time. Serialize
//! builds from the plain structs into a reused scratch segment, then writes
//! the framed message into a reused `Vec` (every other contender produces
//! one contiguous message too). Cap'n Proto has no separate validator and
//! no unchecked reader in its public API: every read checks bounds lazily,
//! within the reader's traversal limit (default options: 8 Mi words).
//! "Validate" is `total_size()`, which follows every pointer of the message
//! with those checks; it does not check that text is UTF-8.

use capnp::message::{ReaderOptions, ScratchSpaceHeapAllocator};
use capnp::serialize::{self, NoAllocSliceSegments};

use crate::data::{self, enum_of, MeshSum, ELEMENTS, LEVELS, QUEST_STATES};
use crate::shapes_capnp as cp;

/// A reused first segment plus a reused output buffer.
pub struct Encoder<'s> {
    alloc: ScratchSpaceHeapAllocator<'s>,
    pub out: Vec<u8>,
}

impl<'s> Encoder<'s> {
    /// `scratch` becomes the first segment of every message (8-aligned
    /// words: `capnp::Word::allocate_zeroed_vec`).
    pub fn new(scratch: &'s mut [capnp::Word]) -> Self {
        Encoder {
            alloc: ScratchSpaceHeapAllocator::new(capnp::Word::words_to_bytes_mut(scratch)),
            out: Vec::new(),
        }
    }

    fn finish<'o, A: capnp::message::Allocator>(
        out: &'o mut Vec<u8>,
        msg: &capnp::message::Builder<A>,
    ) -> &'o [u8] {
        out.clear();
        serialize::write_message(&mut *out, msg).expect("writing to a Vec cannot fail");
        out
    }

    pub fn log(&mut self, l: &data::Log) -> &[u8] {
        let mut msg = capnp::message::Builder::new(&mut self.alloc);
        let root = msg.init_root::<cp::log::Builder>();
        let mut list = root.init_entries(l.entries.len() as u32);
        for (i, e) in l.entries.iter().enumerate() {
            let mut b = list.reborrow().get(i as u32);
            b.set_timestamp(e.timestamp);
            b.set_level(level(e.level));
            b.set_service(e.service.as_str());
            b.set_message(e.message.as_str());
        }
        Self::finish(&mut self.out, &msg)
    }

    pub fn mesh(&mut self, m: &data::Mesh) -> &[u8] {
        let mut msg = capnp::message::Builder::new(&mut self.alloc);
        let mut root = msg.init_root::<cp::mesh::Builder>();
        let mut list = root.reborrow().init_vertices(m.vertices.len() as u32);
        for (i, v) in m.vertices.iter().enumerate() {
            let mut b = list.reborrow().get(i as u32);
            b.set_px(v.position.x);
            b.set_py(v.position.y);
            b.set_pz(v.position.z);
            b.set_nx(v.normal.x);
            b.set_ny(v.normal.y);
            b.set_nz(v.normal.z);
            b.set_u(v.uv.x);
            b.set_v(v.uv.y);
        }
        // A primitive list is one block: copy it as a slice.
        let mut indices = root.init_indices(m.indices.len() as u32);
        match indices.as_slice() {
            Some(s) => s.copy_from_slice(&m.indices),
            None => {
                for (i, &x) in m.indices.iter().enumerate() {
                    indices.set(i as u32, x);
                }
            }
        }
        Self::finish(&mut self.out, &msg)
    }

    pub fn save(&mut self, s: &data::Save) -> &[u8] {
        let mut msg = capnp::message::Builder::new(&mut self.alloc);
        let mut root = msg.init_root::<cp::save::Builder>();
        let p = &s.player;
        let mut pb = root.reborrow().init_player();
        pb.set_name(p.name.as_str());
        pb.set_level(p.level);
        pb.set_hp(p.hp);
        pb.set_gold(p.gold);
        pb.set_px(p.position.x);
        pb.set_py(p.position.y);
        pb.set_pz(p.position.z);
        let mut inv = pb.init_inventory(p.inventory.len() as u32);
        for (i, item) in p.inventory.iter().enumerate() {
            let mut b = inv.reborrow().get(i as u32);
            b.set_id(item.id);
            b.set_name(item.name.as_str());
            b.set_count(item.count);
            b.set_weight(item.weight);
            let mut en = b.init_enchantments(item.enchantments.len() as u32);
            for (j, e) in item.enchantments.iter().enumerate() {
                let mut b = en.reborrow().get(j as u32);
                b.set_element(element(e.element));
                b.set_power(e.power);
                b.set_duration(e.duration);
            }
        }
        let mut quests = root.init_quests(s.quests.len() as u32);
        for (i, q) in s.quests.iter().enumerate() {
            let mut b = quests.reborrow().get(i as u32);
            b.set_id(q.id);
            b.set_title(q.title.as_str());
            b.set_state(quest_state(q.state));
            let mut steps = b.init_steps(q.steps.len() as u32);
            for (j, st) in q.steps.iter().enumerate() {
                let mut b = steps.reborrow().get(j as u32);
                b.set_description(st.description.as_str());
                b.set_done(st.done);
                b.set_progress(st.progress);
            }
        }
        Self::finish(&mut self.out, &msg)
    }

    pub fn updates(&mut self, u: &data::Updates) -> &[u8] {
        let mut msg = capnp::message::Builder::new(&mut self.alloc);
        let root = msg.init_root::<cp::updates::Builder>();
        let mut list = root.init_updates(u.updates.len() as u32);
        for (i, u) in u.updates.iter().enumerate() {
            let mut b = list.reborrow().get(i as u32);
            b.set_entity(u.entity);
            b.set_dx(u.dx);
            b.set_dy(u.dy);
            b.set_hp(u.hp);
            b.set_flags(u.flags);
        }
        Self::finish(&mut self.out, &msg)
    }
}

fn level(l: data::Level) -> cp::Level {
    cp::Level::try_from(l as u16).unwrap_or(cp::Level::Trace)
}
fn element(e: data::Element) -> cp::Element {
    cp::Element::try_from(e as u16).unwrap_or(cp::Element::None)
}
fn quest_state(s: data::QuestState) -> cp::QuestState {
    cp::QuestState::try_from(s as u16).unwrap_or(cp::QuestState::Open)
}

/// A reader over a flat message (segment table checked; the bytes must be
/// 8-aligned). Everything else is checked when read.
pub fn message(mut bytes: &[u8]) -> capnp::message::Reader<NoAllocSliceSegments<'_>> {
    serialize::read_message_from_flat_slice_no_alloc(&mut bytes, ReaderOptions::new())
        .expect("valid message")
}

/// Open the message and follow every pointer under the reader's checks;
/// false on any error (a bad segment table included).
pub fn validate<T: capnp::traits::Owned>(mut bytes: &[u8]) -> bool
where
    for<'a> T::Reader<'a>: TotalSize,
{
    serialize::read_message_from_flat_slice_no_alloc(&mut bytes, ReaderOptions::new())
        .and_then(|msg| msg.get_root::<T::Reader<'_>>().and_then(|r| r.total_size()))
        .is_ok()
}

/// The generated readers' `total_size`, behind one trait.
pub trait TotalSize {
    fn total_size(&self) -> capnp::Result<capnp::MessageSize>;
}

macro_rules! total_size {
    ($($m:ident),*) => {$(
        impl TotalSize for cp::$m::Reader<'_> {
            fn total_size(&self) -> capnp::Result<capnp::MessageSize> {
                cp::$m::Reader::total_size(self)
            }
        }
    )*};
}
total_size!(log, mesh, save, updates);

// --- read (every getter checked; an error counts as absent) ---

fn len(t: capnp::Result<capnp::text::Reader<'_>>) -> usize {
    t.map_or(0, |t| t.len())
}

pub fn read_log(l: cp::log::Reader<'_>) -> u64 {
    let Ok(entries) = l.get_entries() else {
        return 0;
    };
    entries.iter().fold(0, |acc, e| {
        data::log_entry_sum(
            acc,
            e.get_timestamp(),
            e.get_level().map_or(0, |l| l as u64),
            len(e.get_service()),
            len(e.get_message()),
        )
    })
}

pub fn read_mesh(m: cp::mesh::Reader<'_>) -> MeshSum {
    let mut s = 0;
    if let Ok(vs) = m.get_vertices() {
        for v in vs.iter() {
            s = data::vertex_bits(
                s,
                [
                    v.get_px(),
                    v.get_py(),
                    v.get_pz(),
                    v.get_nx(),
                    v.get_ny(),
                    v.get_nz(),
                    v.get_u(),
                    v.get_v(),
                ],
            );
        }
    }
    let indices = m.get_indices().ok();
    let sum = match indices.as_ref().and_then(|i| i.as_slice()) {
        Some(s) => s.iter().map(|&i| i as u64).sum(),
        None => indices.map_or(0, |i| i.iter().map(|i| i as u64).sum()),
    };
    (s, sum)
}

pub fn read_save(s: cp::save::Reader<'_>) -> i64 {
    let mut acc = 0;
    if let Ok(p) = s.get_player() {
        acc += len(p.get_name()) as i64 + p.get_level() as i64 + p.get_hp() as i64;
        acc += p.get_gold() as i64;
        for item in p.get_inventory().into_iter().flatten() {
            acc += item.get_id() as i64 + len(item.get_name()) as i64 + item.get_count() as i64;
            for e in item.get_enchantments().into_iter().flatten() {
                let el = e.get_element().map_or(0, |e| e as i64);
                acc += el + e.get_power() as i64 + e.get_duration() as i64;
            }
        }
    }
    for q in s.get_quests().into_iter().flatten() {
        let state = q.get_state().map_or(0, |s| s as i64);
        acc += q.get_id() as i64 + len(q.get_title()) as i64 + state;
        for st in q.get_steps().into_iter().flatten() {
            acc += len(st.get_description()) as i64;
            acc += st.get_done() as i64 + st.get_progress() as i64;
        }
    }
    acc
}

pub fn read_updates(u: cp::updates::Reader<'_>) -> i64 {
    u.get_updates().into_iter().flatten().fold(0, |a, u| {
        data::update_sum(
            a,
            u.get_entity(),
            u.get_dx(),
            u.get_dy(),
            u.get_hp(),
            u.get_flags(),
        )
    })
}

// --- access ---

pub fn access_log(l: cp::log::Reader<'_>) -> usize {
    l.get_entries()
        .ok()
        .and_then(|e| e.try_get(data::log_at(e.len() as usize) as u32))
        .map_or(0, |e| len(e.get_message()))
}

pub fn access_mesh(m: cp::mesh::Reader<'_>) -> f32 {
    m.get_vertices()
        .ok()
        .and_then(|v| v.try_get(data::vertex_at(v.len() as usize) as u32))
        .map_or(0.0, |v| v.get_ny())
}

pub fn access_save(s: cp::save::Reader<'_>) -> i16 {
    s.get_player()
        .and_then(|p| p.get_inventory())
        .ok()
        .and_then(|inv| inv.try_get(data::item_at(inv.len() as usize) as u32))
        .and_then(|item| item.get_enchantments().ok())
        .and_then(|e| e.try_get(e.len().wrapping_sub(1)))
        .map_or(0, |e| e.get_power())
}

pub fn access_updates(u: cp::updates::Reader<'_>) -> i8 {
    u.get_updates()
        .ok()
        .and_then(|u| u.try_get(data::update_at(u.len() as usize) as u32))
        .map_or(0, |u| u.get_hp())
}

// --- back to the plain structs (round-trip tests; errors panic there) ---

fn text(t: capnp::Result<capnp::text::Reader<'_>>) -> String {
    t.expect("text").to_string().expect("UTF-8 text")
}

pub fn to_log(l: cp::log::Reader<'_>) -> data::Log {
    data::Log {
        entries: l
            .get_entries()
            .expect("entries")
            .iter()
            .map(|e| data::Entry {
                timestamp: e.get_timestamp(),
                level: enum_of(&LEVELS, e.get_level().expect("level") as u64),
                service: text(e.get_service()),
                message: text(e.get_message()),
            })
            .collect(),
    }
}

pub fn to_mesh(m: cp::mesh::Reader<'_>) -> data::Mesh {
    let v3 = |x, y, z| data::Vec3 { x, y, z };
    data::Mesh {
        vertices: m
            .get_vertices()
            .expect("vertices")
            .iter()
            .map(|v| data::Vertex {
                position: v3(v.get_px(), v.get_py(), v.get_pz()),
                normal: v3(v.get_nx(), v.get_ny(), v.get_nz()),
                uv: data::Vec2 {
                    x: v.get_u(),
                    y: v.get_v(),
                },
            })
            .collect(),
        indices: m.get_indices().expect("indices").iter().collect(),
    }
}

pub fn to_save(s: cp::save::Reader<'_>) -> data::Save {
    let p = s.get_player().expect("player");
    data::Save {
        player: data::Player {
            name: text(p.get_name()),
            level: p.get_level(),
            hp: p.get_hp(),
            gold: p.get_gold(),
            position: data::Vec3 {
                x: p.get_px(),
                y: p.get_py(),
                z: p.get_pz(),
            },
            inventory: p
                .get_inventory()
                .expect("inventory")
                .iter()
                .map(|i| data::Item {
                    id: i.get_id(),
                    name: text(i.get_name()),
                    count: i.get_count(),
                    weight: i.get_weight(),
                    enchantments: i
                        .get_enchantments()
                        .expect("enchantments")
                        .iter()
                        .map(|e| data::Enchantment {
                            element: enum_of(&ELEMENTS, e.get_element().expect("element") as u64),
                            power: e.get_power(),
                            duration: e.get_duration(),
                        })
                        .collect(),
                })
                .collect(),
        },
        quests: s
            .get_quests()
            .expect("quests")
            .iter()
            .map(|q| data::Quest {
                id: q.get_id(),
                title: text(q.get_title()),
                state: enum_of(&QUEST_STATES, q.get_state().expect("state") as u64),
                steps: q
                    .get_steps()
                    .expect("steps")
                    .iter()
                    .map(|st| data::Step {
                        description: text(st.get_description()),
                        done: st.get_done(),
                        progress: st.get_progress(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

pub fn to_updates(u: cp::updates::Reader<'_>) -> data::Updates {
    data::Updates {
        updates: u
            .get_updates()
            .expect("updates")
            .iter()
            .map(|u| data::Update {
                entity: u.get_entity(),
                dx: u.get_dx(),
                dy: u.get_dy(),
                hp: u.get_hp(),
                flags: u.get_flags(),
            })
            .collect(),
    }
}
