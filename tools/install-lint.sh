#!/usr/bin/env bash
# Install the pinned markdownlint-cli2 (tools/lint/package-lock.json) from the
# npm registry into tools/lint/node_modules, unless it is already there.
set -euo pipefail
cd "$(dirname "$0")/lint"
if [[ -x node_modules/.bin/markdownlint-cli2 ]]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "rfdb: npm is missing; run tools/install-deps.sh --with-lint" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error >/dev/null
