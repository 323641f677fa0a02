# Sourced by the Go scripts: puts Go's tools on PATH and installs, when
# missing, what the Go target needs (idempotent). Versions are pinned.
#   wazero      runs the wasip1 tests (go test -exec via go_wasip1_wasm_exec)
#   staticcheck lints the library and the generated code
#   protoc, protoc-gen-go, flatc  the benchmark peers' code generators
#   benchstat   benchmark tables
WAZERO_VERSION=v1.12.0
STATICCHECK_VERSION=v0.8.2
PROTOC_GEN_GO_VERSION=v1.36.12
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da

export PATH="$PATH:$(go env GOPATH)/bin:$(go env GOROOT)/lib/wasm"
export GOWASIRUNTIME=wazero

go_install() { # command module@version
  command -v "$1" >/dev/null 2>&1 || GOFLAGS=-buildvcs=false go install "$2"
}

apt_install() { # command package
  if ! command -v "$1" >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$2" >/dev/null
  fi
}

go_test_tools() {
  go_install wazero "github.com/tetratelabs/wazero/cmd/wazero@$WAZERO_VERSION"
  go_install staticcheck "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
}

# The peers' code generators (the benchmarks are compiled by make test too).
go_bench_tools() {
  apt_install flatc flatbuffers-compiler
  apt_install protoc protobuf-compiler
  go_install protoc-gen-go "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
}

go_benchstat() {
  go_install benchstat "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION"
}

# The peers' generated code (not committed: regenerated from the schemas).
go_bench_generate() { # repo root
  local bench="$1/go/bench"
  rm -rf "$bench/internal/fbgen" "$bench/internal/pbgen"
  flatc --go --gen-object-api -o "$bench/internal/fbgen" "$bench/game.fbs"
  mkdir -p "$bench/internal/pbgen"
  protoc --go_out="$bench/internal/pbgen" --go_opt=paths=source_relative -I "$bench" "$bench/game.proto"
}
