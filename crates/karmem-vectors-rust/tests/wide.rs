//! SoA elements wider than one generated copy loop
//! (`testdata/schemas/wide.km`): every column survives a round trip, in
//! both the one-pass rebuild of plain elements and the grouped copy, and
//! the views read what was written.
use karmem_vectors_rust::schemas_wide::{Color, Plain, Rich, Root, RootView};

fn plain(i: u32) -> Plain {
    Plain {
        f0: i,
        f1: i + 1,
        f2: i + 2,
        f3: i + 3,
        f4: i + 4,
        f5: i + 5,
        f6: i + 6,
        f7: i + 7,
        f8: i as u16 + 8,
        f9: i as u16 + 9,
        f10: i as u16 + 10,
        f11: i as u16 + 11,
        f12: i as u8 + 12,
        f13: -(i as i64) - 13,
        f14: i as f64 + 0.25,
        f15: i as f32 + 0.5,
        flag: i % 2 == 1,
        tint: [Color::RED, Color::GREEN, Color::BLUE][i as usize % 3],
        last: (i as i8).wrapping_neg(),
    }
}

fn rich(i: u32) -> Rich {
    let mut r = Rich {
        g0: i,
        g1: i ^ 1,
        g2: i ^ 2,
        g3: i ^ 3,
        g4: i ^ 4,
        g5: i ^ 5,
        g6: i ^ 6,
        g7: i ^ 7,
        g8: i ^ 8,
        g9: i ^ 9,
        g10: i ^ 10,
        g11: i ^ 11,
        g12: i ^ 12,
        g13: i ^ 13,
        g14: i ^ 14,
        name: format!("item {i}"),
        ..Default::default()
    };
    let d = &mut r.deep;
    (d.a0, d.b0) = (i * 100, i as f32);
    let d = &mut d.next;
    (d.a1, d.b1) = (i * 101, i as f32 + 1.0);
    let d = &mut d.next;
    (d.a2, d.b2) = (i * 102, i as f32 + 2.0);
    let d = &mut d.next;
    (d.a3, d.b3) = (i * 103, i as f32 + 3.0);
    let d = &mut d.next;
    (d.a4, d.b4) = (i * 104, i as f32 + 4.0);
    let d = &mut d.next;
    (d.a5, d.b5) = (i * 105, i as f32 + 5.0);
    let d = &mut d.next;
    (d.a6, d.b6) = (i * 106, i as f32 + 6.0);
    let d = &mut d.next;
    (d.a7, d.b7) = (i * 107, i as f32 + 7.0);
    r
}

#[test]
fn wide_elements_round_trip() {
    let value = Root {
        plains: (0..37).map(plain).collect(),
        riches: (0..29).map(rich).collect(),
    };
    let bytes = value.to_bytes().unwrap();
    let buf = karmem::AlignedBuf::from_bytes(&bytes);
    let r = karmem::Reader::new(buf.as_slice()).unwrap();
    let view = Root::validate(&r).unwrap();

    // Decoding into a fresh value and into one holding other data.
    assert_eq!(Root::from_bytes(&bytes).unwrap(), value);
    let mut reused = Root {
        plains: (100..140).map(plain).collect(),
        riches: (100..101).map(rich).collect(),
    };
    reused.read_as_root(&r).unwrap();
    assert_eq!(reused, value);

    // Columns through the view, first, middle and last of each element.
    check_view(view, &value);
    check_view(RootView::root(&r), &value);
}

fn check_view<M: karmem::Mode>(view: RootView<'_, M>, value: &Root) {
    let plains = view.plains();
    let f0: Vec<u32> = value.plains.iter().map(|p| p.f0).collect();
    assert_eq!(plains.f0(), &f0[..]);
    let last: Vec<i8> = value.plains.iter().map(|p| p.last).collect();
    assert_eq!(plains.last(), &last[..]);
    let riches = view.riches();
    let deepest: Vec<f32> = value
        .riches
        .iter()
        .map(|r| r.deep.next.next.next.next.next.next.next.b7)
        .collect();
    assert_eq!(
        riches.deep_next_next_next_next_next_next_next_b7(),
        &deepest[..]
    );
    let g14: Vec<u32> = value.riches.iter().map(|r| r.g14).collect();
    assert_eq!(riches.g14(), &g14[..]);
}
