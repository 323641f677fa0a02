// The sums of v1's schema without `@packed(true)`: monsters and paths are
// SoA arrays, this library's default layout (format.md §5.3). Copied
// beside compare_test.go by scripts/bench-go-v1.sh for the `soa` layout.
package compare

import (
	"testing"

	karmem "karmem.org/go/karmem"

	ours "v1compare/ours"
)

// sumColumns sums each path over its three `[]float32` columns, views of
// the message.
func sumColumns(r *karmem.Reader) float32 {
	var sum float32
	monsters := ours.NewMonstersViewer(r, 0).Monsters(r)
	for i := range monsters.Len() {
		path := monsters.At(i).Data(r).Path(r)
		xs, ys, zs := path.X(r), path.Y(r), path.Z(r)
		ys, zs = ys[:len(xs)], zs[:len(xs)]
		for j := range xs {
			sum += xs[j] + ys[j] + zs[j]
		}
	}
	return sum
}

// sumTrustedColumns is sumColumns through the trusted reader (after
// validation, docs/go.md "Trusted reading").
func sumTrustedColumns(r karmem.Trusted, root ours.TrustedMonstersViewer) float32 {
	var sum float32
	monsters := root.Monsters(r)
	for i := range monsters.Len() {
		path := monsters.At(i).Data(r).Path(r)
		xs, ys, zs := path.X(r), path.Y(r), path.Z(r)
		ys, zs = ys[:len(xs)], zs[:len(xs)]
		for j := range xs {
			sum += xs[j] + ys[j] + zs[j]
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
		{"columns", func() float32 { return sumColumns(r) }},
		{"trusted-columns", func() float32 { return sumTrustedColumns(t, root) }},
	}
}
