#!/usr/bin/env bash
# The message inspector (ts/web, docs/typescript.md "In the browser") in a
# real headless browser: Debian's Chromium (installed once, through
# apt-ensure), playwright-core from ts/web/package-lock.json (npm ci only
# when that lockfile changed), the page built by scripts/build-web.sh, then
# Node's test runner over ts/web/test. INSPECTOR_SCREENSHOT=1 also rewrites
# docs/img/inspector.png.
set -euo pipefail
cd "$(dirname "$0")/.."
# The browser, and fonts for its text (the screenshot).
scripts/apt-ensure.sh test-browser chromium fonts-dejavu-core
scripts/build-web.sh
cd ts/web
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node --test test/*.test.mjs
