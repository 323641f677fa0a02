package integrity

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"karmem.org/go/karmem"
	v2 "karmem.org/go/karmem/internal/gen/integrity_new"
	v1 "karmem.org/go/karmem/internal/gen/integrity_old"
)

// The schema versions, as the protocol names them.
const (
	Old = "old"
	New = "new"
)

func unknownVersion(version string) error {
	return fmt.Errorf("unknown version %q (want %s or %s)", version, Old, New)
}

// Produce writes the value of seed (§2) with the given version's generated
// writer: producers of every language write these exact bytes.
func Produce(version string, seed uint64) ([]byte, error) {
	// The writer is not reused, so the message it returns is ours.
	w := karmem.NewWriter(4096)
	var err error
	switch version {
	case Old:
		_, err = oldRoot(seed).WriteAsRoot(w)
	case New:
		_, err = newRoot(seed).WriteAsRoot(w)
	default:
		return nil, unknownVersion(version)
	}
	if err != nil {
		return nil, err
	}
	return w.Bytes(), nil
}

// Stream is the canonical bytes of §3: msg validated with the version's
// generated validator, then its root walked with the checked viewers (the
// zero-copy read path, not the decoder), in the version's field order.
func Stream(version string, msg []byte) ([]byte, error) {
	r, err := open(msg)
	if err != nil {
		return nil, err
	}
	var s sink
	switch version {
	case Old:
		root, err := v1.ValidateRoot(r)
		if err != nil {
			return nil, err
		}
		oldWalker{&s, r}.root(root)
	case New:
		root, err := v2.ValidateRoot(r)
		if err != nil {
			return nil, err
		}
		newWalker{&s, r}.root(root)
	default:
		return nil, unknownVersion(version)
	}
	return s.bytes, nil
}

// Consume is the digest of msg read with version: the SHA-256 of Stream's
// bytes, as lowercase hex.
func Consume(version string, msg []byte) (string, error) {
	b, err := Stream(version, msg)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// RoundTrip decodes msg, a message of version, into the version's object
// type and encodes it again: the writer is canonical, so the bytes must be
// msg's. It is a separate request because a message does not say which
// version wrote it: only the harness knows when the consumer's version is
// the message's (the check fails on the other version's messages, as it
// should: fields are added or dropped).
func RoundTrip(version string, msg []byte) error {
	r, err := open(msg)
	if err != nil {
		return err
	}
	w := karmem.NewWriter(len(msg))
	switch version {
	case Old:
		var x v1.Root
		if err := x.ReadAsRoot(r); err != nil {
			return err
		}
		_, err = x.WriteAsRoot(w)
	case New:
		var x v2.Root
		if err := x.ReadAsRoot(r); err != nil {
			return err
		}
		_, err = x.WriteAsRoot(w)
	default:
		return unknownVersion(version)
	}
	if err != nil {
		return err
	}
	if again := w.Bytes(); !bytes.Equal(again, msg) {
		return fmt.Errorf("decoding and encoding again changed the message (%d bytes, then %d; first difference at byte %d)",
			len(msg), len(again), firstDifference(msg, again))
	}
	return nil
}

func firstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// open makes a reader over msg, copying it first if it does not start at
// an 8-byte boundary (format.md §1: the reader would refuse it).
func open(msg []byte) (*karmem.Reader, error) {
	if !karmem.IsAligned(msg) {
		msg = karmem.AlignedCopy(msg)
	}
	r := karmem.NewReader(msg)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// Answer answers one request line of the protocol (§4), without its line
// end:
//
//	produce <old|new> <seed>    → the message as lowercase hex
//	consume <old|new> <hex>     → the digest as lowercase hex
//	stream <old|new> <hex>      → the canonical bytes as lowercase hex
//	roundtrip <old|new> <hex>   → ok (for a message of that version)
//
// and `error <reason>` (on one line) for a bad request or a failure.
func Answer(line string) string {
	a, err := answer(line)
	if err != nil {
		return errorLine(err)
	}
	return a
}

func answer(line string) (string, error) {
	words := strings.Fields(line)
	if len(words) != 3 {
		return "", fmt.Errorf("expected `<command> <old|new> <argument>`, got %q", line)
	}
	cmd, version, arg := words[0], words[1], words[2]
	if version != Old && version != New {
		return "", unknownVersion(version)
	}
	message := func() ([]byte, error) {
		b, err := hex.DecodeString(arg)
		if err != nil {
			return nil, errors.New("the message is not hex")
		}
		return b, nil
	}
	switch cmd {
	case "produce":
		seed, err := strconv.ParseUint(arg, 10, 64)
		if err != nil {
			return "", fmt.Errorf("seed %q: %w", arg, err)
		}
		msg, err := Produce(version, seed)
		if err != nil {
			return "", err
		}
		return hex.EncodeToString(msg), nil
	case "consume", "stream", "roundtrip":
		msg, err := message()
		if err != nil {
			return "", err
		}
		return messageAnswer(cmd, version, msg)
	}
	return "", fmt.Errorf("unknown command %q", cmd)
}

// MessageAnswer is the answer line to consume, stream or roundtrip for
// msg: what a guest member answers for a message it reads in place from
// its window (§6).
func MessageAnswer(cmd, version string, msg []byte) string {
	a, err := messageAnswer(cmd, version, msg)
	if err != nil {
		return errorLine(err)
	}
	return a
}

func messageAnswer(cmd, version string, msg []byte) (string, error) {
	switch cmd {
	case "consume":
		return Consume(version, msg)
	case "stream":
		b, err := Stream(version, msg)
		if err != nil {
			return "", err
		}
		return hex.EncodeToString(b), nil
	case "roundtrip":
		if err := RoundTrip(version, msg); err != nil {
			return "", err
		}
		return "ok", nil
	}
	return "", fmt.Errorf("unknown command %q", cmd)
}

// errorLine is `error <reason>` with the reason on one line.
func errorLine(err error) string {
	return "error " + strings.Join(strings.Fields(err.Error()), " ")
}
