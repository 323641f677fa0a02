//! Hostile bunch tables through generated code (format.md §7.1): the
//! validator refuses an array whose entries' lengths do not add up to its
//! length, or that lists a variant twice; the decoder and the viewers stay
//! bounded and never panic.
use karmem::{AlignedBuf, Error, Reader, Writer};
use karmem_vectors_rust::vectors_unions_schema::{
    Circle, Label, Root, RootView, ShapeValue, Square,
};

fn sample() -> Vec<u8> {
    let shapes = vec![
        Some(ShapeValue::Circle(Circle { radius: 1.0 })),
        Some(ShapeValue::Square(Square { side: 2.0 })),
        Some(ShapeValue::Label(Label { text: "l".into() })),
        Some(ShapeValue::Circle(Circle { radius: 3.0 })),
    ];
    let root = Root {
        bovoa: shapes.clone(),
        bovos: shapes,
        ..Root::default()
    };
    let mut w = Writer::new(64);
    root.write_as_root(&mut w).unwrap();
    w.bytes().to_vec()
}

/// Offset (in the root table) of each bunch field, from the layout model
/// rather than written down.
fn bunch_fields() -> Vec<u32> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/vectors/unions/schema.km"
    );
    let src = std::fs::read_to_string(path).unwrap();
    let (s, l) = karmem_layout::load(path, &src).unwrap();
    let root = s.struct_by_name("Root").unwrap();
    let fields = &s.structs[root].fields;
    ["Bovoa", "Bovos"]
        .iter()
        .map(|name| {
            let i = fields.iter().position(|f| f.name == *name).unwrap();
            l.of_struct(root).fields[i].offset
        })
        .collect()
}

fn u32_at(b: &[u8], at: u32) -> u32 {
    u32::from_le_bytes(b[at as usize..at as usize + 4].try_into().unwrap())
}

fn put(b: &mut [u8], at: u32, x: u32) {
    b[at as usize..at as usize + 4].copy_from_slice(&x.to_le_bytes());
}

/// Validate `bytes`; then decode and read every view, which must not panic
/// and must stay within the message (values are bounded by its size).
fn validate_and_read(bytes: &[u8]) -> Result<(), Error> {
    let buf = AlignedBuf::from_bytes(bytes);
    let r = Reader::new(buf.as_slice()).unwrap();
    let valid = Root::validate(&r).map(|_| ());
    let mut got = Root::default();
    if got.read_as_root(&r).is_ok() {
        assert!(got.bovoa.len() + got.bovos.len() <= bytes.len());
    }
    let view = RootView::root(&r);
    let a = view.bovoa();
    let n = a.circle().len() + a.square().len() + a.label().len();
    let s = view.bovos();
    let m = s.circle().len() + s.square().len() + s.label().len();
    assert!(
        n + m <= bytes.len(),
        "{n} + {m} elements in {} bytes",
        bytes.len()
    );
    valid
}

#[test]
fn bunch_lengths_must_add_up() {
    let good = sample();
    assert_eq!(validate_and_read(&good), Ok(()));
    let table = Reader::new(AlignedBuf::from_bytes(&good).as_slice())
        .unwrap()
        .root()
        .offset;
    for field in bunch_fields() {
        let at = table + field;
        let (bunch, len) = (u32_at(&good, at), u32_at(&good, at + 4));
        assert_eq!(
            (len, u32_at(&good, bunch)),
            (4, 3),
            "not the sample's bunch table"
        );
        let entry_len = |e: u32| bunch + 16 * e + 8;
        let expect_malformed = |b: &[u8], what: &str| {
            assert_eq!(
                validate_and_read(b),
                Err(Error::MalformedArray { offset: bunch }),
                "field at {field}: {what}"
            );
        };

        // The array claims one element more (capacity too) than stored.
        let mut b = good.clone();
        put(&mut b, at + 4, 5);
        put(&mut b, at + 8, 5);
        expect_malformed(&b, "sum too small");

        // One element less.
        let mut b = good.clone();
        put(&mut b, at + 4, 3);
        expect_malformed(&b, "sum too large");

        // Entry lengths that add up to 4 only modulo 2^32. (The entry's own
        // check, length ≤ capacity, refuses it too; the library's
        // `bunch_lengths_must_add_up_to_the_array_length` tests the sum alone.)
        let mut b = good.clone();
        let third = u32_at(&b, entry_len(3));
        put(&mut b, entry_len(1), u32::MAX);
        put(&mut b, entry_len(2), 5u32.wrapping_sub(third));
        let wrapped = (1..=3).fold(0u32, |s, e| s.wrapping_add(u32_at(&b, entry_len(e))));
        assert_eq!(wrapped, 4);
        expect_malformed(&b, "sum overflowing u32");

        // An entry with a tag this schema does not know still counts.
        let mut b = good.clone();
        put(&mut b, bunch + 16 * 2, 99);
        assert_eq!(
            validate_and_read(&b),
            Ok(()),
            "field at {field}: unknown tag"
        );
        let unknown = u32_at(&b, entry_len(2));
        put(&mut b, at + 4, 4 - unknown);
        expect_malformed(&b, "unknown tag's elements not counted");
    }
}

#[test]
fn a_variant_with_two_entries_is_malformed() {
    let good = sample();
    let table = Reader::new(AlignedBuf::from_bytes(&good).as_slice())
        .unwrap()
        .root()
        .offset;
    for field in bunch_fields() {
        let bunch = u32_at(&good, table + field);
        let tag_at = |e: u32| bunch + 16 * e;
        assert_ne!(u32_at(&good, tag_at(1)), u32_at(&good, tag_at(3)));
        // Entry 3 claims entry 1's variant: which one a reader takes would
        // decide what the array holds.
        let mut b = good.clone();
        put(&mut b, tag_at(3), u32_at(&good, tag_at(1)));
        assert_eq!(
            validate_and_read(&b),
            Err(Error::MalformedArray { offset: bunch }),
            "field at {field}: a known tag twice"
        );
        // Tags this schema does not know are never looked at.
        put(&mut b, tag_at(1), 99);
        put(&mut b, tag_at(3), 99);
        assert_eq!(
            validate_and_read(&b),
            Ok(()),
            "field at {field}: an unknown tag twice"
        );
    }
}
