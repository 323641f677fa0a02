// Package game is the benchmark game state (crates/karmem-bench: 1 000
// monsters with a position, name, inventory, hitbox, status, weapons and a
// path of up to 2 000 points) as plain Go structs, its deterministic
// generator (the same xorshift sequence as the Rust benchmark, so both see
// the same data), and the Karmem side of the benchmark: conversion to the
// generated object type and the path sum through viewers.
package game

import (
	"fmt"

	"karmem.org/go/karmem"
	km "karmem.org/go/karmem/internal/gen/bench_game"
)

type Vec3 struct{ X, Y, Z float32 }

type Weapon struct{ Damage, Range int32 }

type Monster struct {
	Pos       Vec3
	Mana      int16
	Health    int16
	Name      string
	Team      uint8
	Inventory []uint8
	Hitbox    [4]float64
	Status    []int32
	Weapons   []Weapon
	Path      []Vec3
}

type State struct{ Monsters []Monster }

type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*r = rng(x)
	return x
}

func (r *rng) below(n uint64) uint64 { return r.next() % n }

func (r *rng) f32() float32 { return float32(r.below(1<<20))/1024 - 512 }

// Generate returns monsters monsters, each with a path of 1..=maxPath
// points.
func Generate(monsters, maxPath int) *State {
	r := rng(0x9E3779B97F4A7C15)
	names := [4]string{"Brave", "Wise", "Quick", "Grim"}
	s := &State{Monsters: make([]Monster, monsters)}
	for i := range s.Monsters {
		m := &s.Monsters[i]
		m.Pos = Vec3{r.f32(), r.f32(), r.f32()}
		m.Mana = int16(r.below(1000))
		m.Health = int16(r.below(1000))
		m.Name = fmt.Sprintf("Monster %d the %s", i, names[i%4])
		m.Team = uint8(i % 5)
		m.Inventory = make([]uint8, r.below(128))
		for j := range m.Inventory {
			m.Inventory[j] = uint8(r.below(256))
		}
		for j := range m.Hitbox {
			m.Hitbox[j] = float64(r.f32())
		}
		m.Status = make([]int32, r.below(16))
		for j := range m.Status {
			m.Status[j] = int32(r.next())
		}
		m.Weapons = make([]Weapon, r.below(5))
		for j := range m.Weapons {
			m.Weapons[j] = Weapon{Damage: int32(r.below(100)), Range: int32(r.below(50))}
		}
		m.Path = make([]Vec3, 1+r.below(uint64(maxPath)))
		for j := range m.Path {
			m.Path[j] = Vec3{r.f32(), r.f32(), r.f32()}
		}
	}
	return s
}

// SumPaths is the reference result: the sum of every coordinate of every
// path point (the raw-struct contender of DecodeSumVec3).
func SumPaths(s *State) float64 {
	var sum float32
	for i := range s.Monsters {
		for _, p := range s.Monsters[i].Path {
			sum += p.X + p.Y + p.Z
		}
	}
	return float64(sum)
}

// ToKarmem converts the state to the generated object type.
func ToKarmem(s *State) *km.State {
	out := &km.State{Monsters: make([]km.Monster, len(s.Monsters))}
	for i, m := range s.Monsters {
		d := &out.Monsters[i].Data
		d.Pos = km.Vec3{X: m.Pos.X, Y: m.Pos.Y, Z: m.Pos.Z}
		d.Mana, d.Health, d.Name, d.Team = m.Mana, m.Health, m.Name, km.Team(m.Team)
		d.Inventory = append([]uint8(nil), m.Inventory...)
		d.Hitbox = m.Hitbox
		d.Status = append([]int32(nil), m.Status...)
		for _, w := range m.Weapons {
			d.Weapons = append(d.Weapons, km.Weapon{Data: km.WeaponData{Damage: w.Damage, Range: w.Range}})
		}
		d.Path = make([]km.Vec3, len(m.Path))
		for j, p := range m.Path {
			d.Path[j] = km.Vec3{X: p.X, Y: p.Y, Z: p.Z}
		}
	}
	return out
}

// SumKarmem sums every path coordinate through viewers: per monster one
// SoA directory scan of its path, then three native []float32 columns.
func SumKarmem(r *karmem.Reader) float64 {
	var sum float32
	monsters := km.NewStateViewer(r, 0).Monsters(r)
	for i := range monsters.Len() {
		path := monsters.At(i).Data(r).Path(r)
		sum = sumColumns(sum, path.X(r), path.Y(r), path.Z(r))
	}
	return float64(sum)
}

// sumColumns adds the points of one path, given as its three columns, to
// sum (in the raw struct's order, so that the sums are equal).
func sumColumns(sum float32, xs, ys, zs []float32) float32 {
	n := min(len(xs), len(ys), len(zs))
	xs, ys, zs = xs[:n], ys[:n], zs[:n]
	for j := range xs {
		sum += xs[j] + ys[j] + zs[j]
	}
	return sum
}

// SumTrusted is SumKarmem over a validated message (km.TrustState), through
// the trusted viewers.
func SumTrusted(t karmem.Trusted, root km.TrustedStateViewer) float64 {
	var sum float32
	monsters := root.Monsters(t)
	for i := range monsters.Len() {
		path := monsters.At(i).Data(t).Path(t)
		sum = sumColumns(sum, path.X(t), path.Y(t), path.Z(t))
	}
	return float64(sum)
}
