package encode

import (
	"testing"

	"karmem.org/go/karmem"
)

// The README's main encodes its account with a pooled writer, panicking on
// an error, and returns the writer to the pool emptied.
func TestReadmeEncodes(t *testing.T) {
	main()
	w := writerPool.Get().(*karmem.Writer)
	if w.Len() != 0 {
		t.Fatalf("the pooled writer holds %d bytes", w.Len())
	}
	main() // a second time, through the reused writer
}
