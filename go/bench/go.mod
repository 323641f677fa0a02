module karmem.org/go/karmem/bench

go 1.24

require (
	github.com/google/flatbuffers v2.0.8+incompatible
	google.golang.org/protobuf v1.36.12
	karmem.org/go/karmem v0.0.0
)

replace karmem.org/go/karmem => ../
