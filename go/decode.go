package karmem

import (
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Helpers for generated object decoding (ReadAsRoot): they reuse what the
// destination already holds, so decoding into a reused object allocates
// only where the new value does not fit what is there.

// SetString stores the UTF-8 text b in *dst; b that is not valid UTF-8 is
// stored as "" (format.md §6). A Go string is immutable, so a changed value
// costs one allocation of its length; an unchanged value costs nothing.
func SetString(dst *string, b []byte) {
	if !utf8.Valid(b) {
		b = nil
	}
	if *dst != string(b) { // compared without a conversion
		*dst = string(b)
	}
}

// SetUTF16 stores UTF-16 units in *dst as UTF-8, allocating only when the
// text changed. Unpaired surrogates become U+FFFD.
func SetUTF16(dst *string, units []uint16) {
	if utf16Equal(*dst, units) {
		return
	}
	n := 0
	forEachRune(units, func(c rune) { n += utf8.RuneLen(c) })
	b := make([]byte, 0, n)
	forEachRune(units, func(c rune) { b = utf8.AppendRune(b, c) })
	*dst = unsafe.String(unsafe.SliceData(b), len(b))
}

func forEachRune(units []uint16, f func(rune)) {
	for i := 0; i < len(units); i++ {
		c := rune(units[i])
		if utf16.IsSurrogate(c) {
			if c < 0xDC00 && i+1 < len(units) {
				if d := utf16.DecodeRune(c, rune(units[i+1])); d != utf8.RuneError {
					f(d)
					i++
					continue
				}
			}
			c = utf8.RuneError
		}
		f(c)
	}
}

// utf16Equal reports whether s, read as runes, equals the UTF-16 units.
func utf16Equal(s string, units []uint16) bool {
	equal := true
	i := 0
	forEachRune(units, func(c rune) {
		if !equal {
			return
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 0 || r != c {
			equal = false
			return
		}
		i += size
	})
	return equal && i == len(s)
}

// Resize returns s with length n, keeping its elements (and what they own)
// for reuse; it allocates only when n exceeds the capacity.
func Resize[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s[:n]
	}
	return append(s[:cap(s)], make([]T, n-cap(s))...)
}

// AppendBools appends wire bool bytes (non-zero is true) to dst.
func AppendBools(dst []bool, b []uint8) []bool {
	for _, x := range b {
		dst = append(dst, x != 0)
	}
	return dst
}

// AlignedCopy returns an 8-byte aligned copy of a message, for buffers of
// unknown alignment (a reader refuses misaligned input rather than
// misreading it).
func AlignedCopy(b []byte) []byte {
	words := make([]uint64, (len(b)+7)/8)
	out := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:len(b):len(b)]
	copy(out, b)
	return out
}

// IsAligned reports whether b starts at an 8-byte aligned address, as a
// Reader requires.
func IsAligned(b []byte) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0
}
