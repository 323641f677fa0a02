package guest

import (
	"errors"
	"strings"
	"testing"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/guest/internal/abi"
)

func testIface(name string, mem string) Interface {
	i := Interface{Name: name, Hash: 1, Functions: []Function{
		{Name: "ok", Result: Param{Name: "r", Type: "t.Msg"}},
		{Name: "bad", Params: []Param{{Name: "x", Type: "t.Msg"}}},
		{Name: "boom"},
	}}
	if mem != "" {
		i.Memories = []Memory{{Name: mem, Importer: AccessReadWrite, Exporter: AccessRead, MaxPages: 1}}
	}
	return i
}

func TestRegisterDescribeDispatch(t *testing.T) {
	var m module
	handlers := []Handler{
		func(args [][]byte) ([]byte, error) { return []byte("hi"), nil },
		func(args [][]byte) ([]byte, error) { return nil, BadArgument("x", errors.New("short")) },
		func(args [][]byte) ([]byte, error) { panic("boom") },
	}
	if err := m.export(testIface("t.A", "t.shared"), handlers); err != nil {
		t.Fatal(err)
	}
	imp, err := m.importIface(testIface("t.B", "t.shared"))
	if err != nil || imp.Function(2) != 2 {
		t.Fatalf("import: %v %#x", err, imp.Function(2))
	}
	imp2, _ := m.importIface(testIface("t.C", "t.other"))
	if imp2.Function(1) != 1<<16|1 {
		t.Fatalf("second import id %#x", imp2.Function(1))
	}
	if err := m.export(testIface("t.A", ""), handlers); err == nil {
		t.Fatal("duplicate export accepted")
	}
	m.err = nil
	if err := m.seal(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.importIface(testIface("t.D", "")); err == nil || m.err == nil {
		t.Fatal("registration after seal accepted")
	}
	window := make([]byte, 16)
	if !m.bind(0, window) || m.bind(2, window) || m.bind(-1, window) {
		t.Fatal("bind range check")
	}
	if len(m.windows[0]) != 16 || m.windows[1] != nil {
		t.Fatal("bind stored the wrong window")
	}
	// karmem_bind_access: the same range check, and only the three
	// accesses there are.
	if !m.bindAccess(1, AccessRead) || m.bindAccess(2, AccessRead) || m.bindAccess(-1, AccessRead) ||
		m.bindAccess(0, AccessReadWrite+1) {
		t.Fatal("bindAccess range check")
	}
	if m.access[1] != AccessRead {
		t.Fatal("bindAccess stored the wrong access")
	}
	// The descriptor reads back: regions deduplicated in first-use order.
	var back abi.ModuleDesc
	if err := back.ReadAsRoot(karmem.NewReader(m.encoded)); err != nil {
		t.Fatal(err)
	}
	if len(back.Memories) != 2 || back.Memories[0].Name != "t.shared" || back.Memories[1].Name != "t.other" ||
		len(back.Exports) != 1 || len(back.Imports) != 2 || back.Exports[0].Functions[2].Name != "boom" {
		t.Fatalf("descriptor %+v", back)
	}

	cases := []struct {
		id     uint32
		args   [][]byte
		status Status
		text   string
	}{
		{0, nil, StatusOK, "hi"},
		{1, [][]byte{nil}, StatusBadArgument, "argument x: short"},
		{1, nil, StatusBadArgument, "0 arguments for 1 parameters"},
		{2, nil, StatusApplicationError, "panic: boom"},
		{3, nil, StatusUnknownFunction, "no export function"},
		{1 << 16, nil, StatusUnknownFunction, "no export function"},
	}
	for _, c := range cases {
		status, out, msg := m.dispatch(c.id, c.args)
		if status != c.status || !strings.Contains(string(out)+msg, c.text) {
			t.Errorf("dispatch(%#x) = %v %q %q, want %v %q", c.id, status, out, msg, c.status, c.text)
		}
	}
}

func TestHandlerCountChecked(t *testing.T) {
	var m module
	if err := m.export(testIface("t.A", ""), nil); err == nil {
		t.Fatal("missing handlers accepted")
	}
	if m.seal() == nil {
		t.Fatal("seal ignored the registration error")
	}
}

func TestBlocks(t *testing.T) {
	var b blocks
	for _, align := range []uint32{1, 8, 64, 65536} {
		p := b.alloc(100, align)
		if len(p) != 100 || uintptr(addrOf(p))%uintptr(align) != 0 {
			t.Fatalf("alloc(100, %d): len %d at %#x", align, len(p), addrOf(p))
		}
	}
	if b.alloc(8, 3) != nil || b.alloc(8, 1<<17) != nil {
		t.Fatal("bad alignment accepted")
	}
	if len(b.transient) != 4 {
		t.Fatalf("%d blocks tracked", len(b.transient))
	}
	window := b.alloc(65536, 65536)
	arg := b.alloc(100, 64)
	b.keep(addrOf(window))
	// An address that is no block's start is ignored.
	b.keep(addrOf(arg) + 1)
	if len(b.transient) != 5 || len(b.kept) != 1 || addrOf(b.kept[0]) > addrOf(window) ||
		addrOf(window)-addrOf(b.kept[0]) >= 65536 {
		t.Fatalf("keep: %d transient, %d kept", len(b.transient), len(b.kept))
	}
	for _, blk := range b.transient {
		if blk.addr == addrOf(window) {
			t.Fatal("the kept block is still transient")
		}
	}
	b.release()
	if len(b.transient) != 0 || len(b.kept) != 1 {
		t.Fatalf("release: %d transient, %d kept", len(b.transient), len(b.kept))
	}
}

func TestStatusAndErrors(t *testing.T) {
	if StatusMemoryLimit.String() != "MEMORY_LIMIT" || Status(99).String() != "status 99" {
		t.Fatal("status names")
	}
	// Every status of docs/abi.md §5.2 and §5.3 has its ABI name.
	for _, s := range []Status{0, 1, 2, 3, 16, 17, 18, 19, 20, 21} {
		if strings.HasPrefix(s.String(), "status ") {
			t.Errorf("status %d has no name", uint32(s))
		}
	}
	if _, err := Call(0, nil); !errors.Is(err, ErrNoHost) {
		t.Fatalf("native Call: %v", err)
	}
	if (&CallError{Code: -4}).Error() != "guest: call: re-entrant call: the callee instance is already on this call stack" {
		t.Fatal("call error text")
	}
	w0, w1 := ArgWriter(0), ArgWriter(1)
	if w0 == w1 {
		t.Fatal("argument writers shared")
	}
	if got := alignedBytes(13); len(got) != 13 || !karmem.IsAligned(got) {
		t.Fatal("alignedBytes")
	}
}
