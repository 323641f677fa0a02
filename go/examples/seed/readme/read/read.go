// Package read is the "Reading" section of the first Karmem README,
// verbatim (see package readme): a loop over a Go slice of viewers.
package read

import (
	"fmt"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/examples/seed/app"
)

func decodes(encoded []byte) {
	reader := karmem.NewReader(encoded)
	account := app.NewAccountDataViewer(reader, 0)

	profiles := account.Profiles(reader)
	for i := range profiles {
		fmt.Println(profiles[i].Data(reader).Username(reader))
	}
}
