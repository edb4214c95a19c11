#!/usr/bin/env bash
# The main job on the bundled sample runs: install what is missing, build,
# ingest into a fresh default database, print what landed and the calibrated
# priors, and write the playbook. Database: $RFDB_DB or ./rfdb.sqlite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j 2 --target rfdb
rfdb=build/release/rfdb
db=${RFDB_DB:-rfdb.sqlite}
rm -f "$db" "$db-wal" "$db-shm"
echo "== rfdb ingest (sample runs) → $db"
"$rfdb" --db "$db" ingest tests/fixtures/runs/e2e_*
echo
echo "== rfdb runs"
"$rfdb" --db "$db" runs
echo
echo "== rfdb priors"
"$rfdb" --db "$db" priors --format table
echo
"$rfdb" --db "$db" report -o playbook.md
echo "== playbook written to $(pwd)/playbook.md"
