// The Go side of the quick start (docs/quickstart.md): builds a chat
// message, writes it to the file named by the first argument, then reads
// it back in place and prints it as the other languages do.
package main

import (
	"fmt"
	"os"
	"strings"

	"karmem.org/go/karmem"

	"newcomer/chat"
)

func main() {
	edited := uint64(1700000000)
	msg := chat.Message{
		ID:        42,
		Text:      "hello, world",
		Tags:      map[string]uint32{"wasm": 1, "karmem": 3},
		Reactions: []chat.Reaction{{Emoji: "+1", Count: 5}, {Emoji: "tada", Count: 2}},
		EditedAt:  &edited,
	}
	writer := karmem.NewWriter(256)
	if _, err := msg.WriteAsRoot(writer); err != nil {
		fail(err)
	}
	if err := os.WriteFile(os.Args[1], writer.Bytes(), 0o644); err != nil {
		fail(err)
	}

	reader := karmem.NewReader(writer.Bytes())
	m, err := chat.ValidateMessage(reader)
	if err != nil {
		fail(err)
	}
	var tags []string
	for i := range m.Tags(reader).Len() {
		k, v := m.Tags(reader).At(reader, i)
		tags = append(tags, fmt.Sprintf("%s=%d", k, v))
	}
	var reactions []string
	for _, it := range m.Reactions(reader).All() {
		reactions = append(reactions, fmt.Sprintf("%s=%d", it.Emoji(reader), it.Count(reader)))
	}
	at, ok := m.EditedAt(reader)
	fmt.Printf("message %d %q tags [%s] reactions [%s] edited %d %t\n",
		m.ID(reader), m.Text(reader), strings.Join(tags, " "), strings.Join(reactions, " "), at, ok)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
