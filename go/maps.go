package karmem

import (
	"cmp"
	"slices"
)

// Map views a map (map<K, V>; format.md §5.5): its entries, sorted by key,
// stride bytes apart; key and value read an entry's key and value from its
// position. Get is a binary search (O(log n) key reads) and allocates
// nothing. On a message that was not validated the entries may be out of
// order: a look-up may then miss, but every read stays inside the message.
type Map[K cmp.Ordered, V any] struct {
	a      ArrayRef
	stride uint32
	key    func(r *Reader, at uint32) K
	value  func(r *Reader, at uint32) V
}

// NewMap is called by generated code.
func NewMap[K cmp.Ordered, V any](a ArrayRef, stride uint32, key func(r *Reader, at uint32) K, value func(r *Reader, at uint32) V) Map[K, V] {
	return Map[K, V]{a: a, stride: stride, key: key, value: value}
}

// Len is the number of entries.
func (m Map[K, V]) Len() int { return int(m.a.Len) }

// Get returns the value of key, and whether the map has it.
func (m Map[K, V]) Get(r *Reader, key K) (V, bool) {
	return lookup(m.a, m.stride, r, key, m.key, m.value)
}

// At returns entry i in key order (zero values out of range).
func (m Map[K, V]) At(r *Reader, i int) (K, V) {
	return entry(m.a, m.stride, r, i, m.key, m.value)
}

// TrustedMap is Map over a validated message (Trusted).
type TrustedMap[K cmp.Ordered, V any] struct {
	a      ArrayRef
	stride uint32
	key    func(t Trusted, at uint32) K
	value  func(t Trusted, at uint32) V
}

// NewTrustedMap is called by generated code.
func NewTrustedMap[K cmp.Ordered, V any](a ArrayRef, stride uint32, key func(t Trusted, at uint32) K, value func(t Trusted, at uint32) V) TrustedMap[K, V] {
	return TrustedMap[K, V]{a: a, stride: stride, key: key, value: value}
}

// Len is the number of entries.
func (m TrustedMap[K, V]) Len() int { return int(m.a.Len) }

// Get returns the value of key, and whether the map has it.
func (m TrustedMap[K, V]) Get(t Trusted, key K) (V, bool) {
	return lookup(m.a, m.stride, t, key, m.key, m.value)
}

// At returns entry i in key order (zero values out of range).
func (m TrustedMap[K, V]) At(t Trusted, i int) (K, V) {
	return entry(m.a, m.stride, t, i, m.key, m.value)
}

// lookup is Get for either reader R: a binary search over the entries
// (nil functions: the zero map, which has none).
func lookup[R any, K cmp.Ordered, V any](a ArrayRef, stride uint32, r R, key K, keyAt func(R, uint32) K, valueAt func(R, uint32) V) (V, bool) {
	var zero V
	if keyAt == nil {
		return zero, false
	}
	lo, hi := uint32(0), a.Len
	for lo < hi {
		mid := lo + (hi-lo)/2
		at := a.Offset + mid*stride
		switch c := cmp.Compare(keyAt(r, at), key); {
		case c < 0:
			lo = mid + 1
		case c > 0:
			hi = mid
		default:
			return valueAt(r, at), true
		}
	}
	return zero, false
}

// entry is At for either reader R.
func entry[R any, K, V any](a ArrayRef, stride uint32, r R, i int, keyAt func(R, uint32) K, valueAt func(R, uint32) V) (K, V) {
	if keyAt == nil || i < 0 || i >= int(a.Len) {
		var k K
		var v V
		return k, v
	}
	at := a.Offset + uint32(i)*stride
	return keyAt(r, at), valueAt(r, at)
}

// SortedKeys returns the keys of m in order: a writer stores a map's
// entries sorted by key (format.md §5.5).
func SortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
