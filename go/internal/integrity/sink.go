package integrity

import (
	"encoding/binary"
	"math"
)

// sink collects the canonical form of the values a consumer reads (§3):
// fixed-size little-endian values, and lengths as u32 before what they
// count. The digest is the SHA-256 of these bytes, and `stream` answers
// them as they are, so that a disagreement between languages can be
// located by offset.
type sink struct {
	bytes []byte
}

func (s *sink) u8(x uint8) { s.bytes = append(s.bytes, x) }
func (s *sink) i8(x int8)  { s.u8(uint8(x)) }

func (s *sink) boolean(x bool) {
	if x {
		s.u8(1)
	} else {
		s.u8(0)
	}
}

func (s *sink) u16(x uint16) { s.bytes = binary.LittleEndian.AppendUint16(s.bytes, x) }
func (s *sink) i16(x int16)  { s.u16(uint16(x)) }
func (s *sink) u32(x uint32) { s.bytes = binary.LittleEndian.AppendUint32(s.bytes, x) }
func (s *sink) i32(x int32)  { s.u32(uint32(x)) }
func (s *sink) u64(x uint64) { s.bytes = binary.LittleEndian.AppendUint64(s.bytes, x) }
func (s *sink) i64(x int64)  { s.u64(uint64(x)) }

// Floats are fed as their IEEE bits, so -0.0 and NaN payloads would be
// told apart (the producer draws neither, but a consumer reads any).
func (s *sink) f32(x float32) { s.u32(math.Float32bits(x)) }
func (s *sink) f64(x float64) { s.u64(math.Float64bits(x)) }

// len feeds a length or a count. Lengths are u32 in a message, so an int
// read from one always fits.
func (s *sink) len(n int) { s.u32(uint32(n)) }

// text feeds UTF-8 text or a []u8: the length in bytes, then the bytes.
// It takes a string because the viewers' strings are the message's bytes
// as they are (no conversion, no validation beyond the validator's).
func (s *sink) text(x string) {
	s.len(len(x))
	s.bytes = append(s.bytes, x...)
}

// raw feeds a []u8 as text feeds a string.
func (s *sink) raw(x []byte) {
	s.len(len(x))
	s.bytes = append(s.bytes, x...)
}

// units feeds []u16 @string text: the number of code units, then each
// unit (not converted to UTF-8, so unpaired surrogates read as written).
func (s *sink) units(x []uint16) {
	s.len(len(x))
	for _, u := range x {
		s.u16(u)
	}
}
