package bench

import (
	"bytes"
	"encoding/json"
	"syscall"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"google.golang.org/protobuf/proto"

	"karmem.org/go/karmem"
	"karmem.org/go/karmem/bench/internal/fbgen/bench/fb"
	"karmem.org/go/karmem/bench/internal/pbgen"
	"karmem.org/go/karmem/internal/game"
	km "karmem.org/go/karmem/internal/gen/bench_game"
)

// The data of crates/karmem-bench: 1 000 monsters, paths of up to 2 000
// points.
const (
	monsters = 1000
	maxPath  = 2000
)

var (
	state    = game.Generate(monsters, maxPath)
	expected = game.SumPaths(state)

	kmObject = game.ToKarmem(state)
	kmBytes  = encodeKarmem(kmObject)

	fbObject = ToFlatBuffers(state)
	fbBytes  = append([]byte(nil), EncodeFlatBuffers(flatbuffers.NewBuilder(1<<20), fbObject)...)

	pbObject = ToProtobuf(state)
	pbBytes  = encodeProtobuf(pbObject)

	// The small message: one monster with a path of up to 10 points, the
	// size of a plugin call's argument (KARMEM_BENCH_MONSTERS=1
	// KARMEM_BENCH_MAX_PATH=10 on the Rust side).
	smallState   = game.Generate(1, 10)
	smallKmBytes = encodeKarmem(game.ToKarmem(smallState))
	smallPbBytes = encodeProtobuf(ToProtobuf(smallState))

	jsonBytes = func() []byte {
		b, err := json.Marshal(state)
		if err != nil {
			panic(err)
		}
		return b
	}()
)

func encodeKarmem(s *km.State) []byte {
	w := karmem.NewWriter(1 << 10)
	if _, err := s.WriteAsRoot(w); err != nil {
		panic(err)
	}
	return karmem.AlignedCopy(w.Bytes())
}

