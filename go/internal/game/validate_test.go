package game

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"karmem.org/go/karmem"
	km "karmem.org/go/karmem/internal/gen/bench_game"
)

// The generated validator walks the SoA array of monsters column by
// column (RATIONALE R5.9). It must accept exactly the messages the
// element-by-element walk it replaced accepts: validateByElement below is
// that walk, written with the library's element-wise checks, and both run
// on thousands of corrupted game states.

// SoA columns of the game schema (hash of the position path, value size),
// in the schema's order: Monster flattens Data's fields (path [0, k]), Pos
// one level further.
var (
	vec3Columns   = columns([]uint32{0}, []uint32{1}, []uint32{2})
	weaponColumns = columns([]uint32{0, 0}, []uint32{0, 1})
	monsterPaths  = [][]uint32{{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}, {0, 9}}
	monsterSizes  = []uint32{4, 4, 4, 2, 2, 12, 1, 12, 32, 12, 12, 12}
	vec3Sizes     = []uint32{4, 4, 4}
	weaponSizes   = []uint32{4, 4}
)

func columns(paths ...[]uint32) []karmem.Column {
	out := make([]karmem.Column, len(paths))
	for i, p := range paths {
		out[i] = karmem.Column{Hash: karmem.PathHash(p...)}
	}
	return out
}

func sized(cols []karmem.Column, sizes []uint32) []karmem.Column {
	for i := range cols {
		cols[i].Size = sizes[i]
	}
	return cols
}

// validateByElement is ValidateState as generated before R5.9: every
// check of one monster, then the next monster.
func validateByElement(r *karmem.Reader) error {
	if err := r.Err(); err != nil {
		return err
	}
	monsterCols := sized(columns(monsterPaths...), monsterSizes)
	vec3 := sized(vec3Columns, vec3Sizes)
	weapon := sized(weaponColumns, weaponSizes)
	v := karmem.NewValidator(r)
	t, err := v.Root(km.StateFullSize)
	if err != nil {
		return err
	}
	if err := v.Enter(); err != nil {
		return err
	}
	a, err := v.FieldArray(t, 4, 0, 2000)
	if err != nil {
		return err
	}
	var cols [12]uint32
	if err := v.Soa(a, monsterCols, cols[:]); err != nil {
		return err
	}
	var scratch [3]uint32
	for i := uint32(0); i < a.Len; i++ {
		if cols[5] != 0 {
			a, err := v.Array(cols[5]+i*12, 1, karmem.NoLimit)
			if err != nil {
				return err
			}
			if !utf8.Valid(karmem.Slice[byte](r, a.Offset, a.Len)) {
				return karmem.ErrInvalidText
			}
		}
		if cols[7] != 0 {
			if _, err := v.Array(cols[7]+i*12, 1, 128); err != nil {
				return err
			}
		}
		if cols[9] != 0 {
			if _, err := v.Array(cols[9]+i*12, 4, karmem.NoLimit); err != nil {
				return err
			}
		}
		if cols[10] != 0 {
			a, err := v.Array(cols[10]+i*12, 0, 4)
			if err != nil {
				return err
			}
			if err := v.Soa(a, weapon, scratch[:2]); err != nil {
				return err
			}
		}
		if cols[11] != 0 {
			a, err := v.Array(cols[11]+i*12, 0, 2000)
			if err != nil {
				return err
			}
			if err := v.Soa(a, vec3, scratch[:]); err != nil {
				return err
			}
		}
	}
	v.Leave()
	return nil
}

func TestColumnWiseValidatorAgreesWithElementWise(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	accepted, refused := 0, 0
	for round := range 5000 {
		clean := encoded(t, Generate(1+rng.IntN(4), 1+rng.IntN(12)))
		m := karmem.AlignedCopy(clean)
		size := uint32(len(m))
		// Corrupt a few words anywhere past the header (most rounds), with
		// values that hit the rules: zero, boundaries, anything below the
		// size, a non-ASCII byte, a flipped bit, small counts and lengths
		// around the limits, known hashes.
		edits := 0
		if round%6 != 0 {
			edits = 1 + rng.IntN(3)
		}
		// Where the monsters' reference columns are (name, inventory,
		// status, weapons, path): half the edits go there.
		var cols [12]uint32
		r := karmem.NewReader(m)
		monsters := r.FieldArray(r.Root(), 4, 0, 2000)
		r.SoaColumns(monsters, sized(columns(monsterPaths...), monsterSizes), cols[:])
		refColumns := []uint32{cols[5], cols[7], cols[9], cols[10], cols[11]}
		for range edits {
			at := 8 + 4*uint32(rng.IntN(int(size-8)/4))
			if col := refColumns[rng.IntN(len(refColumns))]; rng.IntN(2) == 0 && col != 0 {
				at = col + 12*uint32(rng.IntN(int(monsters.Len))) + 4*uint32(rng.IntN(3))
			}
			old := binary.LittleEndian.Uint32(m[at:])
			values := []uint32{
				0, rng.Uint32(), size, size - 64, old + 64, old - 64, uint32(rng.IntN(int(size))),
				0x80616161 >> (8 * rng.IntN(4)),
				old ^ 1<<rng.IntN(32), uint32(rng.IntN(20)), 5, 129, 2001, // limits + 1
				vec3Columns[rng.IntN(3)].Hash, weaponColumns[rng.IntN(2)].Hash,
			}
			value := values[rng.IntN(len(values))]
			binary.LittleEndian.PutUint32(m[at:], value)
			// Sometimes the next word too: a reference's length and
			// capacity, so that a length can pass a limit within capacity.
			if rng.IntN(3) == 0 && at+8 <= size {
				binary.LittleEndian.PutUint32(m[at+4:], value)
			}
		}
		limits := karmem.DefaultLimits
		limits.TraversalBudgetFactor = []uint32{1, 2, 8}[rng.IntN(3)]
		limits.MaxDirectoryEntries = []uint32{2, 3, 12, 1024}[rng.IntN(4)]
		_, colErr := km.ValidateState(karmem.NewReaderLimits(m, limits))
		elemErr := validateByElement(karmem.NewReaderLimits(m, limits))
		if (colErr == nil) != (elemErr == nil) {
			t.Fatalf("round %d: column-wise %v, element-wise %v", round, colErr, elemErr)
		}
		if colErr == nil {
			accepted++
		} else {
			refused++
		}
	}
	// Both outcomes must be common, or the comparison proves little.
	if accepted < 500 || refused < 500 {
		t.Fatalf("%d accepted, %d refused", accepted, refused)
	}
	t.Logf("%d accepted, %d refused", accepted, refused)
}
