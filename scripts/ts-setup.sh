# Sourced by scripts/test-ts.sh and scripts/build-web.sh (from the
# repository root): Node and npm (Node 20 comes with this machine's image;
# elsewhere Debian's packages), the `karmem` command built from this tree
# (its path in $karmem), and ts/'s dev tools installed with `npm ci` again
# only when ts/package-lock.json changed since the last install.
# Usage: . scripts/ts-setup.sh WHO   (WHO prefixes apt-ensure's message)
. scripts/lib/npm.sh
karmem_cli
npm_ci_once "$1" ts
