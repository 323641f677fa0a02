package guest

import "unsafe"

// blocks keeps what karmem_alloc handed to the host reachable: the host
// writes into it (arguments) or maps regions over it (windows), and Go's
// GC must neither collect nor reuse that memory while the host relies on it
// (R9.8). The GC does not move objects, so a reachable block stays
// where it is.
type blocks struct {
	// transient: argument memory of the next or current dispatch (two
	// blocks a call: the argument and the argument array); released when
	// the dispatch returns. A slice, not a map by address: the map's insert
	// and clear were ~8 % of a small call (docs/benchmarks.md, "Real
	// guests"), and the only lookup by address, keep, runs at start-up.
	transient []block
	// kept: windows, never released (docs/abi.md §6).
	kept [][]byte
}

// block is one allocation: where the caller's aligned bytes start, and the
// whole allocation that keeps them reachable.
type block struct {
	addr uintptr
	raw  []byte
}

// alloc returns size bytes aligned to align (a power of two up to 64 KiB),
// or nil for a bad alignment.
func (b *blocks) alloc(size, align uint32) []byte {
	if align == 0 || align&(align-1) != 0 || align > 65536 {
		return nil
	}
	if size == 0 {
		size = 1 // a distinct non-zero address
	}
	raw := make([]byte, uint64(size)+uint64(align)-1)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & uintptr(align-1))
	out := raw[skip : skip+int(size) : skip+int(size)]
	b.transient = append(b.transient, block{addrOf(out), raw})
	return out
}

// keep makes the block at addr permanent (a window block).
func (b *blocks) keep(addr uintptr) {
	for i, t := range b.transient {
		if t.addr == addr {
			b.kept = append(b.kept, t.raw)
			b.transient = append(b.transient[:i], b.transient[i+1:]...)
			return
		}
	}
}

// release forgets the dispatch's blocks (the GC may reuse them).
func (b *blocks) release() {
	// Cleared, so that the GC may reuse them; the slice's array is reused.
	clear(b.transient)
	b.transient = b.transient[:0]
}

// addrOf is b's address (tests; for the host, see addressOf).
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
