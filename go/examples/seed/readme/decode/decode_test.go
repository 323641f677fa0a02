package decode

import (
	"testing"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/examples/seed/app"
	"karmem.org/go/karmem/examples/seed/readme"
)

// The README's decoding into a pooled object prints each username.
func Example_decodes() {
	decodes(readme.Message())
	// Output:
	// inkeliz
	// karmem
	// inkeliz
}

// A message that is not Karmem reads as an empty account: nothing printed.
func Example_decodesGarbage() {
	decodes([]byte("not a karmem message"))
	// Output:
}

// The README ignores ReadAsRoot's error, so a message that cannot be opened
// must leave the reused object empty, not holding the previous message.
func TestUnopenableMessageEmptiesTheObject(t *testing.T) {
	var account app.AccountData
	if err := account.ReadAsRoot(karmem.NewReader(readme.Message())); err != nil || len(account.Profiles) != 3 {
		t.Fatalf("decoding the README's account: %v, %d profiles", err, len(account.Profiles))
	}
	if err := account.ReadAsRoot(karmem.NewReader([]byte("KM"))); err == nil {
		t.Fatal("a truncated header is an error")
	}
	if account.ID != 0 || account.Email != "" || len(account.Profiles) != 0 {
		t.Fatalf("the object still holds the previous message: %+v", account)
	}
}
