// Command seed is the first Karmem README's Go example, run against this
// format: encode with a pooled writer, read a few fields through viewers
// without decoding, and decode into a pooled, reused object.
//
// The package app is generated from testdata/vectors/seed/schema.km (the
// README's schema, unchanged) by `karmem build --lang go`.
package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/examples/seed/app"
)

var writerPool = sync.Pool{New: func() any { return karmem.NewWriter(1024) }}

var accountPool = sync.Pool{New: func() any { return new(app.AccountData) }}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	writer := writerPool.Get().(*karmem.Writer)
	defer writerPool.Put(writer)

	content := app.AccountData{
		ID:    42,
		Email: "example@email.com",
		Profiles: []app.Profile{
			{Data: app.ProfileData{
				Network:  app.SocialNetworkFacebook,
				Username: "inkeliz",
				ID:       123,
			}},
			{Data: app.ProfileData{
				Network:  app.SocialNetworkFacebook,
				Username: "karmem",
				ID:       231,
			}},
			{Data: app.ProfileData{
				Network:  app.SocialNetworkInstagram,
				Username: "inkeliz",
				ID:       312,
			}},
		},
	}

	if _, err := content.WriteAsRoot(writer); err != nil {
		return err
	}

	// The writer's buffer is 64-byte aligned, so it can be read in place.
	encoded := writer.Bytes()
	if err := reads(out, encoded); err != nil {
		return err
	}
	if err := decodes(out, encoded); err != nil {
		return err
	}
	writer.Reset()
	return nil
}

// reads prints each username straight from the message: viewers copy
// nothing. The schema's header says @packed(true), so []Profile is stored
// element after element (AoS) and the profiles are a Go slice of viewers
// over the message, as in the first Karmem.
func reads(out io.Writer, encoded []byte) error {
	reader := karmem.NewReader(encoded)
	if err := reader.Err(); err != nil {
		return err
	}
	account := app.NewAccountDataViewer(reader, 0)

	profiles := account.Profiles(reader)
	for i := range profiles {
		fmt.Fprintln(out, profiles[i].Data(reader).Username(reader))
	}
	return nil
}

// decodes fills a pooled object; decoding the same content again into it
// allocates nothing.
func decodes(out io.Writer, encoded []byte) error {
	account := accountPool.Get().(*app.AccountData)
	defer accountPool.Put(account)
	if err := account.ReadAsRoot(karmem.NewReader(encoded)); err != nil {
		return err
	}

	profiles := account.Profiles
	for i := range profiles {
		fmt.Fprintln(out, profiles[i].Data.Username)
	}
	return nil
}
