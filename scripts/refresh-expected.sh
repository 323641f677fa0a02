#!/usr/bin/env bash
# Rewrites testdata/expected from the current generators (`make expected`).
# Run it after an intended change to generated code, and review the diff:
# scripts/check-generated.sh (`make generated`, part of `make test`) fails
# while the committed files and the generators disagree.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
rm -rf testdata/expected
scripts/gen-expected.sh testdata/expected
echo "testdata/expected refreshed; review with: git diff --stat testdata/expected"
