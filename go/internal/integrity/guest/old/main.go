// Command old is the integrity suite's Go member as a WebAssembly guest for
// testdata/integrity/old.km (docs/integrity.md §6): the producer writes into
// its window of the outbox region, the consumer reads the inbox region in
// place. scripts/build-guests-go.sh builds it into
// guests/out/go-integrity-old.wasm (GOOS=wasip1, a reactor); natively it
// builds and does nothing.
package main

import (
	"errors"

	"karmem.org/go/karmem/guest"
	schema "karmem.org/go/karmem/internal/gen/integrity_old"
	"karmem.org/go/karmem/internal/integrity"
)

const version = integrity.Old

type member struct{}

func (member) Produce(s guest.Arg[schema.TrustedSeedViewer]) ([]byte, error) {
	msg, err := integrity.Produce(version, s.V.Value(s.T))
	if err != nil {
		return nil, err
	}
	window := schema.IntegrityOutboxWindow()
	if len(window) < len(msg) {
		return nil, errors.New("produce: the outbox window is too small")
	}
	return window[:copy(window, msg)], nil
}

func (member) Consume(m guest.Arg[schema.RootViewer]) (*schema.Answer, error) {
	return &schema.Answer{Line: integrity.MessageAnswer("consume", version, m.R.Bytes())}, nil
}

func (member) Stream(m guest.Arg[schema.RootViewer]) (*schema.Answer, error) {
	return &schema.Answer{Line: integrity.MessageAnswer("stream", version, m.R.Bytes())}, nil
}

func (member) Roundtrip(m guest.Arg[schema.RootViewer]) (*schema.Answer, error) {
	return &schema.Answer{Line: integrity.MessageAnswer("roundtrip", version, m.R.Bytes())}, nil
}

func init() {
	if err := schema.RegisterIntegrity(member{}); err != nil {
		panic(err)
	}
}

func main() {}
