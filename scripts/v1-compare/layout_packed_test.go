// The sums of v1's schema as it is written, `@packed(true)`: monsters and
// paths are AoS arrays of inline structs (RATIONALE R2.16). Copied beside
// compare_test.go by scripts/bench-go-v1.sh for the `packed` layout.
package compare

import (
	"testing"

	karmem "karmem.org/go/karmem"

	ours "v1compare/ours"
)

// sumAt is v1's loop in this library: the Go viewers give AoS arrays of
// inline structs as native slices of byte-image viewers (RATIONALE R5.12),
// so the loop is v1's, element by element.
func sumAt(r *karmem.Reader) float32 {
	var sum float32
	monsters := ours.NewMonstersViewer(r, 0).Monsters(r)
	for i := range monsters {
		path := monsters[i].Data(r).Path(r)
		for j := range path {
			sum += path[j].X(r) + path[j].Y(r) + path[j].Z(r)
		}
	}
	return sum
}

// sumValues reads each path as a Go []Vec3 (PathValues): for a struct of
// numbers only the AoS block is that slice's memory on a little-endian
// 64-bit machine (format.md §3, RATIONALE R5.14), so the loop is a native
// slice loop over the message.
func sumValues(r *karmem.Reader) float32 {
	var sum float32
	monsters := ours.NewMonstersViewer(r, 0).Monsters(r)
	for i := range monsters {
		for _, p := range monsters[i].Data(r).PathValues(r) {
			sum += p.X + p.Y + p.Z
		}
	}
	return sum
}

// sumTrustedValues is sumValues through the trusted reader.
func sumTrustedValues(r karmem.Trusted, root ours.TrustedMonstersViewer) float32 {
	var sum float32
	monsters := root.Monsters(r)
	for i := range monsters {
		for _, p := range monsters[i].Data(r).PathValues(r) {
			sum += p.X + p.Y + p.Z
		}
	}
	return sum
}

// sumTrustedAt is sumAt through the trusted reader (after validation,
// docs/go.md "Trusted reading").
func sumTrustedAt(r karmem.Trusted, root ours.TrustedMonstersViewer) float32 {
	var sum float32
	monsters := root.Monsters(r)
	for i := range monsters {
		path := monsters[i].Data(r).Path(r)
		for j := range path {
			sum += path[j].X(r) + path[j].Y(r) + path[j].Z(r)
		}
	}
	return sum
}

func karmemSums(tb testing.TB) []karmemSum {
	r := karmem.NewReader(oursBytes)
	t, root, err := ours.TrustMonsters(karmem.NewReader(oursBytes))
	if err != nil {
		tb.Fatal(err)
	}
	return []karmemSum{
		{"at", func() float32 { return sumAt(r) }},
		{"trusted-at", func() float32 { return sumTrustedAt(t, root) }},
		{"values", func() float32 { return sumValues(r) }},
		{"trusted-values", func() float32 { return sumTrustedValues(t, root) }},
	}
}
