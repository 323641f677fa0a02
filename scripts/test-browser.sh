#!/usr/bin/env bash
# The message inspector (ts/web, docs/typescript.md "In the browser") in a
# real headless browser: Debian's Chromium (installed once, through
# apt-ensure), playwright-core from ts/web/package-lock.json (npm ci only
# when that lockfile changed), the page built by scripts/build-web.sh, then
# Node's test runner over ts/web/test. INSPECTOR_SCREENSHOT=1 also rewrites
# docs/img/inspector.png.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
# The browser, and fonts for its text (the screenshot).
scripts/apt-ensure.sh test-browser chromium fonts-dejavu-core
scripts/build-web.sh
. scripts/lib/npm.sh
npm_ci_once test-browser ts/web
cd ts/web
node --test test/*.test.mjs
