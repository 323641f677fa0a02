//! Checking a whole SoA column of array references at once: the hot loop
//! of validating an SoA array (RATIONALE R4.5).
//!
//! A reference is three little-endian `u32` (offset, length, capacity,
//! format.md §5). It is well formed when `length <= capacity`, `length <=`
//! the limit of `[<N]T`, and, if the capacity is not zero, the data block
//! starts at a non-zero multiple of the element size's natural alignment
//! (`natural_align`: 1 for SoA data, whose block is checked on its own)
//! and `offset + capacity × element
//! size` lies inside the message. The validator charges its budget
//! `max(capacity × element size, 1)` per reference.
//!
//! Element by element, with a branch per rule, this cost about 30
//! instructions per reference; here every rule is a flag folded into one
//! result for the whole column, and on x86-64 four references are checked
//! per step with SSE2 (baseline there, so no runtime detection) when the
//! element size is zero (SoA data: the block is a directory, checked on its
//! own) or a power of two. Other element sizes and targets use the
//! portable loop over `array_ok`, the rule the element-wise check applies.

use crate::reader::array_ok;
use crate::ArrayRef;

/// What a column of references is checked against.
#[derive(Clone, Copy)]
pub(crate) struct Rules {
    /// Bytes per element of the referenced arrays (0: an SoA array, whose
    /// block is a directory checked separately).
    pub elem_size: u32,
    /// Largest allowed length (`u32::MAX` when the array is not limited).
    pub max_len: u32,
    /// Message size in bytes.
    pub size: u32,
}

/// `(every reference is well formed, budget cost of them all)` for the
/// references in `refs` (three words each). The cost is meaningful only
/// when every reference is well formed.
#[inline(always)]
pub(crate) fn check(refs: &[u32], rules: Rules) -> (bool, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        if rules.elem_size == 0 || rules.elem_size.is_power_of_two() {
            let blocks = refs.len() / 12;
            // Fewer than four references (a small message): the vector
            // set-up and reduction would cost more than the loop.
            if blocks == 0 {
                return scalar(refs, rules);
            }
            // SAFETY: reads `12 * blocks <= refs.len()` words.
            let (ok, cost) = unsafe { x86::check(refs, blocks, rules) };
            let (ok_tail, cost_tail) = scalar(&refs[12 * blocks..], rules);
            return (ok & ok_tail, cost.wrapping_add(cost_tail));
        }
    }
    scalar(refs, rules)
}

