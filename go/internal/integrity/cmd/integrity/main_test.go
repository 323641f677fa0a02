package main

import (
	"strings"
	"testing"

	"karmem.org/go/karmem/internal/integrity"
)

func TestServe(t *testing.T) {
	// Hundreds of kilobytes of hex on one line; blank lines; no line end at the end.
	msg := integrity.Answer("produce old 3")
	in := "produce old 3\n\n  \nconsume new " + msg + "\nfrobnicate\nconsume old " + msg
	var out strings.Builder
	if err := serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d answers, want 4 (blank lines are no requests)", len(lines))
	}
	if lines[0] != msg {
		t.Error("produce answered another message")
	}
	if lines[1] != integrity.Answer("consume new "+msg) || lines[3] != integrity.Answer("consume old "+msg) {
		t.Error("consume answered another digest")
	}
	if !strings.HasPrefix(lines[2], "error ") {
		t.Errorf("an unknown command answered %q", lines[2])
	}
}
