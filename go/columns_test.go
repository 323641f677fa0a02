package karmem

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// The column-wise checks generated validators use for SoA arrays
// (ArrayColumn, SoaColumn, UTF8Column) must accept exactly the messages the
// element-wise checks (Array, Soa's directory scan, utf8.Valid) accept, and
// charge the same budget: a differential test over well-formed columns and
// randomly corrupted copies of them (the Go twin of
// crates/karmem/tests/columns.rs).

var columnsWanted = []Column{{Hash: 0xA1, Size: 4}, {Hash: 0xB2, Size: 4}, {Hash: 0xC3, Size: 2}}

const columnsLimit = 40

// columnsMessage is a message with two SoA columns of count references
// each, as a generated writer lays them out: one of SoA arrays
// (directories of columnsWanted; some elements with an older or a
// reordered, newer directory) and one of text (ASCII or not). It returns
// the message and both columns.
func columnsMessage(t *testing.T, rng *rand.Rand, count uint32) (msg []byte, arrays, texts uint32) {
	w := NewWriter(64)
	w.Begin()
	must := func(at uint32, err error) uint32 {
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	table := must(w.Alloc(8, 8))
	w.PutUint32(table, 1)
	arrays = must(w.Alloc(12*count, 64))
	texts = must(w.Alloc(12*count, 64))
	words := []string{"", "orc", "twenty ascii letters", "ünïcödé", "日本語のテキスト", "x", "sixteen letters!"}
	out := make([]uint32, 4)
	for i := range count {
		n := rng.IntN(columnsLimit + 1)
		at := arrays + 12*i
		var dir []Column
		switch rng.IntN(6) {
		case 0: // an older writer
			dir = []Column{columnsWanted[0], columnsWanted[2]}
		case 1: // a newer writer, its columns reordered
			dir = []Column{columnsWanted[2], {Hash: 0xEE, Size: 8}, columnsWanted[0], columnsWanted[1]}
		default:
			dir = columnsWanted
		}
		if err := w.WriteSoa(at, n, dir, out); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteString(texts+12*i, words[rng.IntN(len(words))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	return AlignedCopy(w.Bytes()), arrays, texts
}

// byColumn runs the column-wise checks with the given budget; it returns
// the budget left and their outcome.
func byColumn(r *Reader, budget uint64, arrays, texts, count uint32) (uint64, error) {
	v := NewValidator(r)
	v.budget = budget
	err := func() error {
		if err := v.ArrayColumn(arrays, count, 0, columnsLimit); err != nil {
			return err
		}
		if err := v.SoaColumn(arrays, count, columnsWanted); err != nil {
			return err
		}
		if err := v.ArrayColumn(texts, count, 1, NoLimit); err != nil {
			return err
		}
		return v.UTF8Column(texts, count)
	}()
	return v.budget, err
}

// byElement runs the same checks element by element, in the element-wise
// validator's order, with Soa's directory scan alone and utf8.Valid on
// every text.
func byElement(r *Reader, budget uint64, arrays, texts, count uint32) (uint64, error) {
	v := NewValidator(r)
	v.budget = budget
	err := func() error {
		out := make([]uint32, len(columnsWanted))
		for i := range count {
			a, err := v.Array(arrays+12*i, 0, columnsLimit)
			if err != nil {
				return err
			}
			if err := v.soa(a, columnsWanted, out, false); err != nil {
				return err
			}
		}
		for i := range count {
			a, err := v.Array(texts+12*i, 1, NoLimit)
			if err != nil {
				return err
			}
			if !utf8.Valid(Slice[byte](r, a.Offset, a.Len)) {
				return errAt(ErrInvalidText, a.Offset, 0)
			}
		}
		return nil
	}()
	return v.budget, err
}

func TestColumnAndElementChecksAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	accepted, refused, overBudget := 0, 0, 0
	for round := range 10000 {
		count := 1 + uint32(rng.IntN(9))
		m, arrays, texts := columnsMessage(t, rng, count)
		size := uint32(len(m))
		word := func(at uint32) uint32 { return binary.LittleEndian.Uint32(m[at:]) }
		// Corrupt a few words: mostly inside the reference columns and the
		// directories and texts they point to, sometimes anywhere.
		edits := 0
		if round%5 != 0 {
			edits = 1 + rng.IntN(3)
		}
		for range edits {
			block := word(arrays + 12*uint32(rng.IntN(int(count))))
			text := word(texts + 12*uint32(rng.IntN(int(count))))
			var at uint32
			switch k := rng.IntN(5); {
			case k == 0:
				at = arrays + 4*uint32(rng.IntN(3*int(count)))
			case k == 1:
				at = texts + 4*uint32(rng.IntN(3*int(count)))
			case k == 2 && block >= 8 && block+4 <= size && word(block) >= 8 && word(block)+28 <= size:
				// A block's directory word, or a directory's count, hashes
				// or sizes (a shared directory: every array using it).
				at = block
				if rng.IntN(4) != 0 {
					at = word(block) + 4*uint32(rng.IntN(7))
				}
			case k == 3 && text >= 64 && text+8 < size:
				// Inside a text.
				at = text + 4*uint32(rng.IntN(2))
			default:
				at = 8 + 4*uint32(rng.IntN(int(size-8)/4))
			}
			var value uint32
			switch rng.IntN(7) {
			case 0:
				value = 0
			case 1:
				value = rng.Uint32()
			case 2:
				value = size - 64*uint32(rng.IntN(3))
			case 3:
				value = 0x80616161 >> (8 * rng.IntN(4)) // a non-ASCII byte anywhere
			case 4:
				value = columnsLimit + uint32(rng.IntN(2))
			case 5:
				value = columnsWanted[rng.IntN(3)].Hash // a duplicate entry
			default:
				value = word(at) ^ 1<<rng.IntN(32)
			}
			binary.LittleEndian.PutUint32(m[at:], value)
		}
		// Tight budgets and entry limits too: both must fail alike.
		limits := DefaultLimits
		limits.TraversalBudgetFactor = []uint32{1, 2, 8}[rng.IntN(3)]
		limits.MaxDirectoryEntries = []uint32{2, 3, 4, 1024}[rng.IntN(4)]
		r := NewReaderLimits(m, limits)
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		// The message's own budget, or one around what the checks charge,
		// so that it runs out at every point of the walk.
		budget := NewValidator(r).budget
		if left, _ := byElement(r, math.MaxUint64, arrays, texts, count); round%2 == 0 && left > math.MaxUint64/2 {
			used := math.MaxUint64 - left
			budget = used/2 + rng.Uint64N(used+1)
		}
		colBudget, colErr := byColumn(r, budget, arrays, texts, count)
		elemBudget, elemErr := byElement(r, budget, arrays, texts, count)
		if (colErr == nil) != (elemErr == nil) {
			t.Fatalf("round %d: column-wise %v, element-wise %v", round, colErr, elemErr)
		}
		if colErr != nil {
			refused++
			if errors.Is(elemErr, ErrBudgetExceeded) {
				overBudget++
			}
			continue
		}
		if colBudget != elemBudget {
			t.Fatalf("round %d: budget left %d column-wise, %d element-wise", round, colBudget, elemBudget)
		}
		accepted++
	}
	// Both outcomes must be common, or the comparison proves little.
	if accepted < 1000 || refused < 1000 || overBudget < 300 {
		t.Fatalf("%d accepted, %d refused (%d over budget)", accepted, refused, overBudget)
	}
	t.Logf("%d accepted, %d refused (%d over budget)", accepted, refused, overBudget)
}

// Soa's same-version path and its scan agree on their own too, with the
// directory alone corrupted (no column checks in between).
func TestSoaSameVersionPathAgreesWithScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	accepted := 0
	for round := range 4000 {
		m, arrays, _ := columnsMessage(t, rng, 1)
		size := uint32(len(m))
		block := binary.LittleEndian.Uint32(m[arrays:])
		if block == 0 {
			continue
		}
		// The block's word, or the 7 words of a 3-column directory.
		at := block
		if rng.IntN(4) != 0 {
			at = binary.LittleEndian.Uint32(m[block:]) + 4*uint32(rng.IntN(7))
		}
		values := []uint32{0, 3, 4, 8, columnsWanted[rng.IntN(3)].Hash, columnsWanted[rng.IntN(3)].Size, size - 64, size, rng.Uint32()}
		if round%4 != 0 {
			binary.LittleEndian.PutUint32(m[at:], values[rng.IntN(len(values))])
		}
		limits := DefaultLimits
		limits.TraversalBudgetFactor = []uint32{1, 8}[rng.IntN(2)]
		limits.MaxDirectoryEntries = []uint32{2, 3, 1024}[rng.IntN(3)]
		r := NewReaderLimits(m, limits)
		a := r.arrayRef(arrays)
		fast, scan := NewValidator(r), NewValidator(r)
		fastOut, scanOut := make([]uint32, 3), make([]uint32, 3)
		fastErr := fast.soa(a, columnsWanted, fastOut, true)
		scanErr := scan.soa(a, columnsWanted, scanOut, false)
		if (fastErr == nil) != (scanErr == nil) || fast.budget != scan.budget {
			t.Fatalf("round %d: same-version path %v (budget %d), scan %v (budget %d)",
				round, fastErr, fast.budget, scanErr, scan.budget)
		}
		if scanErr == nil {
			accepted++
			if [3]uint32(fastOut) != [3]uint32(scanOut) {
				t.Fatalf("round %d: columns %v, scan %v", round, fastOut, scanOut)
			}
		}
	}
	if accepted < 1000 || accepted > 3500 {
		t.Fatalf("%d of 4000 accepted", accepted)
	}
}

func TestASCIIWordsMatchesUTF8Valid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := make([]byte, 256)
	copy(m, "KM\x02\x00\x00\x01\x00\x00")
	r := NewReader(AlignedCopy(m))
	mem := r.mem
	for round := range 20000 {
		// ASCII text, one non-ASCII byte sometimes inside it and
		// sometimes just past its end (which must not count).
		// Text is 1-aligned (format.md §5): any offset.
		offset := uint32(8 + rng.IntN(200))
		n := uint32(rng.IntN(40))
		for i := offset; i < offset+48 && i < uint32(len(mem)); i++ {
			mem[i] = 'a' + byte(rng.IntN(26))
		}
		if rng.IntN(2) == 0 {
			mem[offset+uint32(rng.IntN(int(n)+8))] = 0x80 | byte(rng.IntN(128))
		}
		ascii := true
		for _, b := range mem[offset : offset+n] {
			ascii = ascii && b < 0x80
		}
		if got := r.asciiWords(offset, n); got != ascii {
			t.Fatalf("round %d: asciiWords(%d, %d) = %v, want %v", round, offset, n, got, ascii)
		}
		v := NewValidator(r)
		if got, want := v.UTF8(offset, n) == nil, utf8.Valid(mem[offset:offset+n]); got != want {
			t.Fatalf("round %d: UTF8 %v, utf8.Valid %v", round, got, want)
		}
	}
	// Text ending at the message end: the word holding its last byte
	// crosses the end, so the last bytes are read one by one.
	end := uint32(len(mem))
	v := NewValidator(r)
	for n := uint32(1); n <= 16; n++ {
		for i := end - n; i < end; i++ {
			mem[i] = 'a'
		}
		if !r.asciiWords(end-n, n) || v.UTF8(end-n, n) != nil {
			t.Fatalf("ASCII text of %d bytes at the end", n)
		}
		mem[end-1] = 0xC3
		if r.asciiWords(end-n, n) || v.UTF8(end-n, n) == nil {
			t.Fatalf("a non-ASCII last byte of %d bytes at the end", n)
		}
		if n >= 2 {
			copy(mem[end-2:], "é")
			if v.UTF8(end-n, n) != nil {
				t.Fatalf("UTF-8 text of %d bytes at the end", n)
			}
		}
	}
	// Text past the message: not ASCII as far as asciiWords knows.
	if r.asciiWords(end-4, 5) {
		t.Fatal("a byte past the message end was read")
	}
}

func TestBadReferenceIsNamedLikeArrayNamesIt(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, arrays, _ := columnsMessage(t, rng, 6)
	// Element 3's length and capacity over the limit.
	binary.LittleEndian.PutUint32(m[arrays+36+4:], columnsLimit+1)
	binary.LittleEndian.PutUint32(m[arrays+36+8:], columnsLimit+1)
	r := NewReader(m)
	v := NewValidator(r)
	err := v.ArrayColumn(arrays, 6, 0, columnsLimit)
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrLimitExceeded || e.Offset != arrays+36 || e.Value != columnsLimit+1 {
		t.Fatalf("got %v, want the limit error of element 3", err)
	}
}
