package guest

import (
	"fmt"
	"unsafe"

	"karmem.org/go/karmem"
)

// MaxCallees is how many callee entries one Call can report: the size of
// the `out` array handed to the host (docs/abi.md §5.3).
const MaxCallees = 256

// Reply is the outcome of one callee of a Call.
type Reply struct {
	// Callee is the exporter's index in the application (manifest order).
	Callee uint32
	Status Status
	// Msg is the result message when Status is OK (nil: no result). A
	// region-bound result lies in this module's window of the region;
	// a copied one is this module's own 8-byte aligned copy.
	Msg []byte
	// Err describes a failed callee (Status other than OK).
	Err error
}

// CalleeError is a callee's failure: its status and its message.
type CalleeError struct {
	Callee  uint32
	Status  Status
	Message string
}

func (e *CalleeError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("callee %d: %v", e.Callee, e.Status)
	}
	return fmt.Sprintf("callee %d: %v: %s", e.Callee, e.Status, e.Message)
}

// CallError is a negative return of the host's `call` (docs/abi.md §5.3):
// the call reached no callee.
type CallError struct{ Code int32 }

var callErrors = map[int32]string{
	-1: "unknown import function id",
	-2: "an argument is out of range or outside its window",
	-3: "the out array is out of range",
	-4: "re-entrant call: the callee instance is already on this call stack",
	-5: "no exporter is bound to this import",
	-6: "too many nested calls",
}

func (e *CallError) Error() string {
	if s, ok := callErrors[e.Code]; ok {
		return "guest: call: " + s
	}
	return fmt.Sprintf("guest: call: error %d", e.Code)
}

// Buffers the host reads and writes during a call; package-level so the
// GC keeps them (and reuses them: a guest is single-threaded).
var (
	argWords []uint32
	outWords = make([]uint32, 4*MaxCallees)
	writers  []*karmem.Writer
)

// ArgWriter is a reset writer for argument k of the next Call; its bytes
// stay valid until ArgWriter(k) is asked for again.
func ArgWriter(k int) *karmem.Writer {
	for len(writers) <= k {
		writers = append(writers, karmem.NewWriter(256))
	}
	writers[k].Reset()
	return writers[k]
}

// Call calls import function fn (Import.Function) with one message per
// parameter (nil: absent) and collects every callee's reply. A region-bound
// argument must lie in this module's window of the region. The error is
// non-nil only when the call reached no callee.
func Call(fn uint32, args [][]byte) ([]Reply, error) {
	if !inHost {
		return nil, ErrNoHost
	}
	argWords = argWords[:0]
	for _, a := range args {
		argWords = append(argWords, addressOf(a), uint32(len(a)))
	}
	n := hostCall(fn, argWords, outWords)
	if n < 0 {
		return nil, &CallError{Code: n}
	}
	count := min(int(n), MaxCallees)
	replies := make([]Reply, count)
	for k := range replies {
		e := outWords[4*k : 4*k+4]
		status, length, ptr := Status(e[0]), e[2], e[3]
		r := &replies[k]
		r.Callee, r.Status = e[1], status
		var msg []byte
		switch {
		case status == StatusOK && ptr != 0:
			msg = bytesAt(ptr, length)
		case length > 0:
			msg = alignedBytes(int(length))
			if rc := hostTake(uint32(k), msg); rc != 0 {
				r.Status = StatusTrap
				r.Err = fmt.Errorf("guest: take(%d) failed (%d)", k, rc)
				continue
			}
		}
		if status == StatusOK {
			r.Msg = msg
		} else {
			r.Err = &CalleeError{Callee: r.Callee, Status: status, Message: string(msg)}
		}
	}
	if int(n) > MaxCallees {
		return replies, fmt.Errorf("guest: call reached %d callees, only %d reported", n, MaxCallees)
	}
	return replies, nil
}

// alignedBytes is n bytes at an 8-byte aligned address (karmem.Reader's
// requirement, format.md §1).
func alignedBytes(n int) []byte {
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:n:n]
}

// LogLevel of a log line (docs/abi.md §4).
type LogLevel uint32

const (
	LogError LogLevel = iota
	LogWarn
	LogInfo
	LogDebug
	LogTrace
)

// Log sends a line to the host's log (truncated by the host to 4 KiB).
func Log(level LogLevel, msg string) { hostLog(uint32(level), msg) }

// Logf is Log with fmt.Sprintf.
func Logf(level LogLevel, format string, args ...any) {
	hostLog(uint32(level), fmt.Sprintf(format, args...))
}
