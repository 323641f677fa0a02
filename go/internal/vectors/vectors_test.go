package vectors

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"testing"
	"unsafe"

	"karmem.org/go/karmem"
)

const vectorsDir = "../../../testdata/vectors"

// Every golden vector through the generated Go code: the JSON value
// encodes to exactly the golden bytes, the bytes decode (also into a used
// object) to the value and validate, a reused writer gives the same bytes,
// and other schema versions read what the vector says (evolution).
func TestGoldenVectors(t *testing.T) {
	cases, err := Load(vectorsDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 20 {
		t.Fatalf("expected the full vector set, found %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Topic+"/"+c.Name, func(t *testing.T) {
			schema := path.Join("vectors", c.Topic, c.Schema)
			if c.Hostile != nil {
				if err := hostile(schema, c.Root, c.Value, *c.Hostile, c.Bytes); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err := check(schema, c.Root, c.Value, c.Bytes); err != nil {
				t.Fatal(err)
			}
			for file, value := range c.Readers {
				if err := read(path.Join("vectors", c.Topic, file), c.Root, value, c.Bytes); err != nil {
					t.Errorf("read by %s: %v", file, err)
				}
			}
		})
	}
}

func check(schema, root string, value any, golden []byte) error {
	expected, validate, err := New(schema, root)
	if err != nil {
		return err
	}
	if err := FromJSON(value, expected); err != nil {
		return err
	}
	w := karmem.NewWriter(64)
	if _, err := expected.WriteAsRoot(w); err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if !bytes.Equal(w.Bytes(), golden) {
		return fmt.Errorf("encoding differs from the golden bytes:\n got %x\nwant %x", w.Bytes(), golden)
	}
	r := karmem.NewReader(karmem.AlignedCopy(golden))
	got, _, _ := New(schema, root)
	for pass := 0; pass < 2; pass++ {
		// The second pass decodes into the used object (the reuse path).
		if err := got.ReadAsRoot(r); err != nil {
			return fmt.Errorf("decode: %w", err)
		}
		if !Equal(got, expected) {
			return fmt.Errorf("decoded value differs (pass %d):\n%+v\nexpected\n%+v", pass, got, expected)
		}
	}
	if err := validate(r); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if _, err := expected.WriteAsRoot(w); err != nil {
		return fmt.Errorf("encode again: %w", err)
	}
	if !bytes.Equal(w.Bytes(), golden) {
		return fmt.Errorf("re-encoding with a reused writer changed the bytes")
	}
	return overCallersBuffer(expected, golden)
}

// overCallersBuffer: encoding into a caller's buffer full of other bytes
// gives the golden bytes and touches nothing after them; a buffer one
// 64-byte line short is refused with ErrTooLarge.
func overCallersBuffer(value object, golden []byte) error {
	lines := (len(golden) + 63) / 64
	raw := make([]byte, (lines+2)*64)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & 63)
	buf := raw[skip : skip+(lines+1)*64]
	for i := range buf {
		buf[i] = 0xAB
	}
	w, err := karmem.NewFixedWriter(buf)
	if err != nil {
		return fmt.Errorf("fixed writer: %w", err)
	}
	if _, err := value.WriteAsRoot(w); err != nil {
		return fmt.Errorf("encode over a caller's buffer: %w", err)
	}
	if !bytes.Equal(w.Bytes(), golden) || !bytes.Equal(buf[:len(golden)], golden) {
		return fmt.Errorf("encoding over a caller's buffer changed the bytes")
	}
	for _, b := range buf[len(golden):] {
		if b != 0xAB {
			return fmt.Errorf("encoding over a caller's buffer touched bytes after the message")
		}
	}
	if lines > 1 {
		w, err := karmem.NewFixedWriter(buf[:(lines-1)*64])
		if err != nil {
			return fmt.Errorf("fixed writer: %w", err)
		}
		if _, err := value.WriteAsRoot(w); !errors.Is(err, karmem.ErrTooLarge) {
			return fmt.Errorf("a buffer one line short: %v", err)
		}
	}
	return nil
}

// hostile checks what the generated validator and decoder decide on a
// hostile message.
func hostile(schema, root string, value any, want Hostile, message []byte) error {
	got, validate, err := New(schema, root)
	if err != nil {
		return err
	}
	r := karmem.NewReader(karmem.AlignedCopy(message))
	verr := validate(r)
	if (verr == nil) != want.Valid {
		return fmt.Errorf("validation gives %v, want valid = %v", verr, want.Valid)
	}
	if want.Error != "" {
		kind, ok := errorKinds[want.Error]
		if !ok {
			return fmt.Errorf("the case names error %q, which this runner does not know", want.Error)
		}
		if !errors.Is(verr, kind) {
			return fmt.Errorf("validation gives %v, want %s", verr, want.Error)
		}
	}
	err = got.ReadAsRoot(r)
	if !want.Decodes {
		if err == nil {
			return fmt.Errorf("decoded, expected an error")
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	expected, _, _ := New(schema, root)
	if err := FromJSON(value, expected); err != nil {
		return err
	}
	if !Equal(got, expected) {
		return fmt.Errorf("decoded value differs:\n%+v\nexpected\n%+v", got, expected)
	}
	return nil
}

func read(schema, root string, value any, golden []byte) error {
	expected, validate, err := New(schema, root)
	if err != nil {
		return err
	}
	if err := FromJSON(value, expected); err != nil {
		return err
	}
	r := karmem.NewReader(karmem.AlignedCopy(golden))
	got, _, _ := New(schema, root)
	if err := got.ReadAsRoot(r); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if !Equal(got, expected) {
		return fmt.Errorf("got\n%+v\nexpected\n%+v", got, expected)
	}
	return validate(r)
}

// errorKinds: the validator's errors by the names the vectors give them
// (testdata/vectors/README.md, key `error`).
var errorKinds = map[string]error{
	"Truncated":         karmem.ErrTruncated,
	"BadMagic":          karmem.ErrBadMagic,
	"BadSize":           karmem.ErrBadSize,
	"MalformedTable":    karmem.ErrMalformedTable,
	"MalformedArray":    karmem.ErrMalformedArray,
	"LimitExceeded":     karmem.ErrLimitExceeded,
	"InvalidText":       karmem.ErrInvalidText,
	"InvalidBool":       karmem.ErrInvalidBool,
	"InvalidUnion":      karmem.ErrInvalidUnion,
	"DirectoryTooLarge": karmem.ErrDirectoryTooLarge,
	"DepthExceeded":     karmem.ErrDepthExceeded,
	"BudgetExceeded":    karmem.ErrBudgetExceeded,
}
