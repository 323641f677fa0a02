//go:build wasip1

package guest

import (
	"fmt"
	"unsafe"
)

const inHost = true

// heap holds the blocks karmem_alloc handed out.
var heap blocks

// The host's functions (docs/abi.md §4). Pointers go as unsafe.Pointer so
// the compiler keeps what they point to alive across the call.

//go:wasmimport karmem call
func karmemCall(fn uint32, args unsafe.Pointer, count uint32, out unsafe.Pointer, outCap uint32) int32

//go:wasmimport karmem take
func karmemTake(index uint32, dst unsafe.Pointer, n uint32) int32

//go:wasmimport karmem result
func karmemResult(ptr unsafe.Pointer, n uint32)

//go:wasmimport karmem error
func karmemError(ptr unsafe.Pointer, n uint32)

//go:wasmimport karmem log
func karmemLog(level uint32, ptr unsafe.Pointer, n uint32)

func hostCall(fn uint32, args []uint32, out []uint32) int32 {
	return karmemCall(fn, unsafe.Pointer(unsafe.SliceData(args)), uint32(len(args)/2),
		unsafe.Pointer(unsafe.SliceData(out)), uint32(len(out)/4))
}

func hostTake(k uint32, dst []byte) int32 {
	return karmemTake(k, unsafe.Pointer(unsafe.SliceData(dst)), uint32(len(dst)))
}

func hostLog(level uint32, msg string) {
	karmemLog(level, unsafe.Pointer(unsafe.StringData(msg)), uint32(len(msg)))
}

// addressOf is where b starts in linear memory (0 for an empty slice, the
// ABI's "absent").
func addressOf(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// bytesAt is the n bytes at linear-memory address ptr. unsafe.Add from nil
// rather than a uintptr conversion: the address comes from the host, not
// from a Go pointer.
func bytesAt(ptr, n uint32) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), uintptr(ptr))), n)
}

//go:wasmexport karmem_abi_version
func karmemABIVersion() int32 { return ABIVersion }

//go:wasmexport karmem_init
func karmemInit() int32 {
	if err := self.seal(); err != nil {
		Log(LogError, err.Error())
		return 1
	}
	return 0
}

//go:wasmexport karmem_describe
func karmemDescribe() int64 {
	return int64(addressOf(self.encoded)) | int64(len(self.encoded))<<32
}

//go:wasmexport karmem_alloc
func karmemAlloc(size, align int32) int32 {
	b := heap.alloc(uint32(size), uint32(align))
	if b == nil {
		return 0
	}
	return int32(addrOf(b))
}

//go:wasmexport karmem_bind_memory
func karmemBindMemory(index, ptr, n int32) {
	heap.keep(uintptr(uint32(ptr)))
	self.bind(int(index), bytesAt(uint32(ptr), uint32(n)))
}

//go:wasmexport karmem_bind_access
func karmemBindAccess(index, access int32) {
	self.bindAccess(int(index), Access(access))
}

// Argument slices of the current dispatch, reused.
var dispatchArgs [][]byte

//go:wasmexport karmem_dispatch
func karmemDispatch(fn, args, count int32) (status int32) {
	var iface *Interface
	var f *Function
	// One deferred function for the whole dispatch (each costs on
	// GOARCH=wasm): a handler that panics fails its call, not the instance
	// (the module's state is the handler's business), and what the host
	// allocated for this dispatch (arguments and the argument array)
	// belongs to the guest from here on, released when the dispatch
	// returns. A panic before the handler ran is this library's and traps.
	defer func() {
		if p := recover(); p != nil {
			if f == nil {
				panic(p)
			}
			clear(dispatchArgs)
			status = fail(StatusApplicationError, panicked(iface, f, p))
		}
		heap.release()
	}()
	// The function and the count are checked before the argument array is
	// read (docs/abi.md §5.2), and address 0 is never an argument's: a
	// slice there would be nil with a length, which Go refuses.
	iface, checked := self.lookup(uint32(fn), int(count))
	if checked == nil {
		return fail(self.refusal(uint32(fn), int(count)))
	}
	if count > 0 && args == 0 {
		return fail(StatusBadArgument, iface.Name+"."+checked.Name+": the argument array is at address 0")
	}
	dispatchArgs = dispatchArgs[:0]
	if count > 0 {
		words := unsafe.Slice((*uint32)(unsafe.Add(unsafe.Pointer(nil), uintptr(args))), 2*int(count))
		for k := range int(count) {
			if words[2*k] == 0 && words[2*k+1] > 0 {
				clear(dispatchArgs)
				return fail(StatusBadArgument, fmt.Sprintf("%s.%s: argument %s: %d bytes at address 0",
					iface.Name, checked.Name, checked.Params[k].Name, words[2*k+1]))
			}
			dispatchArgs = append(dispatchArgs, bytesAt(words[2*k], words[2*k+1]))
		}
	}
	f = checked // from here on a panic is the handler's
	// The handler is called here rather than through module.call: one
	// call less per dispatch.
	out, err := self.handlers[uint32(fn)>>16][uint32(fn)&0xffff](dispatchArgs)
	st, msg := StatusOK, ""
	if err != nil {
		st, out, msg = self.failure(iface, f, err)
	}
	f = nil
	if count > 0 {
		clear(dispatchArgs)
	}
	if st != StatusOK {
		return fail(st, msg)
	}
	if len(out) > 0 {
		karmemResult(unsafe.Pointer(unsafe.SliceData(out)), uint32(len(out)))
	}
	return 0
}

// fail reports msg as the error of the current dispatch and returns status.
func fail(status Status, msg string) int32 {
	karmemError(unsafe.Pointer(unsafe.StringData(msg)), uint32(len(msg)))
	return int32(status)
}
