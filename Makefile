# Entry points for people and CI. Every target installs what it needs.
#   make demo   the arena: build the guest modules (world and bots in Rust, Go, C, Zig and AssemblyScript) and play a game
#               (ARENA_ARGS="--seed 7 --ticks 60" to change it; see karmem-arena --help)
#   make demo-format  the format on its own: generate Rust code for examples/demo, write/validate/read
#   make test   formatting, lints, all tests, the call path's instruction-count gate, generated-code checks, short fuzz
#   make c      the C library's tests, sanitizers and fuzz target (docs/c.md)
#   make zig    the Zig library's tests (docs/zig.md)
#   make ts     the TypeScript library: tsc --strict, unit, vector and property tests (docs/typescript.md)
#   make web    build the message inspector (ts/web) and serve it on http://127.0.0.1:8080/ (WEB_PORT=…)
#   make browser  the inspector's tests in headless Chromium (Debian's chromium, playwright-core)
#   make quickstart  docs/quickstart.md as a newcomer runs it, outside the repository (Go, C, TypeScript, Rust, Zig, AssemblyScript)
#   make as     the AssemblyScript library and generated code: golden vectors, damaged messages (docs/assemblyscript.md)
#   make bench  criterion benchmarks against flatbuffers, rkyv, a plain struct
#   make bench-shapes  Rust: four data shapes against rkyv, flatbuffers, capnp, bitcode, prost
#   make bench-go  Go benchmarks against flatbuffers, protobuf, encoding/json, a raw struct
#   make bench-ts  TypeScript (Node) against flatbuffers, @bufbuild/protobuf, JSON on the same data
#   make bench-python  Python (pure Python, NumPy columns) against flatbuffers, protobuf, JSON on the same data
#   make bench-c   C: the paper's data-layout comparison (AoS, strided, SIMD, SoA, pointers) with Karmem's columns, native and wasm32
#   make bench-batch   the paper's Tables 5/6: write and read 10 and 10 000 readings in C and Zig, native and wasm32, against FlatBuffers, JSON, a raw struct
#   make bench-report        five criterion runs summarised (docs/benchmarks.md)
#   make bench-instructions  callgrind instruction counts of the same operations
#   make bench-build  how long `karmem build` takes (generation + rustfmt/gofmt) on three schemas, and `karmem check` and `build --lang rust` of a generated 1 MB schema
#   make bench-host  host runtime: call overhead (WAT, Rust, Go, C, Zig, AssemblyScript guests), bounds checks (guard pages vs explicit), instances on demand vs pooled, fan-out region vs copy, module start
#   make second-host  the Python host of second-host/ on the five echo modules (scripts/test-second-host.sh)
#   make guests  build the guest modules (guests/rust, guests/go, guests/c, guests/zig, guests/as) into guests/out/
#   make integrity  the cross-language integrity suite with many seeds (INTEGRITY_SEEDS=2000; docs/integrity.md)
#   make fuzz-long  every fuzz target, Rust and Go, for FUZZ_LONG_SECONDS (600) each
SHELL := /bin/bash
CARGO ?= cargo
FUZZ_SECONDS ?= 20
DEMO_DIR := examples/demo

# guests: build the WebAssembly guest modules (guests/out/*.wasm) the e2e tests load
.PHONY: all demo demo-format test setup gate guests second-host integrity fuzz-long lint unit generated expected fuzz go c zig ts as python web browser quickstart go-generate bench bench-shapes bench-go bench-ts bench-python bench-c bench-batch bench-report bench-instructions bench-build bench-host vectors clean

all: test

setup:
	@scripts/setup.sh

ARENA_ARGS ?=

demo: setup guests
	$(CARGO) build --release -p karmem-arena
	./target/release/karmem-arena examples/arena/arena.toml $(ARENA_ARGS)

demo-format: setup
	$(CARGO) build --release -p karmem-cli
	./target/release/karmem check $(DEMO_DIR)/app.km
	./target/release/karmem build --lang rust -o $(DEMO_DIR)/src/generated $(DEMO_DIR)/app.km
	CARGO_TARGET_DIR=$(CURDIR)/target $(CARGO) run --release --quiet --manifest-path $(DEMO_DIR)/Cargo.toml

test: setup lint unit gate second-host generated fuzz go c zig ts as python browser quickstart
	@echo "make test: all checks passed"

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) fmt --manifest-path guests/rust/Cargo.toml --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	# The guest code for wasm32, the target it is built for.
	scripts/clippy-guests.sh
	# The library crates can be published (versions, files inside the crate).
	scripts/check-package.sh

# The e2e tests (crates/karmem-e2e) load real guest modules: build them first.
guests: setup
	scripts/build-guests.sh

unit: guests
	$(CARGO) test --workspace
	# The arena's rules and tactics, natively (their crates also build for wasm32).
	$(CARGO) test --manifest-path guests/rust/Cargo.toml -p arena-world -p arena-tactics

# The call path's instruction counts against their committed budget
# (callgrind; scripts/callgrind-gate.sh, docs/benchmarks.md).
gate:
	scripts/callgrind-gate.sh

# A second host, in Python on PyPI's wasmtime, written from docs/abi.md: the
# five echo modules after `karmem rewrite` (scripts/test-second-host.sh).
second-host: guests
	scripts/test-second-host.sh

# Generated code must pass rustfmt and clippy exactly as a user would build it.
# ... and must equal the committed expected output (testdata/expected).
generated:
	scripts/check-generated.sh

# Rewrite testdata/expected after an intended change to generated code.
expected:
	scripts/refresh-expected.sh

fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

# The Go target: library, generated code, vectors, wasip1, fuzz (scripts/test-go.sh).
go: setup
	scripts/test-go.sh

