#!/usr/bin/env bash
# `rfdb ingest` over many runs stopped by signals (issue 34, item 4): SIGTERM stops after the run
# in progress (exit 143), two SIGINTs stop at once, rolling the run in progress back (exit 130);
# either way stdout holds the whole JSON report, whose committed runs are exactly the runs in
# the database, and `rfdb check` passes. Before the fix both printed nothing (the process died
# of the signal), although runs had committed.
# Usage: ingest_signals.sh RFDB_BINARY WORK_DIR
set -euo pipefail
RFDB=${1:?usage: $0 RFDB_BINARY WORK_DIR}
WORK=${2:?usage: $0 RFDB_BINARY WORK_DIR}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

rm -rf "$WORK"
mkdir -p "$WORK"
N=80
python3 "$ROOT/tools/bench/make_corpus.py" "$WORK/corpus" --runs $N >/dev/null 2>&1 || fail "make_corpus.py failed"
mapfile -t runs < <(find "$WORK/corpus" -mindepth 1 -maxdepth 1 -type d -name 'e2e_*' | sort)
((${#runs[@]} == N)) || fail "expected $N eval dirs, got ${#runs[@]}"

# Start an ingest of every run, wait until its first run committed (the progress line of the
# second), send the signals given, and check exit code, report and database.
# Usage: stop_ingest NAME EXPECTED_EXIT SIGNAL...
stop_ingest() {
  local name=$1 expected=$2
  shift 2
  local db="$WORK/$name.sqlite" out="$WORK/$name.out" err="$WORK/$name.err" prev=""
  "$RFDB" --db "$db" ingest --format json "${runs[@]}" >"$out" 2>"$err" &
  local pid=$!
  for _ in $(seq 1 600); do
    grep -q "^\[2/$N\] ingesting" "$err" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  grep -q "^\[2/$N\] ingesting" "$err" || fail "$name: the first run never committed: $(cat "$err")"
  local first=1
  for sig in "$@"; do
    # Two signals of one kind sent together merge into one delivery: leave the handler time.
    ((first)) || [[ $sig != "$prev" ]] || sleep 0.01
    first=0
    prev=$sig
    kill "-$sig" "$pid" 2>/dev/null || true
  done
  local code=0
  wait "$pid" || code=$?
  [[ $code == "$expected" ]] || fail "$name: exit $code, expected $expected; stderr: $(tail -5 "$err")"
  local stored
  stored=$("$RFDB" --db "$db" runs --format json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
  python3 - "$out" "$stored" "$N" "$name" <<'PY' || fail "$name: the report does not match the database"
import json, sys
out, stored, total, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
report = json.load(open(out))  # the whole document, not a truncated one
committed = [p for p in report["paths"] if p["status"] != "failed"]
failed = [p for p in report["paths"] if p["status"] == "failed"]
assert report["interrupted"] is True and report["ok"] is False, report
assert len(committed) == stored, (len(committed), stored)
assert 1 <= stored < total, f"{stored} of {total} runs stored: the stop came too late to be seen"
# Only a run stopped at once may fail, and it says so.
assert all("interrupted" in p["error"] for p in failed), failed
print(f"ok: {name}: {stored} of {total} runs committed and reported, {len(failed)} rolled back")
PY
  grep -q "^interrupted: $stored runs\? committed" "$err" || fail "$name: no summary line: $(tail -3 "$err")"
  "$RFDB" --db "$db" check --format json >/dev/null || fail "$name: rfdb check failed"
}

stop_ingest sigterm 143 TERM
stop_ingest two_sigints 130 INT INT
stop_ingest sigint_then_sigterm 143 INT TERM
echo "ok: stopped ingests printed their report and kept the database consistent"
