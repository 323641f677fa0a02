// Command integrity is the Go member's command of the cross-language
// integrity suite (docs/integrity.md §4): a long-running process that reads
// requests from standard input, one per line, and answers each with one
// line on standard output, until the input ends.
//
//	go run ./internal/integrity/cmd/integrity   (in go/)
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"karmem.org/go/karmem/internal/integrity"
)

func main() {
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "integrity:", err)
		os.Exit(1)
	}
}

// serve answers every request line of in on out. Lines carry whole
// messages as hex (hundreds of kilobytes), so they are read with
// ReadString, which has no line length limit (bufio.Scanner has one), from
// a large buffer. Each answer is flushed at once: the harness waits for it
// before it sends the next request.
func serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriterSize(out, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return err
		}
		// A blank line is no request (as the Rust member treats it).
		if req := strings.TrimSpace(line); req != "" {
			if _, werr := w.WriteString(integrity.Answer(req) + "\n"); werr != nil {
				return werr
			}
			if werr := w.Flush(); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}