# The C library: strict warnings (gcc-12, clang-19), tests under ASan+UBSan,
# wasm32-wasi build, libFuzzer (scripts/test-c.sh, docs/c.md).
c:
	scripts/test-c.sh

# The Zig library: zig fmt, tests in Debug and ReleaseSafe (scripts/test-zig.sh, docs/zig.md).
zig:
	scripts/test-zig.sh

# The TypeScript library and generated code: npm ci, tsc --strict, node --test
# (scripts/test-ts.sh, docs/typescript.md).
ts:
	scripts/test-ts.sh

# The Python backend and runtime: ruff, mypy --strict and the golden
# vectors through generated code (scripts/test-python.sh, docs/python.md).
python:
	scripts/test-python.sh

# The message inspector, a static page over the TypeScript library
# (scripts/build-web.sh, ts/web/serve.mjs; docs/typescript.md "In the browser").
WEB_PORT ?= 8080
web:
	scripts/build-web.sh
	node ts/web/serve.mjs $(WEB_PORT)

# Its tests in a real headless Chromium (scripts/test-browser.sh).
browser:
	scripts/test-browser.sh

# docs/quickstart.md's programs, outside the repository (scripts/test-quickstart.sh).
quickstart:
	scripts/test-quickstart.sh
# The AssemblyScript library and generated code: npm ci, asc, golden vectors,
# damaged messages under Node (scripts/test-as.sh, docs/assemblyscript.md).
as:
	scripts/test-as.sh

# Regenerate the committed Go code (go/internal/gen, go/examples/seed/app).
go-generate:
	$(CARGO) run --quiet -p karmem-vectors-go -- go

bench-go: setup
	scripts/bench-go.sh

bench-ts:
	scripts/bench-ts.sh

# Python (pure Python, NumPy columns) against FlatBuffers', protobuf's packages and JSON (scripts/bench-python.sh).
bench-python: setup
	scripts/bench-python.sh

# The paper's data-layout comparison in C, native and wasm32 (docs/benchmarks.md).
bench-c:
	scripts/bench-c.sh

# The paper's serialisation benchmark (its Tables 5 and 6) in C and Zig.
bench-batch:
	scripts/bench-batch.sh

bench: setup
	$(CARGO) bench -p karmem-bench --bench game
	$(CARGO) bench -p karmem-bench --bench write_paths

# Results: docs/benchmarks.md "Rust: five peers, four shapes".
bench-shapes: setup
	$(CARGO) bench -p karmem-bench-shapes --bench shapes

bench-build: setup
	$(CARGO) bench -p karmem-cli --bench build

bench-report: setup
	scripts/bench-report.py 5

bench-instructions: setup
	scripts/bench-instructions.sh

# Results and the plot go to docs/benchmarks.md ("Runtime") and docs/img/.
# The call benchmarks load the real guest modules: `guests` builds them.
bench-host: setup guests
	$(CARGO) bench -p karmem-e2e --bench calls
	$(CARGO) bench -p karmem-e2e --bench bounds
	$(CARGO) bench -p karmem-e2e --bench instances
	$(CARGO) bench -p karmem-host --bench host
	python3 -c "import matplotlib" 2>/dev/null || python3 -m pip install --quiet matplotlib
	python3 scripts/plot-fanout.py target/criterion

# Rewrite golden vector bytes from their JSON values (review the diff!).
INTEGRITY_SEEDS ?= 2000
FUZZ_LONG_SECONDS ?= 600

# The C, TypeScript, Zig and AssemblyScript members take part when built (by
# make c / make ts / make zig / make as, or scripts/build-integrity-{c,zig,as}.sh
# and scripts/test-ts.sh); the Python member always (its modules are
# generated here, python/integrity).
INTEGRITY_C ?= $(abspath $(wildcard $(or $(CARGO_TARGET_DIR),target)/c/integrity/karmem-integrity-c))
INTEGRITY_TS ?= $(abspath $(wildcard ts/dist/integrity/main.js))
INTEGRITY_ZIG ?= $(abspath $(wildcard $(or $(CARGO_TARGET_DIR),target)/zig/integrity/karmem-integrity-zig))
INTEGRITY_AS ?= $(abspath $(wildcard $(or $(CARGO_TARGET_DIR),target)/as/integrity/main.mjs))
INTEGRITY_PY_GEN := $(abspath $(or $(CARGO_TARGET_DIR),target)/python-integrity)

integrity: setup guests
	for v in old new; do \
	  $(CARGO) run -q -p karmem-cli --no-default-features -- build --lang python \
	    -o $(INTEGRITY_PY_GEN)/$$v testdata/integrity/$$v.km || exit 1; \
	done
	KARMEM_INTEGRITY_C=$(INTEGRITY_C) KARMEM_INTEGRITY_TS=$(INTEGRITY_TS) KARMEM_INTEGRITY_ZIG=$(INTEGRITY_ZIG) \
	  KARMEM_INTEGRITY_AS=$(INTEGRITY_AS) \
	  KARMEM_INTEGRITY_PY=$(abspath python/integrity/main.py) KARMEM_INTEGRITY_PY_GEN=$(INTEGRITY_PY_GEN) \
	  INTEGRITY_SEEDS=$(INTEGRITY_SEEDS) $(CARGO) test -p karmem-integrity --test suite
	INTEGRITY_SEEDS=$(INTEGRITY_SEEDS) $(CARGO) test -p karmem-e2e --test integrity

# Every fuzz target (Rust and Go) for FUZZ_LONG_SECONDS each (docs/integrity.md §8).
fuzz-long: setup guests
	scripts/fuzz-long.sh $(FUZZ_LONG_SECONDS)

vectors:
	KARMEM_REGEN=1 $(CARGO) test -p karmem-json --test vectors

clean:
	$(CARGO) clean