/// The portable loop: [`array_ok`] (the element-wise rule) per reference.
#[inline(always)]
fn scalar(refs: &[u32], rules: Rules) -> (bool, u64) {
    let mut ok = true;
    // A well-formed reference costs at most the message size, so the sum
    // of at most `size / 12` of them cannot overflow; bad references may
    // wrap it, and then the cost is not used.
    let mut cost = 0u64;
    for r in refs.chunks_exact(3) {
        let a = ArrayRef {
            offset: u32::from_le(r[0]),
            len: u32::from_le(r[1]),
            cap: u32::from_le(r[2]),
        };
        ok &= array_ok(a, rules.elem_size, Some(rules.max_len), rules.size as usize);
        cost = cost.wrapping_add((a.cap as u64 * rules.elem_size as u64).max(1));
    }
    (ok, cost)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use crate::natural_align;

    use super::Rules;

    /// `a > b` for unsigned 32-bit lanes (SSE2 compares signed lanes: flip
    /// the sign bits of both).
    #[inline(always)]
    fn gt_u32(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86-64; register operations only.
        unsafe {
            let sign = _mm_set1_epi32(i32::MIN);
            _mm_cmpgt_epi32(_mm_xor_si128(a, sign), _mm_xor_si128(b, sign))
        }
    }

    /// Four 32-bit lanes picked from `x` (lanes 0, 1) and `y` (lanes 2, 3).
    macro_rules! pick {
        ($x:expr, $y:expr, $i0:literal, $i1:literal, $j0:literal, $j1:literal) => {
            _mm_castps_si128(_mm_shuffle_ps::<
                { $i0 | ($i1 << 2) | ($j0 << 4) | ($j1 << 6) },
            >(_mm_castsi128_ps($x), _mm_castsi128_ps($y)))
        };
    }

    /// The first `blocks` groups of four references.
    ///
    /// # Safety
    /// `refs` holds at least `12 * blocks` words; `rules.elem_size` is 0
    /// or a power of two.
    #[inline(always)]
    pub(super) unsafe fn check(refs: &[u32], blocks: usize, rules: Rules) -> (bool, u64) {
        // SAFETY: SSE2 is part of x86-64; the loads stay inside `refs` by
        // the caller's contract.
        unsafe {
            let zero = _mm_setzero_si128();
            let ones = _mm_set1_epi32(-1);
            let misalign = _mm_set1_epi32(natural_align(rules.elem_size) as i32 - 1);
            let size = _mm_set1_epi32(rules.size as i32);
            let max_len = _mm_set1_epi32(rules.max_len as i32);
            // Capacities count towards the block's end only for sized elements.
            let sized = if rules.elem_size == 0 { zero } else { ones };
            let shift = _mm_cvtsi32_si128(rules.elem_size.max(1).trailing_zeros() as i32);
            let mut bad = zero;
            let mut cost = zero; // two u64 lanes
            let p = refs.as_ptr().cast::<__m128i>();
            for k in 0..blocks {
                let a = _mm_loadu_si128(p.add(3 * k)); // o0 n0 c0 o1
                let b = _mm_loadu_si128(p.add(3 * k + 1)); // n1 c1 o2 n2
                let c = _mm_loadu_si128(p.add(3 * k + 2)); // c2 o3 n3 c3
                let t = pick!(b, c, 2, 2, 1, 1); // o2 o2 o3 o3
                let offset = pick!(a, t, 0, 3, 0, 2);
                let t = pick!(b, c, 0, 3, 2, 2); // n1 n2 n3 n3
                let u = pick!(a, t, 1, 1, 0, 1); // n0 n0 n1 n2
                let len = pick!(u, t, 0, 2, 1, 2);
                let t = pick!(a, b, 2, 2, 1, 1); // c0 c0 c1 c1
                let cap = pick!(t, c, 0, 2, 0, 3);

                let bad_len = _mm_or_si128(gt_u32(len, cap), gt_u32(len, max_len));
                // offset ≠ 0, naturally aligned, ≤ size, and capacity ≤
                // (size − offset) / element size: the block's end, without a
                // 64-bit product.
                let aligned = _mm_cmpeq_epi32(_mm_and_si128(offset, misalign), zero);
                let bad_offset = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi32(offset, zero), _mm_xor_si128(aligned, ones)),
                    gt_u32(offset, size),
                );
                let room = _mm_srl_epi32(_mm_sub_epi32(size, offset), shift);
                let counted = _mm_and_si128(cap, sized);
                let bad_end = gt_u32(counted, room);
                let empty = _mm_cmpeq_epi32(cap, zero);
                let bad_block = _mm_andnot_si128(empty, _mm_or_si128(bad_offset, bad_end));
                bad = _mm_or_si128(bad, _mm_or_si128(bad_len, bad_block));

                // max(capacity × size, 1), widened to 64 bits and summed (lanes
                // of well-formed references are ≤ size, so the shift does not
                // overflow for them).
                let bytes = _mm_sll_epi32(counted, shift);
                let charged = _mm_sub_epi32(bytes, _mm_cmpeq_epi32(bytes, zero));
                cost = _mm_add_epi64(cost, _mm_unpacklo_epi32(charged, zero));
                cost = _mm_add_epi64(cost, _mm_unpackhi_epi32(charged, zero));
            }
            let mut lanes = [0u64; 2];
            _mm_storeu_si128(lanes.as_mut_ptr().cast(), cost);
            (_mm_movemask_epi8(bad) == 0, lanes[0].wrapping_add(lanes[1]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use proptest::prelude::Rng as _;
    use proptest::test_runner::{RngAlgorithm, TestRng};

    /// proptest's generator, seeded, so runs repeat.
    struct Rng(TestRng);
    impl Rng {
        fn next(&mut self) -> u32 {
            self.0.next_u32()
        }
        fn below(&mut self, n: u32) -> u32 {
            if n == 0 {
                0
            } else {
                self.next() % n
            }
        }
        /// A value at or next to a boundary, or anything.
        fn near(&mut self, edge: u32) -> u32 {
            match self.next() % 6 {
                0 => 0,
                1 => self.next(),
                2 => u32::MAX - self.below(3),
                _ => edge.wrapping_add(self.below(3)).wrapping_sub(1),
            }
        }
    }

    /// A well-formed reference for `rules`.
    fn valid(rng: &mut Rng, rules: Rules) -> [u32; 3] {
        if rng.next().is_multiple_of(5) {
            return [0, 0, 0];
        }
        let align = crate::natural_align(rules.elem_size);
        let offset = align * (1 + rng.below(rules.size / align));
        if offset > rules.size {
            return [0, 0, 0];
        }
        let room = (rules.size - offset) / rules.elem_size.max(1);
        let cap = rng.below(room.min(1 << 16) + 1);
        let len = rng.below(cap.min(rules.max_len) + 1);
        [offset, len, cap]
    }

    #[test]
    fn vector_and_portable_loops_agree() {
        let mut rng = Rng(TestRng::deterministic_rng(RngAlgorithm::ChaCha));
        let mut accepted = 0;
        for round in 0..20_000 {
            let elem_size = [0, 1, 2, 4, 8, 12, 16, 24, 1 << 20][round % 9];
            let size = (rng.next() % 4096) * 8 + 128;
            let max_len = if round % 3 == 0 {
                u32::MAX
            } else {
                rng.next() % 300
            };
            let rules = Rules {
                elem_size,
                max_len,
                size,
            };
            let count = 1 + rng.below(12) as usize;
            let mut refs: Vec<u32> = (0..count).flat_map(|_| valid(&mut rng, rules)).collect();
            // Half the columns get one field pushed to or past a boundary.
            if rng.next().is_multiple_of(2) {
                let at = rng.below(refs.len() as u32) as usize;
                let edge = match at % 3 {
                    0 => [8, size, size - 8][rng.below(3) as usize],
                    1 => refs[at + 1].min(max_len),
                    _ => (size - refs[at - 2].min(size)) / elem_size.max(1),
                };
                refs[at] = rng.near(edge);
            }
            let want = scalar(&refs, rules);
            let got = check(&refs, rules);
            assert_eq!(got.0, want.0, "{refs:?} {elem_size} {size} {max_len}");
            if want.0 {
                assert_eq!(got.1, want.1, "{refs:?} {elem_size} {size}");
                accepted += 1;
            }
        }
        // Both answers must be common, or the comparison proves little.
        assert!((3_000..17_000).contains(&accepted), "{accepted} accepted");
    }

    #[test]
    fn boundaries() {
        let rules = Rules {
            elem_size: 4,
            max_len: 10,
            size: 1024,
        };
        // Each case repeated to fill the vector path, then on its own for
        // the scalar path.
        let cases: [([u32; 3], bool); 10] = [
            ([64, 2, 3], true),
            ([0, 0, 0], true),
            ([12345, 0, 0], true), // no block: the offset is not looked at
            ([0, 1, 1], false),
            ([90, 1, 1], false),          // not a multiple of 4
            ([92, 1, 1], true),           // a multiple of 4, not of 8
            ([1024 - 64, 10, 16], true),  // ends exactly at the message end
            ([1024 - 64, 10, 17], false), // one element past it
            ([64, 11, 11], false),        // over the limit
            ([64, 3, 2], false),          // length over capacity
        ];
        for (r, ok) in cases {
            for n in [1usize, 4, 5, 9] {
                let refs: Vec<u32> = (0..n).flat_map(|_| r).collect();
                assert_eq!(check(&refs, rules).0, ok, "{r:?} × {n}");
            }
        }
        // A capacity whose product with the element size wraps 32 bits.
        let huge = [64, 0, 0x4000_0001];
        assert!(!check(&[huge, huge, huge, huge].concat(), rules).0);
    }
}
