// e2e-go-caller exports e2e.Driver; its run calls e2e.Echo (direct, copied
// and region-bound arguments) and e2e.Voter (fan-out) from inside a guest.
package main

import (
	"fmt"
	"strings"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/guest"
	"karmem.org/guests/e2e-go-caller/e2e"
)

var (
	echo   = e2e.ImportEcho()
	voters = e2e.ImportVoter()
)

type driver struct{}

// Run answers `echo=<text>/<n> peek=<text>@<offset> votes=<callee>:<status>:<text>,...`.
func (driver) Run(m guest.Arg[e2e.TrustedMsgViewer]) (*e2e.Msg, error) {
	in := &e2e.Msg{Text: m.V.Text(m.T), Number: m.V.Number(m.T)}
	var b strings.Builder

	got, err := echo.Echo(in)
	if err != nil {
		return nil, fmt.Errorf("echo: %w", err)
	}
	fmt.Fprintf(&b, "echo=%s/%d", got.V.Text(got.R), got.V.Number(got.R))

	// A region-bound argument is written into this module's window and
	// passed by position.
	w := karmem.NewWriter(64)
	if _, err := in.WriteAsRoot(w); err != nil {
		return nil, err
	}
	window := e2e.EchoSharedWindow()
	const at = 4096
	n := copy(window[at:], w.Bytes())
	peeked, err := echo.Peek(window[at : at+n])
	if err != nil {
		return nil, fmt.Errorf("peek: %w", err)
	}
	fmt.Fprintf(&b, " peek=%s@%d", peeked.V.Text(peeked.R), peeked.V.Number(peeked.R))

	votes, err := voters.Vote(in)
	if err != nil {
		return nil, fmt.Errorf("vote: %w", err)
	}
	b.WriteString(" votes=")
	for k, v := range votes {
		if k > 0 {
			b.WriteByte(',')
		}
		text := ""
		if v.Err != nil {
			text = v.Err.Error()
		} else {
			text = v.Value.V.Text(v.Value.R)
		}
		fmt.Fprintf(&b, "%d:%v:%s", v.Callee, v.Status, text)
	}
	return &e2e.Msg{Text: b.String()}, nil
}

func init() {
	if err := e2e.RegisterDriver(driver{}); err != nil {
		panic(err)
	}
}

func main() {}
