# Sourced by the scripts that need a Node package's dev tools (ts/, as/,
# ts/web/, ts/bench/): Node and npm, and `npm ci` only when the lockfile
# changed since the last install (npm writes node_modules/.package-lock.json).

# npm_ci_once WHO DIR: Node 20 comes with this machine's image, elsewhere
# Debian's packages (WHO prefixes apt-ensure's message); then DIR's
# dependencies as its package-lock.json pins them. Run from the
# repository's root.
npm_ci_once() {
  command -v node >/dev/null || scripts/apt-ensure.sh "$1" nodejs npm
  command -v npm >/dev/null || scripts/apt-ensure.sh "$1" npm
  if [ ! -f "$2/node_modules/.package-lock.json" ] \
     || [ "$2/package-lock.json" -nt "$2/node_modules/.package-lock.json" ]; then
    (cd "$2" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}
