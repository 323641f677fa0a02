//! The write side of encode in isolation: every path of the game state
//! (12 MB of `Vec3`) written into a reused, 64-byte aligned buffer, one path
//! after another at 64-byte aligned offsets.
//!
//! * `memcpy`: the path's bytes as they are, what rkyv's encode does with
//!   a `Vec<Vec3>` (glibc picks `rep movsb` for copies of this size);
//! * `store loop` (x86-64): the same copy with 16-byte SSE2 loads and
//!   stores, the best a hand-written loop of ordinary stores does;
//! * `store loop, three streams` and `one column per pass`: SoA's store
//!   pattern without shuffles, and one store stream at a time;
//! * `SSE2 transposition alone` / `AVX2 transposition alone` (x86-64; AVX2
//!   when the CPU has it): the transposition loop without a writer;
//! * `karmem write_soa_words`: Karmem's SoA array writer, directory and
//!   transposition into three columns (RATIONALE R4.4).
//!
//! It explains the encode row of docs/benchmarks.md ("Rust: the game
//! state against rkyv and FlatBuffers"): the
//! transposition beats any loop of ordinary stores but not `memcpy`, which
//! it cannot use. Run: `cargo bench -p karmem-bench --bench write_paths`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use karmem_bench::{plain, MAX_PATH, MONSTERS};

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// Every path as native-endian words, three per point.
fn paths() -> Vec<Vec<u32>> {
    plain::generate(MONSTERS, MAX_PATH)
        .monsters
        .iter()
        .map(|m| {
            m.path
                .iter()
                .flat_map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()])
                .collect()
        })
        .collect()
}

fn as_bytes(words: &[u32]) -> &[u8] {
    // SAFETY: any initialised `u32` memory is valid as bytes; the length is
    // the words' byte length.
    unsafe { core::slice::from_raw_parts(words.as_ptr().cast(), 4 * words.len()) }
}

fn memcpy(paths: &[Vec<u32>], out: &mut [u8]) {
    let mut at = 0;
    for p in paths {
        let src = as_bytes(p);
        out[at..at + src.len()].copy_from_slice(src);
        at = (at + src.len()).next_multiple_of(64);
    }
}

#[cfg(target_arch = "x86_64")]
fn store_loop(paths: &[Vec<u32>], out: &mut [u8]) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
    let mut at = 0;
    for p in paths {
        let src = as_bytes(p);
        let dst = &mut out[at..at + src.len()];
        for (d, s) in dst.chunks_exact_mut(16).zip(src.chunks_exact(16)) {
            // SAFETY: both chunks are 16 bytes; SSE2 is part of x86-64.
            unsafe {
                let v = _mm_loadu_si128(s.as_ptr().cast::<__m128i>());
                _mm_storeu_si128(d.as_mut_ptr().cast::<__m128i>(), v);
            }
        }
        let tail = src.len() / 16 * 16;
        dst[tail..].copy_from_slice(&src[tail..]);
        at = (at + src.len()).next_multiple_of(64);
    }
}

/// The store loop writing three streams (the thirds of each path's block,
/// 64-byte aligned) in turn: SoA's access pattern without its shuffles.
#[cfg(target_arch = "x86_64")]
fn three_streams(paths: &[Vec<u32>], out: &mut [u8]) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
    let mut at = 0;
    for p in paths {
        let src = as_bytes(p);
        let third = (src.len() / 3).next_multiple_of(64);
        let blocks = src.len() / 48;
        let base = out[at..at + 3 * third].as_mut_ptr();
        for b in 0..blocks {
            // SAFETY: block `b` reads 48 bytes of `src` and writes 16 bytes
            // at `16 * b < third` of each third; SSE2 is part of x86-64.
            unsafe {
                let s = src.as_ptr().add(48 * b).cast::<__m128i>();
                for k in 0..3 {
                    let v = _mm_loadu_si128(s.add(k));
                    _mm_storeu_si128(base.add(k * third + 16 * b).cast::<__m128i>(), v);
                }
            }
        }
        at += 3 * third;
    }
}

