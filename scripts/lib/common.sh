# Sourced (not run) by the scripts in scripts/, right after `set -euo
# pipefail`:   . "$(dirname "$0")/lib/common.sh"
#
# It sets `root`, the repository's root (absolute), and makes it the current
# directory, so that every script works from any directory; and
# `cargo_target`, cargo's target directory as an absolute path
# ($CARGO_TARGET_DIR, taken from the root as cargo does when it is relative,
# else target/).
caller_dir=$PWD
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
cargo_target=${CARGO_TARGET_DIR:-target}
case $cargo_target in /*) ;; *) cargo_target=$root/$cargo_target ;; esac

# karmem_cli: sets `karmem` to the karmem command, and exports it as KARMEM
# for the scripts this one runs: $KARMEM when set (a command already built,
# e.g. a release build; a relative path is taken from the directory the
# script was started in, a bare name from PATH), else karmem-cli built now, at
# $cargo_target/debug/karmem.
karmem_cli() {
  if [ -n "${KARMEM:-}" ]; then
    case $KARMEM in /*) ;; */*) KARMEM=$caller_dir/$KARMEM ;; esac
    karmem=$KARMEM
  else
    cargo build --quiet -p karmem-cli
    karmem=$cargo_target/debug/karmem
  fi
  export KARMEM=$karmem
}
