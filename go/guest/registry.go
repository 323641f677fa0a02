package guest

import (
	"errors"
	"fmt"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/guest/internal/abi"
)

// module is what this guest registered: the descriptor it reports, the
// handlers of its exports and its region windows.
type module struct {
	desc     abi.ModuleDesc
	handlers [][]Handler // by export index, then function index
	windows  [][]byte    // by index in desc.Memories; nil until bound
	access   []Access    // by index in desc.Memories; what karmem_bind_access said
	err      error       // first registration error; fails karmem_init
	sealed   bool        // described: no more registrations
	encoded  []byte      // the descriptor message
}

var self module

// Import is a registered import: the base of its import function ids.
type Import struct{ index uint32 }

// Function is the import function id of function f (docs/abi.md §3).
func (i Import) Function(f uint32) uint32 { return i.index<<16 | f }

// RegisterExport declares that this module exports iface, implemented by
// handlers (one per function, in declaration order; a nil handler answers
// UNKNOWN_FUNCTION). Call it from an init function: registrations after the
// host has read the descriptor fail.
func RegisterExport(iface Interface, handlers []Handler) error {
	return self.export(iface, handlers)
}

// RegisterImport declares that this module imports iface and returns the
// handle its calls go through. Registering the same interface twice
// returns the first handle.
func RegisterImport(iface Interface) (Import, error) {
	return self.importIface(iface)
}

func (m *module) fail(err error) error {
	if m.err == nil {
		m.err = err
	}
	return err
}

func (m *module) export(iface Interface, handlers []Handler) error {
	if m.sealed {
		return m.fail(fmt.Errorf("guest: export %s registered after karmem_init", iface.Name))
	}
	if len(handlers) != len(iface.Functions) {
		return m.fail(fmt.Errorf("guest: export %s: %d handlers for %d functions",
			iface.Name, len(handlers), len(iface.Functions)))
	}
	for _, e := range m.desc.Exports {
		if e.Name == iface.Name {
			return m.fail(fmt.Errorf("guest: export %s registered twice", iface.Name))
		}
	}
	if len(m.desc.Exports) >= 0xffff || len(iface.Functions) > 0xffff {
		return m.fail(fmt.Errorf("guest: export %s: too many interfaces or functions", iface.Name))
	}
	m.desc.Exports = append(m.desc.Exports, iface)
	m.handlers = append(m.handlers, handlers)
	m.addMemories(iface)
	return nil
}

func (m *module) importIface(iface Interface) (Import, error) {
	for i, e := range m.desc.Imports {
		if e.Name == iface.Name {
			return Import{index: uint32(i)}, nil
		}
	}
	if m.sealed {
		return Import{}, m.fail(fmt.Errorf("guest: import %s registered after karmem_init", iface.Name))
	}
	if len(m.desc.Imports) >= 0xffff {
		return Import{}, m.fail(fmt.Errorf("guest: import %s: too many imports", iface.Name))
	}
	m.desc.Imports = append(m.desc.Imports, iface)
	m.addMemories(iface)
	return Import{index: uint32(len(m.desc.Imports) - 1)}, nil
}

// addMemories appends the regions of iface not seen yet: their position is
// the index the host binds them by.
func (m *module) addMemories(iface Interface) {
	for _, mem := range iface.Memories {
		if m.memoryIndex(mem.Name) < 0 {
			m.desc.Memories = append(m.desc.Memories, mem)
			m.windows = append(m.windows, nil)
			m.access = append(m.access, AccessNone)
		}
	}
}

func (m *module) memoryIndex(name string) int {
	for i, mem := range m.desc.Memories {
		if mem.Name == name {
			return i
		}
	}
	return -1
}

// seal encodes the descriptor once; later registrations fail.
func (m *module) seal() error {
	if m.sealed {
		return m.err
	}
	m.sealed = true
	if m.err != nil {
		return m.err
	}
	w := karmem.NewWriter(1024)
	if _, err := m.desc.WriteAsRoot(w); err != nil {
		return m.fail(fmt.Errorf("guest: encoding the descriptor: %w", err))
	}
	m.encoded = w.Bytes()
	return nil
}

// bind records the window of region index; false for an unknown index.
func (m *module) bind(index int, window []byte) bool {
	if index < 0 || index >= len(m.windows) {
		return false
	}
	m.windows[index] = window
	return true
}

// bindAccess records the access of region index (karmem_bind_access);
// false for an unknown index.
func (m *module) bindAccess(index int, access Access) bool {
	if index < 0 || index >= len(m.access) || access > AccessReadWrite {
		return false
	}
	m.access[index] = access
	return true
}

