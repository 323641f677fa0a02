package karmem

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is. Errors that point into a message are
// *Error values wrapping one of these, with the offset of the problem.
var (
	ErrTruncated          = errors.New("karmem: message truncated")
	ErrMisaligned         = errors.New("karmem: buffer is not aligned (a message needs 8 bytes, copy it with karmem.AlignedCopy; a fixed writer's buffer too)")
	ErrBadMagic           = errors.New("karmem: not a Karmem message (bad magic)")
	ErrUnsupportedVersion = errors.New("karmem: unsupported format version")
	ErrBadFlags           = errors.New("karmem: reserved header flags set")
	ErrBadSize            = errors.New("karmem: invalid message size in header")
	ErrMalformedTable     = errors.New("karmem: malformed table")
	ErrMalformedArray     = errors.New("karmem: malformed array")
	ErrLimitExceeded      = errors.New("karmem: limited array over its limit")
	ErrInvalidText        = errors.New("karmem: invalid text")
	ErrInvalidBool        = errors.New("karmem: invalid bool")
	ErrInvalidUnion       = errors.New("karmem: invalid union")
	ErrDirectoryTooLarge  = errors.New("karmem: directory has too many entries")
	ErrDepthExceeded      = errors.New("karmem: nesting exceeds the depth limit")
	ErrBudgetExceeded     = errors.New("karmem: message exceeds the traversal budget")
	ErrTooLarge           = errors.New("karmem: message or array too large")
)

// Error locates a problem in a message: Offset is a byte position in the
// message, Value an extra number (a length, tag, size or entry count)
// when the kind has one.
type Error struct {
	Kind   error
	Offset uint32
	Value  uint64
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v at offset %d (%d)", e.Kind, e.Offset, e.Value)
}

func (e *Error) Unwrap() error { return e.Kind }

func errAt(kind error, offset uint32, value uint64) error {
	return &Error{Kind: kind, Offset: offset, Value: value}
}

// ErrorAt returns an *Error of the given kind (one of the Err sentinels),
// for generated code.
func ErrorAt(kind error, offset uint32, value uint64) error {
	return errAt(kind, offset, value)
}
