//! The rkyv contender: archives of the plain structs themselves (rkyv's
//! natural use), with rkyv's low-level API (the data has no shared
//! pointers, so the high-level API's sharing maps would only add work).
//! Validate is bytecheck (`access`); access and read use the archive after
//! validation (`access_unchecked`, the same contract as Karmem's trusted
//! viewer).

use crate::data::*;

/// Archived enums as their stored numbers.
fn level(l: &ArchivedLevel) -> u64 {
    match l {
        ArchivedLevel::Trace => 0,
        ArchivedLevel::Debug => 1,
        ArchivedLevel::Info => 2,
        ArchivedLevel::Warn => 3,
        ArchivedLevel::Error => 4,
    }
}
fn element(e: &ArchivedElement) -> i64 {
    match e {
        ArchivedElement::None => 0,
        ArchivedElement::Fire => 1,
        ArchivedElement::Frost => 2,
        ArchivedElement::Shock => 3,
        ArchivedElement::Poison => 4,
    }
}
fn quest_state(s: &ArchivedQuestState) -> i64 {
    match s {
        ArchivedQuestState::Open => 0,
        ArchivedQuestState::Active => 1,
        ArchivedQuestState::Done => 2,
        ArchivedQuestState::Failed => 3,
    }
}

pub fn read_log(l: &ArchivedLog) -> u64 {
    l.entries.iter().fold(0, |acc, e| {
        log_entry_sum(
            acc,
            e.timestamp.to_native(),
            level(&e.level),
            e.service.len(),
            e.message.len(),
        )
    })
}

pub fn read_mesh(m: &ArchivedMesh) -> MeshSum {
    let mut s = 0;
    for v in m.vertices.iter() {
        let (p, n, t) = (&v.position, &v.normal, &v.uv);
        s = vertex_bits(
            s,
            [p.x, p.y, p.z, n.x, n.y, n.z, t.x, t.y].map(|f| f.to_native()),
        );
    }
    let indices = m.indices.iter().map(|i| i.to_native() as u64).sum();
    (s, indices)
}

pub fn read_save(s: &ArchivedSave) -> i64 {
    let p = &s.player;
    let mut acc = p.name.len() as i64
        + p.level.to_native() as i64
        + p.hp.to_native() as i64
        + p.gold.to_native() as i64;
    for item in p.inventory.iter() {
        acc += item.id.to_native() as i64 + item.name.len() as i64 + item.count.to_native() as i64;
        for e in item.enchantments.iter() {
            acc += element(&e.element) + e.power.to_native() as i64 + e.duration.to_native() as i64;
        }
    }
    for q in s.quests.iter() {
        acc += q.id.to_native() as i64 + q.title.len() as i64 + quest_state(&q.state);
        for st in q.steps.iter() {
            acc += st.description.len() as i64 + st.done as i64 + st.progress.to_native() as i64;
        }
    }
    acc
}

pub fn read_updates(u: &ArchivedUpdates) -> i64 {
    u.updates.iter().fold(0, |a, u| {
        update_sum(
            a,
            u.entity.to_native(),
            u.dx.to_native(),
            u.dy.to_native(),
            u.hp,
            u.flags,
        )
    })
}

pub fn access_log(l: &ArchivedLog) -> usize {
    l.entries
        .get(log_at(l.entries.len()))
        .map_or(0, |e| e.message.len())
}

pub fn access_mesh(m: &ArchivedMesh) -> f32 {
    m.vertices
        .get(vertex_at(m.vertices.len()))
        .map_or(0.0, |v| v.normal.y.to_native())
}

pub fn access_save(s: &ArchivedSave) -> i16 {
    let inv = &s.player.inventory;
    inv.get(item_at(inv.len()))
        .and_then(|i| i.enchantments.last())
        .map_or(0, |e| e.power.to_native())
}

pub fn access_updates(u: &ArchivedUpdates) -> i8 {
    u.updates
        .get(update_at(u.updates.len()))
        .map_or(0, |u| u.hp)
}
