package karmem

// Arrays views an array of arrays ([][]float32, []string; format.md §5.4):
// its elements are array references, each read as an array of elemSize-byte
// elements within limit (an element that breaks the rules reads as empty)
// and turned into a view T by a function of the generated code. At is O(1)
// and allocates nothing; an index out of range reads as an empty element.
type Arrays[T any] struct {
	a        ArrayRef
	elemSize uint32
	limit    uint32
	view     func(r *Reader, a ArrayRef) T
}

// NewArrays is called by generated code.
func NewArrays[T any](a ArrayRef, elemSize, limit uint32, view func(r *Reader, a ArrayRef) T) Arrays[T] {
	return Arrays[T]{a: a, elemSize: elemSize, limit: limit, view: view}
}

// Len is the number of elements.
func (x Arrays[T]) Len() int { return int(x.a.Len) }

// At reads element i. The zero Arrays (an absent field) reads as empty.
func (x Arrays[T]) At(r *Reader, i int) T {
	if x.view == nil {
		var zero T
		return zero
	}
	if i < 0 || i >= int(x.a.Len) {
		return x.view(r, ArrayRef{})
	}
	return x.view(r, r.Array(x.a.Offset+uint32(i)*arrayRefSize, x.elemSize, x.limit))
}

// TrustedArrays is Arrays over a validated message (Trusted): the element
// references were checked by the validator and are read as they are.
type TrustedArrays[T any] struct {
	a    ArrayRef
	view func(t Trusted, a ArrayRef) T
}

// NewTrustedArrays is called by generated code.
func NewTrustedArrays[T any](a ArrayRef, view func(t Trusted, a ArrayRef) T) TrustedArrays[T] {
	return TrustedArrays[T]{a: a, view: view}
}

// Len is the number of elements.
func (x TrustedArrays[T]) Len() int { return int(x.a.Len) }

// At reads element i. The zero TrustedArrays (an absent field) reads as
// empty.
func (x TrustedArrays[T]) At(t Trusted, i int) T {
	if x.view == nil {
		var zero T
		return zero
	}
	if i < 0 || i >= int(x.a.Len) {
		return x.view(t, ArrayRef{})
	}
	return x.view(t, t.Array(x.a.Offset+uint32(i)*arrayRefSize))
}
