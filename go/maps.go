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
	if m.key != nil {
		if i, ok := search(m.a.Len, func(i uint32) int {
			return cmp.Compare(m.key(r, m.a.Offset+i*m.stride), key)
		}); ok {
			return m.value(r, m.a.Offset+i*m.stride), true
		}
	}
	var zero V
	return zero, false
}

// At returns entry i in key order (zero values out of range).
func (m Map[K, V]) At(r *Reader, i int) (K, V) {
	if m.key == nil || i < 0 || i >= int(m.a.Len) {
		var k K
		var v V
		return k, v
	}
	at := m.a.Offset + uint32(i)*m.stride
	return m.key(r, at), m.value(r, at)
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
	if m.key != nil {
		if i, ok := search(m.a.Len, func(i uint32) int {
			return cmp.Compare(m.key(t, m.a.Offset+i*m.stride), key)
		}); ok {
			return m.value(t, m.a.Offset+i*m.stride), true
		}
	}
	var zero V
	return zero, false
}

// At returns entry i in key order (zero values out of range).
func (m TrustedMap[K, V]) At(t Trusted, i int) (K, V) {
	if m.key == nil || i < 0 || i >= int(m.a.Len) {
		var k K
		var v V
		return k, v
	}
	at := m.a.Offset + uint32(i)*m.stride
	return m.key(t, at), m.value(t, at)
}

// search finds the entry whose key compares equal (compare(i) < 0: entry
// i's key is smaller than the one looked for).
func search(n uint32, compare func(i uint32) int) (uint32, bool) {
	lo, hi := uint32(0), n
	for lo < hi {
		mid := lo + (hi-lo)/2
		switch c := compare(mid); {
		case c < 0:
			lo = mid + 1
		case c > 0:
			hi = mid
		default:
			return mid, true
		}
	}
	return 0, false
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
