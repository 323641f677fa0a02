//! Array-of-structs → SoA columns for elements made of `K` 4-byte numbers
//! (a `Vec3` of three `f32` is the common case): the hot loop of encoding
//! an SoA array (RATIONALE R4.4).
//!
//! The element-by-element loop the generator used to emit loads every field
//! on its own (12 scalar loads per 4 `Vec3`) and is bound by those loads;
//! here 4 elements are read as `K` whole 16-byte vectors and transposed in
//! registers with SSE2 shuffles (baseline on x86-64, so no runtime
//! detection). Other targets and other `K` use the portable loop.

/// Split `words` (elements of `K` native-endian 4-byte words each, one after
/// another) into `K` little-endian columns of `words.len() / K` values.
///
/// # Panics
/// If `words.len()` is not a multiple of `K` or a column is shorter than
/// `4 * words.len() / K` bytes (callers size them from the same count).
#[inline]
pub(crate) fn split_words<const K: usize>(words: &[u32], cols: [&mut [u8]; K]) {
    assert!(K > 0 && words.len().is_multiple_of(K));
    let count = words.len() / K;
    let cols = cols.map(|c| &mut c[..4 * count]);
    #[cfg(target_arch = "x86_64")]
    {
        if K == 2 || K == 3 || K == 4 {
            let mut cols = cols;
            let blocks = count / 4;
            // SAFETY: `x86` only reads `4 * blocks * K <= words.len()` words
            // and writes `16 * blocks <= 4 * count` bytes of each column.
            unsafe { x86::split(words, &mut cols, blocks) };
            scalar(&words[4 * blocks * K..], cols, 4 * blocks);
            return;
        }
    }
    scalar(words, cols, 0);
}

