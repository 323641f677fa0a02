# Shared by scripts/build-guests-{go,c,zig,as}.sh (sourced, not run): which
# schema a guest module is written against, the karmem binary that
# generates its bindings, and the stamps that make the builds incremental.
# A module's stamp (guests/out/<name>.wasm.stamp) hashes everything its
# .wasm is built from; the module is rebuilt only when the stamp differs.

# guest_schema WHO NAME: the schema (a repository path) of the module
# guests/<language>/NAME. Every language's e2e-<language>-echo/-caller pair
# implements the cross-language schema; arena-* modules are arena bots;
# polybench (C) is the compute guest of the bounds-check benchmark.
guest_schema() {
  case "$2" in
    e2e-*-echo | e2e-*-caller) echo guests/polyglot.km ;;
    arena-*) echo examples/arena/arena.km ;;
    polybench) echo guests/c/polybench/polybench.km ;;
    *) echo "$1: no schema known for the module $2" >&2; return 1 ;;
  esac
}

# guest_karmem: sets `karmem` (karmem_cli, common.sh) and makes
# guests/out/. Run from the repository's root.
guest_karmem() {
  karmem_cli
  mkdir -p guests/out
}

# sums: the sha256sum lines of the NUL-separated files on stdin, in a
# stable order.
sums() {
  sort -z | xargs -0 sha256sum
}

# codegen_sums: the generators' sources, an input of every module.
codegen_sums() {
  find crates/karmem-codegen/src -name '*.rs' -print0 | sums
}

# hash64: one 64-digit hash of stdin.
hash64() {
  sha256sum | cut -c1-64
}

# module_stamp SHARED SCHEMA: the stamp of a module built from SHARED (the
# hash of the inputs every module has), SCHEMA and the NUL-separated source
# files on stdin.
module_stamp() {
  { echo "$1"; sha256sum "$2"; sums; } | hash64
}

# stamp_current OUT STAMP: whether OUT exists and was built from STAMP.
stamp_current() {
  [ -f "$1" ] && [ "$(cat "$1.stamp" 2>/dev/null)" = "$2" ]
}

# stamp_install WHO OUT STAMP: moves the fresh build OUT.tmp to OUT and
# records its stamp.
stamp_install() {
  mv "$2.tmp" "$2"
  echo "$3" > "$2.stamp"
  echo "$1: $2 ($(stat -c %s "$2") bytes)"
}
