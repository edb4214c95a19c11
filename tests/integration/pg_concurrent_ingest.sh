#!/usr/bin/env bash
# 16 `rfdb ingest` processes of 16 distinct runs plus 4 of one same run, all at once against one
# fresh PostgreSQL database (its schema made by whichever opens first): every process exits 0 and
# every run lands exactly once, with the sources, attempts, verdicts and bench rows a SQLite
# ingest of the same dirs stores, and the same priors.
source "$(dirname "$0")/pg_lib.sh" "$@"

db=$(new_database concurrent)
url=$(pg_url_for "$RFDB_TEST_PG_URL" "$db")
mapfile -t runs < <(make_corpus "$WORK/corpus" 16)
((${#runs[@]} == 16)) || fail "expected 16 eval dirs, got ${#runs[@]}"
same="$ROOT/tests/fixtures/runs/e2e_Qwen-Qwen3-32B_20260703_142210_9120_p0aa"

pids=()
outs=()
for i in "${!runs[@]}"; do
  outs+=("$WORK/distinct_$i.out")
  "$RFDB" --db "$url" -q ingest "${runs[$i]}" >"${outs[-1]}" 2>&1 &
  pids+=($!)
done
for i in 1 2 3 4; do
  outs+=("$WORK/same_$i.out")
  "$RFDB" --db "$url" -q ingest "$same" >"${outs[-1]}" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "--- ${outs[$i]}:" >&2
    cat "${outs[$i]}" >&2
    failed=$((failed + 1))
  fi
done
((failed == 0)) || fail "$failed of ${#pids[@]} ingest processes failed"

# Exactly once: 17 runs, the one run ingested four times stored once.
n=$(pgq "$url" "SELECT count(*) FROM runs")
[[ "$n" == 17 ]] || fail "expected 17 runs, found $n"
n=$(pgq "$url" "SELECT count(*) FROM runs WHERE run_id = '$(basename "$same")'")
[[ "$n" == 1 ]] || fail "the run ingested by 4 processes is stored $n times"
listed=$("$RFDB" --db "$url" runs --all --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[[ "$listed" == 17 ]] || fail "rfdb runs --all lists $listed runs, expected 17"

# The same content as one SQLite ingest of the same dirs.
ref="$WORK/reference.sqlite"
sqlite_ingest "$ref" "${runs[@]}" "$same"
diff <(sqlite_run_shape "$ref") <(pg_run_shape "$url") >&2 ||
  fail "per-run sources|attempts|verdicts|bench rows differ from the SQLite reference (above)"
diff <("$RFDB" --db "$ref" priors --format json) <("$RFDB" --db "$url" priors --format json) >&2 ||
  fail "priors differ from the SQLite reference"
"$RFDB" --db "$url" check >/dev/null || fail "rfdb check on the PostgreSQL store"
note "ok: 20 concurrent processes, 17 runs, each once"
