package guest

import "unsafe"

// blocks keeps what karmem_alloc handed to the host reachable: the host
// writes into it (arguments) or maps regions over it (windows), and Go's
// GC must neither collect nor reuse that memory while the host relies on it
// (R-GoGuest-1). The GC does not move objects, so a reachable block stays
// where it is.
type blocks struct {
	// transient: argument memory of the next or current dispatch, keyed by
	// address; released when the dispatch returns.
	transient map[uintptr][]byte
	// kept: windows, never released (docs/abi.md §6).
	kept [][]byte
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
	b.transient[addrOf(out)] = raw
	return out
}

// keep makes the block at addr permanent (a window block).
func (b *blocks) keep(addr uintptr) {
	if raw, ok := b.transient[addr]; ok {
		b.kept = append(b.kept, raw)
		delete(b.transient, addr)
	}
}

// release forgets the dispatch's blocks (the GC may reuse them).
func (b *blocks) release() {
	clear(b.transient)
}

// addrOf is b's address (tests; for the host, see addressOf).
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
