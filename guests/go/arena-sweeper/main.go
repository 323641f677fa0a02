// arena-sweeper is a well-behaved Go bot for the arena demo
// (examples/arena/arena.km): each tick it reads the State in place from
// the `board` region and walks towards the nearest coin.
package main

import (
	"karmem.org/go/karmem/guest"
	"karmem.org/guests/arena-sweeper/arena"
)

const name = "sweeper"

type bot struct{}

func (bot) Join(guest.Arg[arena.TrustedRulesViewer]) (*arena.Hello, error) {
	return &arena.Hello{Name: name, Language: "Go"}, nil
}

func (bot) Think(state guest.Arg[arena.StateViewer]) (*arena.Order, error) {
	r, s := state.R, state.V
	me, found := arena.Point{}, false
	for _, p := range s.Players(r).All() {
		if p.Name(r) == name {
			at := p.At(r)
			me, found = arena.Point{X: at.X(r), Y: at.Y(r)}, true
			break
		}
	}
	if !found {
		return &arena.Order{Move: arena.MoveStay}, nil
	}
	coins := s.Coins(r)
	return &arena.Order{Move: towards(me, nearest(me, coins.X(r), coins.Y(r)))}, nil
}

// nearest is the coin closest to me by Manhattan distance (me itself when
// there is none). The coins' columns are slices over the board region.
func nearest(me arena.Point, xs, ys []int16) arena.Point {
	best, bestDist := me, -1
	for i := range min(len(xs), len(ys)) {
		at := arena.Point{X: xs[i], Y: ys[i]}
		if d := abs(int(at.X)-int(me.X)) + abs(int(at.Y)-int(me.Y)); bestDist < 0 || d < bestDist {
			best, bestDist = at, d
		}
	}
	return best
}

// towards is one step from me to target: along X first, then Y. North is
// towards smaller Y.
func towards(me, target arena.Point) arena.Move {
	switch {
	case target.X > me.X:
		return arena.MoveEast
	case target.X < me.X:
		return arena.MoveWest
	case target.Y > me.Y:
		return arena.MoveSouth
	case target.Y < me.Y:
		return arena.MoveNorth
	}
	return arena.MoveStay
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func init() {
	if err := arena.RegisterBot(bot{}); err != nil {
		panic(err)
	}
}

func main() {}
