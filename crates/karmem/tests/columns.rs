//! The column-wise checks generated validators use for SoA arrays
//! (`array_column`, `soa_column`, `utf8_column`) must accept exactly the
//! messages the element-wise checks (`array`, `soa`, `utf8`) accept, and
//! charge the same budget: a differential test over well-formed columns and
//! randomly corrupted copies of them.
use karmem::{AlignedBuf, Error, Reader, Validator, Writer};
use proptest::prelude::Rng as _;
use proptest::test_runner::{RngAlgorithm, TestRng};

const WANTED: [(u32, u32); 3] = [(0xA1, 4), (0xB2, 4), (0xC3, 2)];
const LIMIT: u32 = 40;

/// The generator of these tests: proptest's, seeded, so runs repeat.
struct Rng(TestRng);
impl Rng {
    fn new() -> Self {
        Rng(TestRng::deterministic_rng(RngAlgorithm::ChaCha))
    }
    fn next(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n.max(1)
    }
}

/// A message with two SoA columns of `count` references each, as a
/// generated writer lays them out: one of SoA arrays (directories of
/// `WANTED`; some elements with an older or a reordered directory) and one
/// of text (ASCII or not). Returns the message and both columns.
/// An SoA array of `len` elements with these directory entries, its
/// columns left zero.
fn write_soa<const N: usize>(w: &mut Writer, at: u32, len: usize, columns: &[(u32, u32); N]) {
    w.write_soa(at, len, columns, &[false; N], &mut [0; N])
        .unwrap();
}

fn message(rng: &mut Rng, count: u32) -> (AlignedBuf, u32, u32) {
    let mut w = Writer::new(64);
    w.begin();
    let t = w.alloc(8, 8).unwrap();
    w.put(t, 1u32);
    let arrays = w.alloc(12 * count, 64).unwrap();
    let texts = w.alloc(12 * count, 64).unwrap();
    let words = [
        "",
        "orc",
        "twenty ascii letters",
        "ünïcödé",
        "日本語のテキスト",
        "x",
    ];
    for i in 0..count {
        let len = rng.below(LIMIT + 1) as usize;
        let at = arrays + 12 * i;
        match rng.below(6) {
            // An older writer.
            0 => write_soa(&mut w, at, len, &[WANTED[0], WANTED[2]]),
            // A newer writer, its columns reordered.
            1 => write_soa(
                &mut w,
                at,
                len,
                &[WANTED[2], (0xEE, 8), WANTED[0], WANTED[1]],
            ),
            _ => write_soa(&mut w, at, len, &WANTED),
        }
        let text = words[rng.below(words.len() as u32) as usize].as_bytes();
        let at = w.alloc_array(text.len(), 1).unwrap();
        w.put_bytes(at, text);
        let n = text.len() as u32;
        w.put_array_ref(texts + 12 * i, at, n, n);
    }
    (AlignedBuf::from_bytes(w.finish().unwrap()), arrays, texts)
}

/// Outcome and remaining budget of the column-wise checks.
fn by_column(r: Reader<'_>, arrays: u32, texts: u32, count: u32) -> (Result<(), Error>, u64) {
    let mut v = Validator::new(r);
    let result = (|| {
        v.array_column(arrays, count, 0, Some(LIMIT))?;
        v.soa_column(arrays, count, &WANTED)?;
        v.array_column(texts, count, 1, None)?;
        v.utf8_column(texts, count)
    })();
    (result, v.remaining_budget())
}

/// The same checks element by element, in the element-wise validator's
/// order.
fn by_element(r: Reader<'_>, arrays: u32, texts: u32, count: u32) -> (Result<(), Error>, u64) {
    let mut v = Validator::new(r);
    let result = (|| {
        for i in 0..count {
            let a = v.array(arrays + 12 * i, 0, Some(LIMIT))?;
            v.soa(a, &WANTED)?;
        }
        for i in 0..count {
            let a = v.array(texts + 12 * i, 1, None)?;
            v.utf8(a.offset, a.len)?;
        }
        Ok(())
    })();
    (result, v.remaining_budget())
}

