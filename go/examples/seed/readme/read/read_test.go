package read

import "karmem.org/go/karmem/examples/seed/readme"

// The README's reading loop prints each username, read in place.
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
