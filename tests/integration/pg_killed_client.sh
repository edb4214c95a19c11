#!/usr/bin/env bash
# A client killed (SIGKILL) in the middle of an ingest leaves no partial run: each run is one
# transaction, so every run the server holds afterwards has all the rows a SQLite ingest of it
# stores, nothing else is there, the server holds no transaction of the dead client, and
# ingesting again completes the rest.
source "$(dirname "$0")/pg_lib.sh" "$@"

db=$(new_database killed)
url=$(pg_url_for "$RFDB_TEST_PG_URL" "$db")
mapfile -t runs < <(make_corpus "$WORK/corpus" 120)
ref="$WORK/reference.sqlite"
sqlite_ingest "$ref" "${runs[@]}"

"$RFDB" --db "$url" -q ingest "${runs[@]}" >"$WORK/killed.out" 2>&1 &
pid=$!
# Kill once some runs are committed (so it is mid-ingest, not before it).
for _ in $(seq 1 600); do
  n=$(pgq "$url" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
  if [[ "$n" =~ ^[0-9]+$ ]] && ((n >= 1)); then
    break
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
if kill -KILL "$pid" 2>/dev/null; then
  killed=yes
else
  killed=no # it finished first: the checks below still hold, but the note says so
fi
wait "$pid" 2>/dev/null || true

# The server ends the dead client's backend (and rolls its transaction back) once it sees the
# socket closed; wait for that, then nothing of it may remain.
for _ in $(seq 1 200); do
  left=$(pgq "$RFDB_TEST_PG_URL" "SELECT count(*) FROM pg_stat_activity WHERE datname = '$db' AND pid <> pg_backend_pid()")
  [[ "$left" == 0 ]] && break
  sleep 0.05
done
[[ "$left" == 0 ]] || fail "$left backend(s) of the killed client still open"

stored=$(pgq "$url" "SELECT count(*) FROM runs")
# Every stored run is whole: its shape is the reference's for that run.
diff <(awk -F'|' 'NR == FNR { stored[$1] = 1; next } stored[$1]' <(pgq "$url" "SELECT run_id FROM runs") \
  <(sqlite_run_shape "$ref")) <(pg_run_shape "$url") >&2 ||
  fail "a stored run differs from the reference (a partial run)"
orphans=$(pgq "$url" "SELECT count(*) FROM sources WHERE run_id IS NOT NULL AND run_id NOT IN (SELECT run_id FROM runs)")
[[ "$orphans" == 0 ]] || fail "$orphans source rows of runs that are not stored"
"$RFDB" --db "$url" check >/dev/null || fail "rfdb check after the kill"

# Ingesting again completes the store.
"$RFDB" --db "$url" -q ingest "${runs[@]}" >"$WORK/again.out" 2>&1 || {
  cat "$WORK/again.out" >&2
  fail "ingest after the kill failed"
}
diff <(sqlite_run_shape "$ref") <(pg_run_shape "$url") >&2 || fail "after re-ingest the store differs from the reference"
note "ok: killed=$killed with $stored of ${#runs[@]} runs stored, none partial; re-ingest completed"
