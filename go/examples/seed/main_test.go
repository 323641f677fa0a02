package main

import (
	"os"
	"testing"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/examples/seed/app"
)

func Example() {
	if err := run(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// inkeliz
	// karmem
	// inkeliz
	// inkeliz
	// karmem
	// inkeliz
}

// The seed value encodes to exactly the golden vector's bytes, and every
// viewer of the seed API reads it back.
func TestSeedBytesAndViewers(t *testing.T) {
	account := app.AccountData{ID: 42, Email: "example@email.com", Profiles: []app.Profile{
		{Data: app.ProfileData{Network: app.SocialNetworkFacebook, Username: "inkeliz", ID: 123}},
		{Data: app.ProfileData{Network: app.SocialNetworkFacebook, Username: "karmem", ID: 231}},
		{Data: app.ProfileData{Network: app.SocialNetworkInstagram, Username: "inkeliz", ID: 312}},
	}}
	w := karmem.NewWriter(64)
	if _, err := account.WriteAsRoot(w); err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../../../testdata/vectors/seed/account.hex")
	if err != nil {
		t.Fatal(err)
	}
	if got := hexLines(w.Bytes()); got != string(golden) {
		t.Fatalf("bytes differ from testdata/vectors/seed/account.hex:\n%s", got)
	}

	r := karmem.NewReader(w.Bytes())
	v := app.NewAccountDataViewer(r, 0)
	if v.ID(r) != 42 || v.Email(r) != "example@email.com" {
		t.Fatalf("root fields: %d %q", v.ID(r), v.Email(r))
	}
	profiles := v.Profiles(r)
	if len(profiles) != 3 {
		t.Fatalf("profiles: %d", len(profiles))
	}
	// The slice lies over the message: the first element's bytes are the
	// message's, where the array reference points.
	if &profiles[0][0] != &w.Bytes()[r.Uint32(v.Table().Offset+28)] {
		t.Error("the profiles are not a slice over the message")
	}
	for i, p := range profiles {
		want := account.Profiles[i].Data
		d := p.Data(r)
		if d.Network(r) != want.Network || d.Username(r) != want.Username || d.ID(r) != want.ID {
			t.Errorf("profile %d: %v %q %d", i, d.Network(r), d.Username(r), d.ID(r))
		}
	}
	if app.SocialNetworkTikTok.String() != "TikTok" || app.SocialNetwork(9).String() != "SocialNetwork(9)" {
		t.Error("enum names")
	}

	trusted, err := app.ValidateAccountData(r)
	if err != nil {
		t.Fatal(err)
	}
	if trusted.Profiles(r)[1].Data(r).Username(r) != "karmem" {
		t.Error("validated viewer")
	}
}

func hexLines(b []byte) string {
	const digits = "0123456789abcdef"
	var out []byte
	for i := 0; i < len(b); i += 16 {
		out = append(out, digits[i>>12&15], digits[i>>8&15], digits[i>>4&15], digits[i&15], ':')
		for _, x := range b[i:min(i+16, len(b))] {
			out = append(out, ' ', digits[x>>4], digits[x&15])
		}
		out = append(out, '\n')
	}
	return string(out)
}
