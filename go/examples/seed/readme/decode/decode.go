// Package decode is the "Decoding" section of the first Karmem README,
// verbatim (see package readme): decoding into a pooled, reused object.
package decode

import (
	"fmt"
	"sync"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/examples/seed/app"
)

var accountPool = sync.Pool{New: func() any { return new(app.AccountData) }}

func decodes(encoded []byte) {
	account := accountPool.Get().(*app.AccountData)
	account.ReadAsRoot(karmem.NewReader(encoded))

	profiles := account.Profiles
	for i := range profiles {
		fmt.Println(profiles[i].Data.Username)
	}

	accountPool.Put(account)
}