/// Each path's SoA layout in `out`: three columns of `n` floats, each
/// padded to 64 bytes, one path after another. `write` gets the path's
/// `3 * n` floats and its three column pointers.
#[cfg(target_arch = "x86_64")]
fn each_path(
    paths: &[Vec<u32>],
    out: &mut [u8],
    mut write: impl FnMut(*const f32, [*mut f32; 3], usize),
) {
    let mut at = 0;
    for p in paths {
        let n = p.len() / 3;
        let col = (4 * n).next_multiple_of(64);
        let base = out[at..at + 3 * col].as_mut_ptr().cast::<f32>();
        // In bounds: the three columns of `col / 4 >= n` floats lie in the
        // slice just taken.
        let cols = [base, base.wrapping_add(col / 4), base.wrapping_add(col / 2)];
        write(p.as_ptr().cast(), cols, n);
        at += 3 * col;
    }
}

/// Column `K` of four points from their 12 floats at `q`: the shuffles of
/// karmem's SSE2 transposition (crates/karmem/src/transpose.rs).
///
/// # Safety
/// `q` points to 12 readable floats.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn sse2_column<const K: usize>(q: *const f32) -> core::arch::x86_64::__m128 {
    use core::arch::x86_64::*;
    // SAFETY: the caller's contract; SSE2 is part of x86-64.
    unsafe {
        let (a, b, c) = (
            _mm_loadu_ps(q),
            _mm_loadu_ps(q.add(4)),
            _mm_loadu_ps(q.add(8)),
        );
        match K {
            0 => _mm_shuffle_ps::<0b10_00_01_00>(
                _mm_shuffle_ps::<0b11_00_11_00>(a, a),
                _mm_shuffle_ps::<0b01_01_10_10>(b, c),
            ),
            1 => _mm_shuffle_ps::<0b10_00_10_00>(
                _mm_shuffle_ps::<0b00_00_01_01>(a, b),
                _mm_shuffle_ps::<0b10_10_11_11>(b, c),
            ),
            _ => _mm_shuffle_ps::<0b10_00_10_00>(
                _mm_shuffle_ps::<0b01_01_10_10>(a, b),
                _mm_shuffle_ps::<0b11_11_00_00>(c, c),
            ),
        }
    }
}

/// SoA columns written one after another: each path is read three times
/// (it is in L1 after the first pass) so that only one stream is written
/// at a time.
#[cfg(target_arch = "x86_64")]
fn column_passes(paths: &[Vec<u32>], out: &mut [u8]) {
    use core::arch::x86_64::_mm_storeu_ps;
    /// # Safety
    /// `src` holds `3 * n` floats, `dst` room for `n`.
    unsafe fn pass<const K: usize>(src: *const f32, dst: *mut f32, n: usize) {
        for b in 0..n / 4 {
            // SAFETY: block `b` reads floats 12b..12b+12 <= 3n and writes
            // 4b..4b+4 <= n.
            unsafe { _mm_storeu_ps(dst.add(4 * b), sse2_column::<K>(src.add(12 * b))) };
        }
    }
    each_path(paths, out, |src, [x, y, z], n| {
        // SAFETY: `each_path` gives 3n floats and columns of n.
        unsafe {
            pass::<0>(src, x, n);
            pass::<1>(src, y, n);
            pass::<2>(src, z, n);
        }
    });
}

/// The SSE2 transposition alone (no writer, no directory).
#[cfg(target_arch = "x86_64")]
fn sse2_transposition(paths: &[Vec<u32>], out: &mut [u8]) {
    use core::arch::x86_64::*;
    each_path(paths, out, |src, [x, y, z], n| {
        for b in 0..n / 4 {
            // SAFETY: block `b` reads floats 12b..12b+12 <= 3n and writes
            // 4b..4b+4 <= n of each column; SSE2 is part of x86-64.
            unsafe {
                let q = src.add(12 * b);
                _mm_prefetch::<_MM_HINT_T0>(q.wrapping_add(128).cast());
                // All three before any store, so the loads are shared.
                let v = (
                    sse2_column::<0>(q),
                    sse2_column::<1>(q),
                    sse2_column::<2>(q),
                );
                _mm_storeu_ps(x.add(4 * b), v.0);
                _mm_storeu_ps(y.add(4 * b), v.1);
                _mm_storeu_ps(z.add(4 * b), v.2);
            }
        }
    });
}

