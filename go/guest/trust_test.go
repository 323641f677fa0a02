package guest_test

import (
	"bytes"
	"testing"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/guest"
	integrity "karmem.org/go/karmem/internal/gen/integrity_old"
)

// itemMessage is an Item message, copied into fresh memory.
func itemMessage(t *testing.T, x *integrity.Item) []byte {
	t.Helper()
	w := karmem.NewWriter(256)
	if _, err := x.WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(w.Bytes())
}

// Trust hands a handler the trusted viewer of a valid argument, the zero
// viewer of an absent one, and refuses every message its Trust<T> refuses
// (which the generated handlers turn into BAD_ARGUMENT): the trusted
// viewer exists only for what was validated.
func TestTrust(t *testing.T) {
	msg := itemMessage(t, &integrity.Item{ID: 7, Name: "seven"})
	a, err := guest.Trust(msg, integrity.TrustItem)
	if err != nil {
		t.Fatal(err)
	}
	if a.V.ID(a.T) != 7 || a.V.Name(a.T) != "seven" || a.R == nil {
		t.Fatalf("read %d %q", a.V.ID(a.T), a.V.Name(a.T))
	}

	absent, err := guest.Trust(nil, integrity.TrustItem)
	if err != nil || absent.V.ID(absent.T) != 0 || absent.V.Name(absent.T) != "" {
		t.Fatalf("absent: %v %d %q", err, absent.V.ID(absent.T), absent.V.Name(absent.T))
	}

	// Text that is not UTF-8, and a message cut short of its text.
	broken := bytes.Clone(msg)
	broken[bytes.Index(broken, []byte("seven"))] = 0xff
	cut := bytes.Clone(msg[:len(msg)-8])
	cut[4] -= 8
	for name, bad := range map[string][]byte{
		"junk":      bytes.Repeat([]byte{0xff}, 24),
		"not UTF-8": broken,
		"truncated": cut,
	} {
		got, err := guest.Trust(bad, integrity.TrustItem)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		if got.T.Size() != 0 {
			t.Errorf("%s: a Trusted over a refused message", name)
		}
	}
}
