#!/usr/bin/env bash
# The main job on the bundled sample runs: install what is missing, build,
# ingest into a demo database of its own, print what landed and the
# calibrated priors, and write the playbook.
#
# Everything goes to build/demo/ (rfdb-demo.sqlite, playbook.md). The demo
# passes --db explicitly: your $RFDB_DB and ./rfdb.sqlite are never read,
# written or deleted.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j 2 --target rfdb
rfdb=build/release/rfdb
out=build/demo
db=$out/rfdb-demo.sqlite
mkdir -p "$out"
# Only the demo's own file is replaced, so a re-run starts fresh.
rm -f "$db" "$db-wal" "$db-shm"
echo "== demo database: $(pwd)/$db (your \$RFDB_DB is left alone)"
echo
echo "== rfdb ingest (sample runs, then the four realistic dev runs)"
"$rfdb" --db "$db" ingest --format table tests/fixtures/runs/e2e_* tests/fixtures/dev-runs/e2e_*[0-9]
echo
echo "== rfdb check (every attempt agrees with the files it cites)"
"$rfdb" --db "$db" check --format table
echo
echo "== rfdb runs"
"$rfdb" --db "$db" runs --format table
echo
echo "== rfdb priors --by class,gfx"
"$rfdb" --db "$db" priors --by class,gfx --format table
echo
"$rfdb" --db "$db" report -o "$out/playbook.md"
echo "== playbook written to $(pwd)/$out/playbook.md"
echo
echo "Try: $rfdb --db $db show e2e_Qwen3.5-27B          (any unique run-id prefix)"
echo "     $rfdb --db $db priors --explain gemm:gfx950"
