// Package bench compares the Go Karmem library with FlatBuffers (flatc
// 2.0.8 + github.com/google/flatbuffers v2.0.8), Protocol Buffers
// (google.golang.org/protobuf), encoding/json and a raw Go struct on the
// game state of crates/karmem-bench (same data, same generator). The
// benchmarks are in bench_test.go; run them with `make bench-go`.
package bench

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"karmem.org/go/karmem/bench/internal/fbgen/bench/fb"
	"karmem.org/go/karmem/bench/internal/pbgen"
	"karmem.org/go/karmem/internal/game"
)

// ToFlatBuffers converts the state to FlatBuffers' object API.
func ToFlatBuffers(s *game.State) *fb.StateT {
	out := &fb.StateT{Monsters: make([]*fb.MonsterT, len(s.Monsters))}
	for i, m := range s.Monsters {
		t := &fb.MonsterT{
			Pos:       &fb.Vec3T{X: m.Pos.X, Y: m.Pos.Y, Z: m.Pos.Z},
			Mana:      m.Mana,
			Health:    m.Health,
			Name:      m.Name,
			Team:      fb.Team(m.Team),
			Inventory: m.Inventory,
			Hitbox:    m.Hitbox[:],
			Status:    m.Status,
			Path:      make([]*fb.Vec3T, len(m.Path)),
		}
		for _, w := range m.Weapons {
			t.Weapons = append(t.Weapons, &fb.WeaponT{Damage: w.Damage, Range: w.Range})
		}
		for j, p := range m.Path {
			t.Path[j] = &fb.Vec3T{X: p.X, Y: p.Y, Z: p.Z}
		}
		out.Monsters[i] = t
	}
	return out
}

// EncodeFlatBuffers packs the object-API state with a reused builder.
func EncodeFlatBuffers(b *flatbuffers.Builder, s *fb.StateT) []byte {
	b.Reset()
	b.Finish(s.Pack(b))
	return b.FinishedBytes()
}

// SumFlatBuffers sums every path coordinate through FlatBuffers accessors.
func SumFlatBuffers(buf []byte) float64 {
	var sum float32
	st := fb.GetRootAsState(buf, 0)
	var m fb.Monster
	var v fb.Vec3
	for i := 0; i < st.MonstersLength(); i++ {
		st.Monsters(&m, i)
		for j := 0; j < m.PathLength(); j++ {
			m.Path(&v, j)
			sum += v.X() + v.Y() + v.Z()
		}
	}
	return float64(sum)
}

// ToProtobuf converts the state to the generated protobuf message.
func ToProtobuf(s *game.State) *pbgen.State {
	out := &pbgen.State{Monsters: make([]*pbgen.Monster, len(s.Monsters))}
	for i, m := range s.Monsters {
		p := &pbgen.Monster{
			Pos:       &pbgen.Vec3{X: m.Pos.X, Y: m.Pos.Y, Z: m.Pos.Z},
			Mana:      int32(m.Mana),
			Health:    int32(m.Health),
			Name:      m.Name,
			Team:      pbgen.Team(m.Team),
			Inventory: m.Inventory,
			Hitbox:    m.Hitbox[:],
			Status:    m.Status,
			Path:      make([]*pbgen.Vec3, len(m.Path)),
		}
		for _, w := range m.Weapons {
			p.Weapons = append(p.Weapons, &pbgen.Weapon{Damage: w.Damage, Range: w.Range})
		}
		for j, v := range m.Path {
			p.Path[j] = &pbgen.Vec3{X: v.X, Y: v.Y, Z: v.Z}
		}
		out.Monsters[i] = p
	}
	return out
}

// SumProtobuf sums every path coordinate of a decoded message.
func SumProtobuf(s *pbgen.State) float64 {
	var sum float32
	for _, m := range s.Monsters {
		for _, p := range m.Path {
			sum += p.X + p.Y + p.Z
		}
	}
	return float64(sum)
}