/// The transposition with AVX2 alone: eight points per step, two blends
/// and one lane permutation per column.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
unsafe fn avx2_transposition(paths: &[Vec<u32>], out: &mut [u8]) {
    use core::arch::x86_64::*;
    /// # Safety
    /// AVX2; `src` holds `3 * n` floats, each column room for `n`.
    #[target_feature(enable = "avx2")]
    unsafe fn path(src: *const f32, [x, y, z]: [*mut f32; 3], n: usize) {
        let ix = _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5);
        let iy = _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6);
        let iz = _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7);
        for b in 0..n / 8 {
            // SAFETY: block `b` reads floats 24b..24b+24 <= 3n and writes
            // 8b..8b+8 <= n of each column.
            unsafe {
                let q = src.add(24 * b);
                _mm_prefetch::<_MM_HINT_T0>(q.wrapping_add(128).cast());
                let a = _mm256_loadu_ps(q);
                let c = _mm256_loadu_ps(q.add(8));
                let e = _mm256_loadu_ps(q.add(16));
                let vx = _mm256_blend_ps::<0b0010_0100>(_mm256_blend_ps::<0b1011_0110>(a, c), e);
                let vy = _mm256_blend_ps::<0b0100_1001>(_mm256_blend_ps::<0b0110_1101>(a, c), e);
                let vz = _mm256_blend_ps::<0b1001_0010>(_mm256_blend_ps::<0b1101_1011>(a, c), e);
                _mm256_storeu_ps(x.add(8 * b), _mm256_permutevar8x32_ps(vx, ix));
                _mm256_storeu_ps(y.add(8 * b), _mm256_permutevar8x32_ps(vy, iy));
                _mm256_storeu_ps(z.add(8 * b), _mm256_permutevar8x32_ps(vz, iz));
            }
        }
    }
    // SAFETY: the caller's contract (AVX2) and `each_path`'s layout.
    each_path(paths, out, |src, cols, n| unsafe { path(src, cols, n) });
}

fn karmem_soa(paths: &[Vec<u32>], w: &mut karmem::Writer) {
    const COLUMNS: [(u32, u32); 3] = [(1, 4), (2, 4), (3, 4)];
    w.begin();
    let refs = w.alloc(12 * paths.len() as u32, 4).expect("fits");
    for (i, p) in paths.iter().enumerate() {
        w.write_soa_words(refs + 12 * i as u32, p, &COLUMNS)
            .expect("fits");
    }
}

fn benches(c: &mut Criterion) {
    let paths = paths();
    let bytes: usize = paths.iter().map(|p| 4 * p.len()).sum();
    let mut lines = vec![Line([0; 64]); (bytes + 3 * 64 * paths.len()).div_ceil(64)];
    // SAFETY: `Line` is plain bytes; the slice covers the whole vector.
    let out = unsafe {
        core::slice::from_raw_parts_mut(lines.as_mut_ptr().cast::<u8>(), 64 * lines.len())
    };
    let mut writer = karmem::Writer::new(2 * bytes);
    let mut g = c.benchmark_group("write_paths");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("memcpy", |b| b.iter(|| memcpy(&paths, out)));
    #[cfg(target_arch = "x86_64")]
    g.bench_function("store loop", |b| b.iter(|| store_loop(&paths, out)));
    #[cfg(target_arch = "x86_64")]
    g.bench_function("store loop, three streams", |b| {
        b.iter(|| three_streams(&paths, out))
    });
    #[cfg(target_arch = "x86_64")]
    g.bench_function("transposition, one column per pass", |b| {
        b.iter(|| column_passes(&paths, out))
    });
    #[cfg(target_arch = "x86_64")]
    g.bench_function("SSE2 transposition alone", |b| {
        b.iter(|| sse2_transposition(&paths, out))
    });
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        g.bench_function("AVX2 transposition alone", |b| {
            // SAFETY: AVX2 is available (detected above).
            b.iter(|| unsafe { avx2_transposition(&paths, out) })
        });
    }
    g.bench_function("karmem write_soa_words", |b| {
        b.iter(|| karmem_soa(&paths, &mut writer))
    });
    g.finish();
}

criterion_group! {
    name = write_paths;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(write_paths);
