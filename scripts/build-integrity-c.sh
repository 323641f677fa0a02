#!/usr/bin/env bash
# Builds the C member of the integrity suite (c/integrity, docs/integrity.md
# §7): generates the C of both schema versions into the build directory
# (not committed), each with its own prefix (integrity_old, integrity_new:
# the schemas' package is the same, and one command links both), compiles
# everything under the strict flags with gcc-12 and clang-19, runs the
# member's own tests (SHA-256 vectors, the protocol) under the sanitizers,
# and leaves the command at $cargo_target/c/integrity/karmem-integrity-c (built
# with clang-19 under AddressSanitizer and UndefinedBehaviorSanitizer, so
# that the suite's messages also check the viewers for bad reads).
# Prints the command's path on its last line.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
out=$cargo_target/c/integrity
karmem_cli
mkdir -p "$out/gen"
for v in old new; do
  # The prefix attribute changes only the C names, not the layout.
  sed "s/^karmem integrity;/karmem integrity @c.prefix(\`integrity_$v\`);/" \
    "testdata/integrity/$v.km" > "$out/gen/integrity_$v.km"
  grep -q "@c.prefix(\`integrity_$v\`)" "$out/gen/integrity_$v.km"
  "$karmem" build --lang c -o "$out/gen" "$out/gen/integrity_$v.km" >/dev/null 2>&1
done
strict=(-std=c11 -Wall -Wextra -Werror -pedantic -Wshadow -Wconversion -Wstrict-prototypes)
sanitize=(-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
src=(c/karmem.c "$out/gen/integrity_old.c" "$out/gen/integrity_new.c"
     c/integrity/member.c c/integrity/old.c c/integrity/new.c c/integrity/sha256.c)
inc=(-I c -I c/integrity -I "$out/gen")
for cc in gcc-12 clang-19; do
  $cc "${strict[@]}" -O2 "${inc[@]}" -o "$out/karmem-integrity-c-$cc" "${src[@]}" c/integrity/main.c
  $cc "${strict[@]}" "${sanitize[@]}" "${inc[@]}" -o "$out/test-integrity-$cc" "${src[@]}" c/integrity/test_integrity.c
  "$out/test-integrity-$cc"
done
clang-19 "${strict[@]}" "${sanitize[@]}" "${inc[@]}" -o "$out/karmem-integrity-c" "${src[@]}" c/integrity/main.c
echo "$out/karmem-integrity-c"
