//! The suite's only source of randomness (docs/integrity.md §1): SplitMix64
//! and the draws every language makes from it, one `next()` each.

pub struct Rng {
    state: u64,
    /// The largest length of any array or text of this message.
    max: u32,
    /// How many array elements or map entries are being drawn around the
    /// current draw: inside one, lengths are at most 8 (§1, "Size").
    depth: u32,
}

/// The characters of generated text: ASCII, then 2-, 2-, 3-, 3- and 4-byte
/// UTF-8 (a surrogate pair in UTF-16), then a double quote.
const ALPHABET: [char; 16] = [
    'a', 'b', 'c', 'x', 'y', 'z', '0', '9', ' ', '-', 'é', 'ß', '€', '中', '😀', '"',
];

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            max: [0, 3, 16, 200][(seed % 4) as usize],
            depth: 0,
        }
    }

    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn bool(&mut self) -> bool {
        self.next() & 1 == 1
    }

    pub fn u8(&mut self) -> u8 {
        self.next() as u8
    }
    pub fn u16(&mut self) -> u16 {
        self.next() as u16
    }
    pub fn u32(&mut self) -> u32 {
        self.next() as u32
    }
    pub fn u64(&mut self) -> u64 {
        self.next()
    }
    pub fn i8(&mut self) -> i8 {
        self.next() as i8
    }
    pub fn i16(&mut self) -> i16 {
        self.next() as i16
    }
    pub fn i32(&mut self) -> i32 {
        self.next() as i32
    }
    pub fn i64(&mut self) -> i64 {
        self.next() as i64
    }

    /// A 24-bit integer over 256: exact in f32, of either sign.
    pub fn f32(&mut self) -> f32 {
        ((self.next() >> 40) as i32 - 8_388_608) as f32 / 256.0
    }

    /// A 53-bit integer over 1024: exact in f64, of either sign.
    pub fn f64(&mut self) -> f64 {
        ((self.next() >> 11) as i64 - 4_503_599_627_370_496) as f64 / 1024.0
    }

    /// The length of an array or text: at most the message's size, and at
    /// most `limit` for a `[<N]` array.
    pub fn len(&mut self, limit: Option<u32>) -> usize {
        let largest = if self.depth > 0 {
            self.max.min(8)
        } else {
            self.max
        };
        let max = limit.map_or(largest, |l| l.min(largest));
        self.below(u64::from(max) + 1) as usize
    }

    pub fn text(&mut self, limit: Option<u32>) -> String {
        let n = self.len(limit);
        (0..n).map(|_| ALPHABET[self.below(16) as usize]).collect()
    }

    /// A length, then that many values.
    pub fn vec<T>(&mut self, limit: Option<u32>, mut one: impl FnMut(&mut Rng) -> T) -> Vec<T> {
        let n = self.len(limit);
        (0..n).map(|_| self.nested(&mut one)).collect()
    }

    /// Draws one array element or map entry.
    pub fn nested<T>(&mut self, one: impl FnOnce(&mut Rng) -> T) -> T {
        self.depth += 1;
        let x = one(self);
        self.depth -= 1;
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_outputs() {
        // The published first outputs of SplitMix64 seeded with 0.
        let mut r = Rng::new(0);
        assert_eq!(r.next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn floats_are_exact_and_of_both_signs() {
        let mut r = Rng::new(7);
        let xs: Vec<f32> = (0..64).map(|_| r.f32()).collect();
        assert!(xs.iter().any(|x| *x < 0.0) && xs.iter().any(|x| *x > 0.0));
        assert!(xs
            .iter()
            .all(|x| x.is_finite() && (x * 256.0).fract() == 0.0));
        let ys: Vec<f64> = (0..64).map(|_| r.f64()).collect();
        assert!(ys
            .iter()
            .all(|y| y.is_finite() && (y * 1024.0).fract() == 0.0));
    }

    #[test]
    fn sizes_follow_the_seed() {
        assert_eq!(Rng::new(4).len(None), 0);
        let mut r = Rng::new(3);
        assert!((0..100).all(|_| r.len(Some(8)) <= 8));
        assert!((0..100).any(|_| r.len(None) > 16));
    }
}