#[test]
fn column_and_element_checks_agree() {
    let mut rng = Rng::new();
    let (mut accepted, mut refused, mut over_budget) = (0, 0, 0);
    for round in 0..3_000 {
        let count = 1 + rng.below(9);
        let (mut m, arrays, texts) = message(&mut rng, count);
        let size = m.as_slice().len() as u32;
        // Corrupt a few words: mostly inside the reference columns and the
        // directories they point to, sometimes anywhere.
        let edits = if round % 5 == 0 { 0 } else { 1 + rng.below(3) };
        for _ in 0..edits {
            let word = |m: &AlignedBuf, at: u32| {
                u32::from_le_bytes(m.as_slice()[at as usize..][..4].try_into().unwrap())
            };
            let dir = word(&m, arrays + 12 * rng.below(count));
            let text = word(&m, texts + 12 * rng.below(count));
            let at = match rng.below(5) {
                0 => arrays + 4 * rng.below(3 * count),
                1 => texts + 4 * rng.below(3 * count),
                // A directory's count, hashes or column offsets.
                2 if dir >= 64 && dir < size - 128 => dir + 64 * rng.below(2) + 4 * rng.below(4),
                // Inside a text.
                3 if text >= 64 && text < size - 8 => text + 4 * rng.below(2),
                _ => 8 + 4 * rng.below((size - 8) / 4),
            } as usize;
            let value = match rng.below(7) {
                0 => 0,
                1 => rng.next(),
                2 => size.wrapping_sub(64 * rng.below(3)),
                3 => 0x8061_6161 >> (8 * rng.below(4)), // a non-ASCII byte anywhere
                4 => LIMIT + rng.below(2),
                5 => WANTED[rng.below(3) as usize].0, // a duplicate directory entry
                _ => {
                    u32::from_le_bytes(m.as_slice()[at..at + 4].try_into().unwrap())
                        ^ (1 << rng.below(32))
                }
            };
            m.as_mut_slice()[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
        // Tight budgets and entry limits too: both must fail alike.
        let limits = karmem::Limits {
            traversal_budget_factor: [1, 2, 8][rng.below(3) as usize],
            max_directory_entries: [2, 3, 4, 1024][rng.below(4) as usize],
            ..Default::default()
        };
        let r = Reader::with_limits(m.as_slice(), limits).unwrap();
        let column = by_column(r, arrays, texts, count);
        let element = by_element(r, arrays, texts, count);
        assert_eq!(
            column.0.is_ok(),
            element.0.is_ok(),
            "round {round}: {column:?} vs {element:?}"
        );
        if column.0.is_ok() {
            assert_eq!(column.1, element.1, "round {round}: budget charged");
            accepted += 1;
        } else {
            refused += 1;
            over_budget += (element.0 == Err(Error::BudgetExceeded)) as u32;
        }
    }
    // Both outcomes must be common, or the comparison proves little.
    // (Budgets rarely bind on these small messages; that charges agree is
    // checked on every accepted one, so both run out alike.)
    assert!(
        accepted > 500 && refused > 500,
        "{accepted} accepted, {refused} refused ({over_budget} over budget)"
    );
}

#[test]
fn a_bad_reference_is_named_like_the_element_wise_check_names_it() {
    let mut rng = Rng::new();
    let (mut m, arrays, _) = message(&mut rng, 6);
    // Element 3's length over the limit.
    let at = (arrays + 12 * 3 + 4) as usize;
    m.as_mut_slice()[at..at + 4].copy_from_slice(&(LIMIT + 1).to_le_bytes());
    m.as_mut_slice()[at + 4..at + 8].copy_from_slice(&(LIMIT + 1).to_le_bytes());
    let r = Reader::new(m.as_slice()).unwrap();
    let mut v = Validator::new(r);
    assert_eq!(
        v.array_column(arrays, 6, 0, Some(LIMIT)),
        Err(Error::LimitExceeded {
            offset: arrays + 36,
            len: LIMIT + 1,
            limit: LIMIT
        })
    );
}
