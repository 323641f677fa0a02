package guest

import (
	"errors"
	"fmt"

	"karmem.org/go/karmem"
)

// Result is one callee's reply to a fan-out call, its message opened.
type Result[V any] struct {
	Callee uint32
	Status Status
	// Value is the result when Err is nil (zero for functions without one).
	Value Arg[V]
	// Err is the callee's failure, or why its result is not a valid message.
	Err error
}

var resultWriter = karmem.NewWriter(256)

// ResultWriter is the reset writer for a handler's result message; the
// host copies the result out before the next dispatch can reuse it.
func ResultWriter() *karmem.Writer {
	resultWriter.Reset()
	return resultWriter
}

// View opens msg with validate (a generated ValidateT): every later access
// through the viewer stays within the message. An empty msg is the ABI's
// absent value: it reads as the zero value (every field at its default).
func View[V any](msg []byte, validate func(*karmem.Reader) (V, error)) (Arg[V], error) {
	if len(msg) == 0 || validate == nil {
		return Arg[V]{R: karmem.NewReader(nil)}, nil
	}
	r := karmem.NewReader(msg)
	v, err := validate(r)
	return Arg[V]{R: r, V: v}, err
}

// Trust opens msg with trust (a generated Trust<T>): it validates the
// whole message before it returns the trusted viewer, whose reads skip
// the checked reader's tests (RATIONALE R5.11). An empty msg is the ABI's
// absent value: the zero Trusted, an empty message, and the zero viewer,
// which read as the zero value (every field at its default). The bytes
// must not change while the viewer is in use (a region's window may:
// open region-bound messages with View).
func Trust[V any](msg []byte, trust func(*karmem.Reader) (karmem.Trusted, V, error)) (Arg[V], error) {
	r := karmem.NewReader(msg)
	if len(msg) == 0 {
		return Arg[V]{R: r}, nil
	}
	t, v, err := trust(r)
	return Arg[V]{R: r, T: t, V: v}, err
}

// Results opens every reply (validate nil: the function has no result).
func Results[V any](replies []Reply, validate func(*karmem.Reader) (V, error)) []Result[V] {
	out := make([]Result[V], len(replies))
	for k, r := range replies {
		out[k] = Result[V]{Callee: r.Callee, Status: r.Status, Err: r.Err}
		if r.Err != nil {
			continue
		}
		v, err := View(r.Msg, validate)
		if err != nil {
			out[k].Err = fmt.Errorf("guest: callee %d: invalid result: %w", r.Callee, err)
			continue
		}
		out[k].Value = v
	}
	return out
}

// ErrNoCallee: a call with one callee reached none.
var ErrNoCallee = errors.New("guest: the call reached no callee")

// Single is the one reply of a direct, singleton or pool call, opened.
func Single[V any](replies []Reply, validate func(*karmem.Reader) (V, error)) (Arg[V], error) {
	if len(replies) == 0 {
		return Arg[V]{}, ErrNoCallee
	}
	r := Results(replies[:1], validate)[0]
	return r.Value, r.Err
}
