#!/usr/bin/env bash
# Lint what `rfdb report` writes: ingest the sample runs and the fixture
# knowledge into a scratch database, render the playbook and its cards, and
# run the pinned markdownlint-cli2 on them. Fails when the linter is missing.
# Usage: tools/lint-playbook.sh PATH/TO/rfdb
set -euo pipefail
rfdb=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
lint="$root/tools/lint/node_modules/.bin/markdownlint-cli2"
if [[ ! -x "$lint" ]]; then
  echo "markdownlint-cli2 is not installed: run tools/install-lint.sh" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/rfdb.sqlite"
"$rfdb" --db "$db" ingest -q "$root"/tests/fixtures/runs/e2e_* >/dev/null
"$rfdb" --db "$db" ingest -q "$root/tests/fixtures/knowledge/backend_playbook.md" >/dev/null
mkdir -p "$work/out"
"$rfdb" --db "$db" report -o "$work/out/playbook.md" --cards "$work/out/cards" 2>/dev/null
"$rfdb" --db "$work/empty.sqlite" migrate >/dev/null # an empty database
"$rfdb" --db "$work/empty.sqlite" report -o "$work/out/empty.md" 2>/dev/null
# The realistic dev runs with the legacy-knowledge fixture: imported lines,
# merged duplicates, cautions from imported negatives.
"$rfdb" --db "$work/dev.sqlite" ingest -q "$root"/tests/fixtures/dev-runs/e2e_*/ >/dev/null
"$rfdb" --db "$work/dev.sqlite" ingest -q "$root/tests/fixtures/knowledge/playbook/learned" \
  "$root/tests/fixtures/knowledge/playbook/backend_playbook.md" >/dev/null
"$rfdb" --db "$work/dev.sqlite" report -o "$work/out/dev.md" --cards "$work/out/dev_cards" 2>/dev/null
# GEAK kb trees next to the dev runs: kb record lines, kb-only lines and retired-record cautions.
"$rfdb" --db "$work/kb.sqlite" ingest -q "$root"/tests/fixtures/dev-runs/e2e_*/ \
  "$root/tests/fixtures/kb/store" "$root/tests/fixtures/kb/kb_artifacts" >/dev/null 2>&1
"$rfdb" --db "$work/kb.sqlite" report -o "$work/out/kb.md" --cards "$work/out/kb_cards" 2>/dev/null
cp "$root/.markdownlint-cli2.jsonc" "$work/out/"
cd "$work/out"
"$lint" "playbook.md" "empty.md" "cards/*.md" "dev.md" "dev_cards/*.md" "kb.md" "kb_cards/*.md"
