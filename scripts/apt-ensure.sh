#!/usr/bin/env bash
# Installs the Debian packages given as arguments that are not installed
# yet (idempotent; one apt-get update only when something is missing).
# Usage: scripts/apt-ensure.sh WHO PACKAGE...   (WHO prefixes the message)
set -euo pipefail
who=$1; shift
need=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "$who: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
