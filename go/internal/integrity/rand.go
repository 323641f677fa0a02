// Package integrity is the Go member of the cross-language integrity suite
// (docs/integrity.md): a producer (seed → message, §1–§2) and a consumer
// (message → the canonical bytes of every value it reads through the
// checked viewers, and their SHA-256, §3) for both versions of the schema
// in testdata/integrity, the round trip of a message of one's own version,
// and the line protocol of §4 (Answer, used by cmd/integrity).
//
// The two versions differ in a few fields only, so each has a small
// producer and walker (old.go, new.go) over the shared draws (rand.go),
// canonical writer (sink.go) and walkers of the types both versions share
// (walk.go).
package integrity

import "strings"

// rng is the suite's only source of randomness: SplitMix64 seeded with the
// seed, and the draws of §1, each consuming exactly one next(). Every
// language draws the same values in the same order, so producers of one
// version and seed write identical bytes.
type rng struct {
	state uint64
	// max is the largest length of the message's arrays and texts.
	max uint32
	// depth counts the array elements and map entries being drawn around
	// the current draw: inside one, lengths are at most nestedMax.
	depth int
}

// sizes picks max from the seed (seed mod 4): every fourth seed, from 0,
// is a message of empty arrays and texts.
var sizes = [4]uint32{0, 3, 16, 200}

// nestedMax bounds lengths inside an array element or a map entry, at any
// depth (§1, "Size"), so that nesting does not multiply sizes: an item of
// an array of items has at most 8 tags of at most 8 characters.
const nestedMax = 8

// noLimit is the limit of an array without a `[<N]` bound: only max
// applies.
const noLimit = ^uint32(0)

// alphabet is the characters of generated text, in §1's order: ASCII, then
// 2-, 2-, 3-, 3- and 4-byte UTF-8 (😀 is a surrogate pair in UTF-16), then
// a double quote (escaped in JSON).
var alphabet = [16]rune{
	'a', 'b', 'c', 'x', 'y', 'z', '0', '9', ' ', '-',
	'é', 'ß', '€', '中', '😀', '"',
}

func newRng(seed uint64) *rng {
	return &rng{state: seed, max: sizes[seed%4]}
}

// next is SplitMix64; Go's uint64 arithmetic wraps modulo 2^64, as §1
// requires.
func (g *rng) next() uint64 {
	g.state += 0x9E3779B97F4A7C15
	z := g.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (g *rng) below(n uint64) uint64 { return g.next() % n }

func (g *rng) boolean() bool { return g.next()&1 == 1 }

// The integer draws keep the low bits of next(); Go's conversions truncate
// and reinterpret as two's complement, as §1 requires.
func (g *rng) u8() uint8   { return uint8(g.next()) }
func (g *rng) u16() uint16 { return uint16(g.next()) }
func (g *rng) u32() uint32 { return uint32(g.next()) }
func (g *rng) u64() uint64 { return g.next() }
func (g *rng) i8() int8    { return int8(g.next()) }
func (g *rng) i16() int16  { return int16(g.next()) }
func (g *rng) i32() int32  { return int32(g.next()) }
func (g *rng) i64() int64  { return int64(g.next()) }

// f32 is a 24-bit signed integer over 256: the integer converts to float32
// exactly (24 bits fit its significand) and dividing by a power of two is
// exact, so every language computes the same bits.
func (g *rng) f32() float32 {
	return float32(int32(g.next()>>40)-8388608) / 256.0
}

// f64 is a 53-bit signed integer over 1024, exact in float64 for the same
// reasons.
func (g *rng) f64() float64 {
	return float64(int64(g.next()>>11)-4503599627370496) / 1024.0
}

// length draws the length of an array or text: at most max (nestedMax
// inside an element or entry), and at most limit for a `[<N]` array
// (noLimit otherwise).
func (g *rng) length(limit uint32) int {
	largest := g.max
	if g.depth > 0 {
		largest = min(largest, nestedMax)
	}
	return int(g.below(uint64(min(largest, limit)) + 1))
}

// text draws a length in characters, then each character. UTF-16 text
// ([]u16 @string) is drawn the same way: its Go object field is a string,
// which the writer encodes as UTF-16.
func (g *rng) text() string {
	n := g.length(noLimit)
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[g.below(uint64(len(alphabet)))])
	}
	return b.String()
}

// slice draws a length (within limit), then each element with one.
func slice[T any](g *rng, limit uint32, one func(*rng) T) []T {
	n := g.length(limit)
	s := make([]T, n)
	for i := range s {
		s[i] = nested(g, one)
	}
	return s
}

// nested draws one array element or map entry: the lengths drawn inside
// it are bounded by nestedMax.
func nested[T any](g *rng, one func(*rng) T) T {
	g.depth++
	x := one(g)
	g.depth--
	return x
}

// texts draws a []string: a length, then each text.
func texts(g *rng) []string { return slice(g, noLimit, (*rng).text) }

// floats draws a []f32 (a row of a [][]f32).
func floats(g *rng) []float32 { return slice(g, noLimit, (*rng).f32) }

// optional draws `?T`: whether the value is present, then, if it is, the
// value.
func optional[T any](g *rng, one func(*rng) T) *T {
	if !g.boolean() {
		return nil
	}
	x := one(g)
	return &x
}

// entry is a map entry as drawn: the key, then the value.
type entry[K comparable, V any] struct {
	k K
	v V
}

// drawMap draws map<K, V>: a length n, then n entries (each a key, then
// its value, nested). Entries go into the map in that order, so a key
// drawn again replaces the earlier value and the map may hold fewer than n
// entries.
func drawMap[K comparable, V any](g *rng, key func(*rng) K, value func(*rng) V) map[K]V {
	n := g.length(noLimit)
	m := make(map[K]V, n)
	for range n {
		e := nested(g, func(g *rng) entry[K, V] {
			k := key(g)
			return entry[K, V]{k, value(g)}
		})
		m[e.k] = e.v
	}
	return m
}