// WindowAccess is this module's access to region name as the host granted
// it (docs/abi.md §2, karmem_bind_access): it may be less than the
// interface declares. AccessNone when the module has no window of the
// region, or the host did not say.
func WindowAccess(name string) Access {
	i := self.memoryIndex(name)
	if i < 0 || self.windows[i] == nil {
		return AccessNone
	}
	return self.access[i]
}

// Window is the window of region name (qualified: `package.memory`) in this
// module's memory, nil when the module has no access to it or runs outside
// a host. Writing into a read-only window fails the current call.
func Window(name string) []byte {
	i := self.memoryIndex(name)
	if i < 0 {
		return nil
	}
	return self.windows[i]
}

// check makes the first two checks of every dispatch, in the order of
// docs/abi.md §5.2: the function id, then the number of arguments. It
// returns the function's interface and description, or the failure.
func (m *module) check(id uint32, count int) (*Interface, *Function, Status, string) {
	if iface, fn := m.lookup(id, count); fn != nil {
		return iface, fn, StatusOK, ""
	}
	status, msg := m.refusal(id, count)
	return nil, nil, status, msg
}

// lookup is check's accepting path, small enough for the compiler to
// inline into karmem_dispatch (a call costs several ns on GOARCH=wasm):
// nil when check refuses.
func (m *module) lookup(id uint32, count int) (*Interface, *Function) {
	e, f := int(id>>16), int(id&0xffff)
	if e >= len(m.handlers) || f >= len(m.handlers[e]) || m.handlers[e][f] == nil {
		return nil, nil
	}
	iface := &m.desc.Exports[e]
	fn := &iface.Functions[f]
	if count != len(fn.Params) {
		return nil, nil
	}
	return iface, fn
}

// refusal is why check refuses function id with count arguments.
func (m *module) refusal(id uint32, count int) (Status, string) {
	e, f := int(id>>16), int(id&0xffff)
	if e >= len(m.handlers) || f >= len(m.handlers[e]) || m.handlers[e][f] == nil {
		return StatusUnknownFunction, fmt.Sprintf("no export function %d", id)
	}
	iface := &m.desc.Exports[e]
	fn := &iface.Functions[f]
	return StatusBadArgument, fmt.Sprintf("%s.%s: %d arguments for %d parameters",
		iface.Name, fn.Name, count, len(fn.Params))
}

// dispatch runs export function id with args: the status, the result
// message, and the error text for statuses other than OK.
func (m *module) dispatch(id uint32, args [][]byte) (status Status, result []byte, msg string) {
	iface, fn, status, msg := m.check(id, len(args))
	if status != StatusOK {
		return status, nil, msg
	}
	return m.run(id, iface, fn, args)
}

// run calls the handler of export function id, which check accepted with
// len(args) arguments (iface and fn are what it returned), and turns a
// panic into the call's failure. Split from dispatch so that
// karmem_dispatch, which checks before it reads the argument array,
// checks once per call.
func (m *module) run(id uint32, iface *Interface, fn *Function, args [][]byte) (status Status, result []byte, msg string) {
	defer func() {
		// A panicking handler fails its call, not the instance: the
		// module's state is the handler's business.
		if p := recover(); p != nil {
			status, result, msg = StatusApplicationError, nil, panicked(iface, fn, p)
		}
	}()
	return m.call(id, iface, fn, args)
}

// call is run without the recover, for callers that recover themselves
// (karmem_dispatch: on GOARCH=wasm every call and deferred function is
// costly enough that the second check and the second defer were a fifth
// of a nop's guest time, docs/benchmarks.md "Real guests").
func (m *module) call(id uint32, iface *Interface, fn *Function, args [][]byte) (Status, []byte, string) {
	out, err := m.handlers[id>>16][id&0xffff](args)
	if err != nil {
		return m.failure(iface, fn, err)
	}
	return StatusOK, out, ""
}

// failure is the status and message of a handler that returned err.
func (m *module) failure(iface *Interface, fn *Function, err error) (Status, []byte, string) {
	var bad *ArgumentError
	if errors.As(err, &bad) {
		return StatusBadArgument, nil, fmt.Sprintf("%s.%s: %v", iface.Name, fn.Name, err)
	}
	return StatusApplicationError, nil, err.Error()
}

// panicked is the error text of a handler that panicked with p.
func panicked(iface *Interface, fn *Function, p any) string {
	return fmt.Sprintf("%s.%s: panic: %v", iface.Name, fn.Name, p)
}
