// Package readme holds the first Karmem README's Go code, verbatim, in
// three packages — encode, read and decode, one per README section, since
// two sections each define a function named decodes — compiled against the
// package app generated from the README's schema (testdata/vectors/seed/schema.km,
// unchanged). Only the package clauses and import blocks, which the README
// leaves out, are ours. Their tests run the code and check what it prints.
package readme

import (
	"karmem.org/go/karmem"
	"karmem.org/go/karmem/examples/seed/app"
)

// Message is the account of the README's "Encoding" section, encoded: what
// the tests of read and decode give to the README's functions.
func Message() []byte {
	content := app.AccountData{ID: 42, Email: "example@email.com", Profiles: []app.Profile{
		{Data: app.ProfileData{Network: app.SocialNetworkFacebook, Username: "inkeliz", ID: 123}},
		{Data: app.ProfileData{Network: app.SocialNetworkFacebook, Username: "karmem", ID: 231}},
		{Data: app.ProfileData{Network: app.SocialNetworkInstagram, Username: "inkeliz", ID: 312}},
	}}
	w := karmem.NewWriter(1024)
	if _, err := content.WriteAsRoot(w); err != nil {
		panic(err)
	}
	return w.Bytes()
}
