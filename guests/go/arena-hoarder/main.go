// arena-hoarder is a misbehaving Go bot for the arena demo: it plays like a
// bot that never moves for three ticks, then allocates without bound in
// think. The host's memory cap must cut it off (MEMORY_LIMIT) without
// harming the host or the other bots.
package main

import (
	"karmem.org/go/karmem/guest"
	"karmem.org/guests/arena-hoarder/arena"
)

// hoard keeps every allocation reachable, so the GC cannot reclaim it.
var (
	hoard [][]byte
	ticks int
)

type bot struct{}

func (bot) Join(guest.Arg[arena.TrustedRulesViewer]) (*arena.Hello, error) {
	return &arena.Hello{Name: "hoarder", Language: "Go"}, nil
}

func (bot) Think(guest.Arg[arena.StateViewer]) (*arena.Order, error) {
	ticks++
	if ticks > 3 {
		for {
			b := make([]byte, 4<<20)
			b[0] = 1 // touch it: the memory is really used
			hoard = append(hoard, b)
		}
	}
	return &arena.Order{Move: arena.MoveStay}, nil
}

func init() {
	if err := arena.RegisterBot(bot{}); err != nil {
		panic(err)
	}
}

func main() {}
