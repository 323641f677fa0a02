//! Generated Rust code on hostile bytes: open, decode into a reused object,
//! validate, and read every root field through checked and (after
//! validation) trusted viewers. Nothing may panic or read out of bounds
//! (AddressSanitizer is on).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[allow(dead_code, clippy::all)]
mod all {
    include!(concat!(env!("OUT_DIR"), "/all.rs"));
}

fn touch<M: karmem::Mode>(v: all::RootView<'_, M>) -> u64 {
    let mut acc = v.kind().0 as u64 ^ v.wide().0 as u64 ^ v.text().len() as u64;
    acc ^= v.flags().iter().filter(|b| **b).count() as u64;
    acc ^= v.utf16().len() as u64 ^ v.limited().iter().fold(0, |a, x| a ^ x);
    for p in v.fixed().iter() {
        acc ^= p.x().to_bits() as u64;
    }
    acc ^= v.points().x().len() as u64;
    for p in v.points_aos().iter() {
        acc ^= p.z().to_bits() as u64;
    }
    let elements = v.elements();
    acc ^= elements.id().iter().fold(0, |a, x| a ^ *x as u64);
    // An SoA length is not bounded by the message when its columns are
    // absent (each access stays O(1)); bound the walk, not the reader.
    for e in elements.iter().take(4096) {
        acc ^= e.name().len() as u64 ^ e.numbers().len() as u64 ^ e.child_label().len() as u64;
        acc ^= e.where_pos_y().to_bits() as u64 ^ e.where_flag() as u64;
        if let all::ShapeView::Circle(c) = e.shape() {
            acc ^= c.radius().to_bits();
        }
    }
    for e in v.elements_aos().iter() {
        acc ^= e.child().value() ^ e.where_().pos().x().to_bits() as u64;
    }
    for s in v.shapes_aos().iter().chain(v.shapes_soa().iter()) {
        if let all::ShapeView::Square(q) = s {
            acc ^= q.side().to_bits() as u64;
        }
    }
    acc ^= v.shapes_bovoa().circle().len() as u64 ^ v.shapes_bovoa().square().len() as u64;
    acc ^= v.shapes_bovos().circle().radius().len() as u64
        ^ v.shapes_bovos().square().side().len() as u64;
    acc ^= v.next().label().len() as u64;
    acc ^= touch_new(v);
    for e in elements.iter().take(4096) {
        acc ^= e.hp().unwrap_or(1) as u64 ^ e.nick().map_or(2, str::len) as u64;
        acc ^= e.rows().iter().take(64).map(|r| r.len() as u64).sum::<u64>();
        acc ^= walk(e.link()) ^ e.level() as u64;
    }
    acc
}

/// Optional fields, arrays of arrays and defaults (idl.md §3.1, §4.3).
fn touch_new<M: karmem::Mode>(v: all::RootView<'_, M>) -> u64 {
    let mut acc = v.maybe().map_or(1, u64::from) ^ v.score() as u64 ^ v.motto().len() as u64;
    if let Some(p) = v.maybe_pos() {
        acc ^= p.y().to_bits() as u64;
    }
    acc ^= v.names().iter().take(4096).map(|s| s.len() as u64).sum::<u64>();
    for row in v.grid().iter() {
        acc ^= row.iter().map(|x| x.to_bits() as u64).fold(0, |a, x| a ^ x);
    }
    for path in v.paths().iter().take(4096) {
        acc ^= path.x().len() as u64;
    }
    // Maps: every entry, and a look-up of each key (binary search over
    // entries a hostile message may have out of order).
    let ages = v.ages();
    for (k, age) in ages.iter().take(4096) {
        acc ^= k.len() as u64 ^ age as u64 ^ ages.get(k).map_or(3, u64::from);
    }
    let leaves = v.leaves();
    for (k, leaf) in leaves.iter().take(4096) {
        acc ^= leaf.value() ^ leaves.get(&k).map_or(5, |l| l.label().len() as u64);
    }
    for (k, points) in v.groups().iter().take(4096) {
        acc ^= k.0 as u64 ^ points.len() as u64;
    }
    acc ^ walk(v.list())
}

/// A list's values, at most 256 nodes (a hostile list may loop).
fn walk<M: karmem::Mode>(mut node: Option<all::NodeView<'_, M>>) -> u64 {
    let mut acc = 0;
    for _ in 0..256 {
        let Some(n) = node else { break };
        acc ^= n.value() as u64;
        node = n.next();
    }
    acc
}

fuzz_target!(|data: &[u8]| {
    let buf = karmem::AlignedBuf::from_bytes(data);
    let Ok(r) = karmem::Reader::new(buf.as_slice()) else {
        return;
    };
    let _ = touch(all::RootView::root(&r));
    let mut value = all::Root::default();
    let _ = value.read_as_root(&r);
    let _ = value.read_as_root(&r);
    if let Ok(trusted) = all::Root::validate(&r) {
        // Trusted reads (no bounds checks, no UTF-8 checks) see exactly what
        // checked reads see, whichever way the trusted reader was made.
        let checked = touch(all::RootView::root(&r));
        assert_eq!(touch(trusted), checked);
        let reopened = unsafe { karmem::Reader::from_validated(buf.as_slice()) };
        assert_eq!(touch(all::RootView::root(&reopened)), checked);
        // A validated message always decodes.
        value.read_as_root(&r).expect("validated messages decode");
    }
});
