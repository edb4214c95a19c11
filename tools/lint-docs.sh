#!/usr/bin/env bash
# Lint the user documentation (README.md and docs/*.md) with the pinned
# markdownlint-cli2 and the repository's configuration. Fails when the
# linter is missing (tools/install-lint.sh installs it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lint="$root/tools/lint/node_modules/.bin/markdownlint-cli2"
if [[ ! -x "$lint" ]]; then
  echo "markdownlint-cli2 is not installed: run tools/install-lint.sh" >&2
  exit 1
fi
cd "$root"
"$lint" README.md "docs/*.md"
