// e2e-go-echo exports e2e.Echo and e2e.Voter for the Go guest tests.
package main

import (
	"errors"
	"unsafe"

	"karmem.org/go/karmem/guest"
	"karmem.org/guests/e2e-go-echo/e2e"
)

type echo struct{}

func (echo) Echo(m guest.Arg[e2e.TrustedMsgViewer]) (*e2e.Msg, error) {
	return &e2e.Msg{Text: m.V.Text(m.T), Number: m.V.Number(m.T) + 1}, nil
}

// Peek proves the argument was not copied: its bytes lie in this module's
// window of the region, and the reply says where.
func (echo) Peek(m guest.Arg[e2e.MsgViewer]) (*e2e.Msg, error) {
	window, msg := e2e.EchoSharedWindow(), m.R.Bytes()
	start := uintptr(unsafe.Pointer(unsafe.SliceData(window)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(msg)))
	if len(msg) == 0 || at < start || at+uintptr(len(msg)) > start+uintptr(len(window)) {
		return nil, errors.New("peek: the argument is not in the shared window")
	}
	return &e2e.Msg{Text: m.V.Text(m.R), Number: uint32(at - start)}, nil
}

func (echo) Fail(m guest.Arg[e2e.TrustedMsgViewer]) (*e2e.Msg, error) {
	text := m.V.Text(m.T)
	if text == "panic" {
		// A handler that panics fails its call, not the instance
		// (crates/karmem-e2e/tests/go_guests.rs).
		panic("asked to")
	}
	return nil, errors.New("fail: " + text)
}

// Stamp returns its result in place in the `out` region: the host passes
// it on by position, without a copy.
func (echo) Stamp(m guest.Arg[e2e.TrustedMsgViewer]) ([]byte, error) {
	w := guest.ResultWriter()
	reply := e2e.Msg{Text: m.V.Text(m.T), Number: m.V.Number(m.T) + 100}
	if _, err := reply.WriteAsRoot(w); err != nil {
		return nil, err
	}
	window := e2e.EchoOutWindow()
	if len(window) < w.Len() {
		return nil, errors.New("stamp: the out window is too small")
	}
	return window[:copy(window, w.Bytes())], nil
}

// Scribble writes into a read-only window, the way the text says: the
// host must stop it. clear and copy are the runtime's memclr and memmove,
// which are memory.fill and memory.copy on wasm.
func (echo) Scribble(m guest.Arg[e2e.MsgViewer]) error {
	msg := m.R.Bytes()
	switch m.V.Text(m.R) {
	case "fill":
		clear(msg)
	case "copy":
		src := make([]byte, len(msg))
		for i := range src {
			src[i] = 0xee
		}
		copy(msg, src)
	default:
		for i := range msg {
			msg[i] = 0xee
		}
	}
	return nil
}

// Nop does nothing: the cheapest call there is (call benchmarks).
func (echo) Nop() error { return nil }

func (echo) Access(m guest.Arg[e2e.TrustedMsgViewer]) (*e2e.Msg, error) {
	name := m.V.Text(m.T)
	return &e2e.Msg{Text: name, Number: uint32(guest.WindowAccess(name))}, nil
}

type voter struct{}

func (voter) Vote(guest.Arg[e2e.TrustedMsgViewer]) (*e2e.Msg, error) {
	return &e2e.Msg{Text: "go"}, nil
}

func init() {
	if err := e2e.RegisterEcho(echo{}); err != nil {
		panic(err)
	}
	if err := e2e.RegisterVoter(voter{}); err != nil {
		panic(err)
	}
}

func main() {}
