#!/usr/bin/env bash
# Read commands while another process ingests into the same SQLite file: 50 `rfdb ingest`
# processes one after another, and `rfdb report` and `rfdb priors` in a loop meanwhile. Every read
# exits 0. Before the fix, a report failed with "database disk image is malformed" in about one
# run of twenty: opening a connection read the file's header through a stream of our own, whose
# close dropped the process's locks on the file, and a reader of a WAL file without its -wal was
# opened immutable. A race can pass by luck, never fail by luck: a failure here is a bug.
# Usage: read_during_ingest.sh RFDB_BINARY WORK_DIR
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
python3 "$ROOT/tools/bench/make_corpus.py" "$WORK/corpus" --runs 60 >/dev/null 2>&1 || fail "make_corpus.py failed"
mapfile -t runs < <(find "$WORK/corpus" -mindepth 1 -maxdepth 1 -type d -name 'e2e_*' | sort)
((${#runs[@]} == 60)) || fail "expected 60 eval dirs, got ${#runs[@]}"
db="$WORK/rfdb.sqlite"
"$RFDB" --db "$db" -q ingest "${runs[@]:0:10}" >/dev/null 2>"$WORK/ingest.err" || fail "the first ingest failed"

(
  for run in "${runs[@]:10}"; do
    "$RFDB" --db "$db" -q ingest "$run" >/dev/null 2>>"$WORK/ingest.err" || exit 1
  done
) &
writer=$!
reads=0
failed=0
while kill -0 "$writer" 2>/dev/null; do
  for cmd in report priors; do
    reads=$((reads + 1))
    if ! "$RFDB" --db "$db" -q "$cmd" >"$WORK/out.txt" 2>"$WORK/err.txt"; then
      failed=$((failed + 1))
      cat "$WORK/err.txt" >&2
    fi
  done
done
wait "$writer" || fail "an ingest failed"
((failed == 0)) || fail "$failed of $reads reads failed while another process ingested"
((reads >= 10)) || fail "only $reads reads overlapped the ingests"
n=$("$RFDB" --db "$db" runs --format json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
[[ "$n" == 60 ]] || fail "expected 60 runs, found $n"
echo "ok: $reads reads while 50 ingests ran, none failed"