func encodeProtobuf(s *pbgen.State) []byte {
	b, err := proto.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// Every contender computes the same sum before anything is timed.
func TestSameSum(t *testing.T) {
	check := func(name string, got float64) {
		if got != expected {
			t.Errorf("%s: sum %v, want %v", name, got, expected)
		}
	}
	check("karmem", game.SumKarmem(karmem.NewReader(kmBytes)))
	tr, root, err := km.TrustState(karmem.NewReader(kmBytes))
	if err != nil {
		t.Fatal(err)
	}
	check("karmem-trusted", game.SumTrusted(tr, root))
	check("flatbuffers", SumFlatBuffers(fbBytes))
	var pb pbgen.State
	if err := proto.Unmarshal(pbBytes, &pb); err != nil {
		t.Fatal(err)
	}
	check("protobuf", SumProtobuf(&pb))
	var js game.State
	if err := json.Unmarshal(jsonBytes, &js); err != nil {
		t.Fatal(err)
	}
	check("json", game.SumPaths(&js))
	// The small message, as BenchmarkValidate checks it.
	if _, err := km.ValidateState(karmem.NewReader(smallKmBytes)); err != nil {
		t.Errorf("small message: %v", err)
	}
	if got, want := game.SumKarmem(karmem.NewReader(smallKmBytes)), game.SumPaths(smallState); got != want {
		t.Errorf("small message: karmem sum %v, want %v", got, want)
	}
	t.Logf("message sizes: karmem %d B, flatbuffers %d B, protobuf %d B, json %d B",
		len(kmBytes), len(fbBytes), len(pbBytes), len(jsonBytes))
}

func BenchmarkEncodeObjectAPI(b *testing.B) {
	b.Run("impl=karmem", func(b *testing.B) {
		w := karmem.NewWriter(1 << 20)
		_, _ = kmObject.WriteAsRoot(w) // grow the reused writer once
		loop(b, func() {
			if _, err := kmObject.WriteAsRoot(w); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("impl=flatbuffers", func(b *testing.B) {
		builder := flatbuffers.NewBuilder(1 << 20)
		EncodeFlatBuffers(builder, fbObject) // grow the reused builder once
		loop(b, func() {
			EncodeFlatBuffers(builder, fbObject)
		})
	})
	b.Run("impl=protobuf", func(b *testing.B) {
		buf := make([]byte, 0, len(pbBytes))
		loop(b, func() {
			var err error
			if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf[:0], pbObject); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("impl=json", func(b *testing.B) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		_ = enc.Encode(state)
		loop(b, func() {
			buf.Reset()
			if err := enc.Encode(state); err != nil {
				b.Fatal(err)
			}
		})
	})
}

func BenchmarkDecodeObjectAPI(b *testing.B) {
	b.Run("impl=karmem", func(b *testing.B) {
		r := karmem.NewReader(kmBytes)
		var out km.State
		_ = out.ReadAsRoot(r) // fill the reused object once
		loop(b, func() {
			r.Reset(kmBytes)
			if err := out.ReadAsRoot(r); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("impl=flatbuffers", func(b *testing.B) {
		loop(b, func() {
			_ = fb.GetRootAsState(fbBytes, 0).UnPack()
		})
	})
	b.Run("impl=protobuf", func(b *testing.B) {
		var out pbgen.State
		loop(b, func() {
			if err := proto.Unmarshal(pbBytes, &out); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("impl=json", func(b *testing.B) {
		var out game.State
		loop(b, func() {
			if err := json.Unmarshal(jsonBytes, &out); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkValidate checks a whole received message, nothing else:
// Karmem's generated validator (format.md §11) against protobuf's Unmarshal
// into a reused message, the only step protobuf has that checks its input
// (it also decodes). FlatBuffers Go 2.0.8 has no verifier, and a raw Go
// struct has nothing to check: neither has a row. The game state and the
// small message (one monster, ≤ 10 path points).
func BenchmarkValidate(b *testing.B) {
	for _, fixture := range []struct {
		name   string
		km, pb []byte
	}{
		{"game", kmBytes, pbBytes},
		{"small", smallKmBytes, smallPbBytes},
	} {
		b.Run("msg="+fixture.name+"/impl=karmem", func(b *testing.B) {
			r := karmem.NewReader(fixture.km)
			loop(b, func() {
				r.Reset(fixture.km)
				if _, err := km.ValidateState(r); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("msg="+fixture.name+"/impl=protobuf", func(b *testing.B) {
			var out pbgen.State
			loop(b, func() {
				if err := proto.Unmarshal(fixture.pb, &out); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

var sink float64

func BenchmarkDecodeSumVec3(b *testing.B) {
	b.Run("impl=karmem", func(b *testing.B) {
		r := karmem.NewReader(kmBytes)
		loop(b, func() {
			r.Reset(kmBytes)
			sink = game.SumKarmem(r)
		})
	})
	// The trusted viewers (RATIONALE R5.11): every message is validated
	// (karmem's only extra step here), then read without checks.
	b.Run("impl=karmem-trusted", func(b *testing.B) {
		r := karmem.NewReader(kmBytes)
		loop(b, func() {
			r.Reset(kmBytes)
			t, root, err := km.TrustState(r)
			if err != nil {
				b.Fatal(err)
			}
			sink = game.SumTrusted(t, root)
		})
	})
	b.Run("impl=flatbuffers", func(b *testing.B) {
		loop(b, func() {
			sink = SumFlatBuffers(fbBytes)
		})
	})
	b.Run("impl=protobuf", func(b *testing.B) {
		var out pbgen.State
		loop(b, func() {
			if err := proto.Unmarshal(pbBytes, &out); err != nil {
				b.Fatal(err)
			}
			sink = SumProtobuf(&out)
		})
	})
	b.Run("impl=json", func(b *testing.B) {
		var out game.State
		loop(b, func() {
			if err := json.Unmarshal(jsonBytes, &out); err != nil {
				b.Fatal(err)
			}
			sink = game.SumPaths(&out)
		})
	})
	b.Run("impl=raw", func(b *testing.B) {
		loop(b, func() {
			sink = game.SumPaths(state)
		})
	})
}

// loop runs f as the benchmark body and reports, besides wall time, the
// process CPU time per operation (cpu-ns/op): on a machine shared with other
// jobs, wall time includes waiting for a CPU, CPU time does not.
func loop(b *testing.B, f func()) {
	b.ReportAllocs()
	start := cpuNanos()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