/// The portable loop, from element `from` on (`words` starts at `from`).
#[inline]
fn scalar<const K: usize>(words: &[u32], mut cols: [&mut [u8]; K], from: usize) {
    for (i, element) in words.chunks_exact(K).enumerate() {
        let o = 4 * (from + i);
        for (col, word) in cols.iter_mut().zip(element) {
            col[o..o + 4].copy_from_slice(&word.to_le_bytes());
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    /// The first `blocks` groups of 4 elements, transposed with shuffles.
    ///
    /// # Safety
    /// `words` holds at least `4 * blocks * K` words and every column at
    /// least `16 * blocks` bytes; `K` is 2, 3 or 4.
    #[inline]
    pub(super) unsafe fn split<const K: usize>(
        words: &[u32],
        cols: &mut [&mut [u8]; K],
        blocks: usize,
    ) {
        let src = words.as_ptr().cast::<f32>();
        let mut dst = [core::ptr::null_mut::<f32>(); K];
        for (d, col) in dst.iter_mut().zip(cols.iter_mut()) {
            *d = col.as_mut_ptr().cast::<f32>();
        }
        // SAFETY: the caller's contract.
        unsafe { split_with(src, &dst, blocks) };
    }

    /// # Safety
    /// `src` holds `4 * blocks * K` floats, each `dst[k]` room for
    /// `4 * blocks`.
    #[inline(always)]
    unsafe fn split_with<const K: usize>(src: *const f32, dst: &[*mut f32; K], blocks: usize) {
        // Plain stores: non-temporal ones (no read of the destination
        // line first) won in isolation but lost 30-40 % in the whole
        // encode, where directories and other arrays share the lines at
        // the columns' ends (RATIONALE R4.4).
        let store = |p: *mut f32, v: __m128| {
            // SAFETY: in bounds by the contract of `split_with`.
            unsafe { _mm_storeu_ps(p, v) }
        };
        for b in 0..blocks {
            // SAFETY: in bounds by the caller's contract (SSE2 is part of
            // x86-64; unaligned loads and stores).
            unsafe {
                let p = src.add(4 * K * b);
                // The source is one sequential stream; a hint some lines
                // ahead keeps the loads fed (measured: R4.4).
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(128).cast());
                let o = 4 * b;
                match K {
                    2 => {
                        let a = _mm_loadu_ps(p);
                        let c = _mm_loadu_ps(p.add(4));
                        store(dst[0].add(o), _mm_shuffle_ps::<0b10_00_10_00>(a, c));
                        store(dst[1].add(o), _mm_shuffle_ps::<0b11_01_11_01>(a, c));
                    }
                    3 => {
                        // a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3
                        let a = _mm_loadu_ps(p);
                        let b = _mm_loadu_ps(p.add(4));
                        let c = _mm_loadu_ps(p.add(8));
                        let x01 = _mm_shuffle_ps::<0b11_00_11_00>(a, a); // x0 x1 x0 x1
                        let x23 = _mm_shuffle_ps::<0b01_01_10_10>(b, c); // x2 x2 x3 x3
                        let x = _mm_shuffle_ps::<0b10_00_01_00>(x01, x23);
                        let y01 = _mm_shuffle_ps::<0b00_00_01_01>(a, b); // y0 y0 y1 y1
                        let y23 = _mm_shuffle_ps::<0b10_10_11_11>(b, c); // y2 y2 y3 y3
                        let y = _mm_shuffle_ps::<0b10_00_10_00>(y01, y23);
                        let z01 = _mm_shuffle_ps::<0b01_01_10_10>(a, b); // z0 z0 z1 z1
                        let z23 = _mm_shuffle_ps::<0b11_11_00_00>(c, c); // z2 z2 z3 z3
                        let z = _mm_shuffle_ps::<0b10_00_10_00>(z01, z23);
                        store(dst[0].add(o), x);
                        store(dst[1].add(o), y);
                        store(dst[2].add(o), z);
                    }
                    _ => {
                        let r0 = _mm_loadu_ps(p);
                        let r1 = _mm_loadu_ps(p.add(4));
                        let r2 = _mm_loadu_ps(p.add(8));
                        let r3 = _mm_loadu_ps(p.add(12));
                        let t0 = _mm_unpacklo_ps(r0, r1);
                        let t1 = _mm_unpacklo_ps(r2, r3);
                        let t2 = _mm_unpackhi_ps(r0, r1);
                        let t3 = _mm_unpackhi_ps(r2, r3);
                        store(dst[0].add(o), _mm_movelh_ps(t0, t1));
                        store(dst[1].add(o), _mm_movehl_ps(t1, t0));
                        store(dst[2].add(o), _mm_movelh_ps(t2, t3));
                        store(dst[3].add(o), _mm_movehl_ps(t3, t2));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Every `K` the generator uses, every tail length around the 4-element
    /// blocks: the vector path must give the bytes of the plain loop.
    fn check<const K: usize>() {
        for count in 0..19 {
            let words: Vec<u32> = (0..count * K as u32)
                .map(|w| w.wrapping_mul(0x9E37_79B9))
                .collect();
            let mut slow: [Vec<u8>; K] =
                core::array::from_fn(|_| vec![0xAA; 4 * count as usize + 3]);
            let mut fast = slow.clone();
            split_words(&words, fast.each_mut().map(|c| c.as_mut_slice()));
            scalar(&words, slow.each_mut().map(|c| c.as_mut_slice()), 0);
            assert_eq!(fast, slow, "K = {K}, count = {count}");
            for (k, col) in fast.iter().enumerate() {
                for i in 0..count as usize {
                    let want = words[i * K + k].to_le_bytes();
                    assert_eq!(col[4 * i..4 * i + 4], want, "K = {K}, element {i}");
                }
                assert_eq!(
                    col[4 * count as usize..],
                    [0xAA; 3],
                    "wrote past the column"
                );
            }
        }
    }

    #[test]
    fn vector_and_plain_loops_agree() {
        check::<1>();
        check::<2>();
        check::<3>();
        check::<4>();
        check::<5>();
    }

    #[test]
    #[should_panic]
    fn refuses_partial_elements() {
        let mut a = [0u8; 8];
        let mut b = [0u8; 8];
        split_words::<2>(&[1, 2, 3], [&mut a, &mut b]);
    }
}
