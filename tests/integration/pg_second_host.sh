#!/usr/bin/env bash
# A simulated second host: one client over the Unix socket (RFDB_TEST_PG_URL), another over TCP
# to 127.0.0.1 (RFDB_TEST_PG_TCP_URL) with its own connection settings (application_name,
# PGOPTIONS, connect timeout), ingesting distinct runs at the same time into one database. Both
# exit 0 and each sees every run of the other.
source "$(dirname "$0")/pg_lib.sh" "$@"

[[ -n "${RFDB_TEST_PG_TCP_URL:-}" ]] || fail "RFDB_TEST_PG_TCP_URL is not set (tools/pg-cluster.sh start)"
db=$(new_database second_host)
url_a=$(pg_url_for "$RFDB_TEST_PG_URL" "$db")
url_b=$(pg_url_for "$RFDB_TEST_PG_TCP_URL" "$db")
[[ "$(pgq "$url_b" "SELECT inet_client_addr()")" == 127.0.0.1 ]] || fail "host B does not reach the server over TCP"
mapfile -t runs < <(make_corpus "$WORK/corpus" 8)

# Host A: the socket, default settings. Host B: TCP with its own settings.
(
  for r in "${runs[@]:0:4}"; do
    PGAPPNAME=rfdb-host-a "$RFDB" --db "$url_a" -q ingest "$r" || exit 1
  done
) >"$WORK/host_a.out" 2>&1 &
pid_a=$!
(
  for r in "${runs[@]:4:4}"; do
    PGAPPNAME=rfdb-host-b PGCONNECT_TIMEOUT=10 PGOPTIONS="-c statement_timeout=120000 -c lock_timeout=60000" \
      "$RFDB" --db "$url_b" -q ingest "$r" || exit 1
  done
) >"$WORK/host_b.out" 2>&1 &
pid_b=$!
wait "$pid_a" || { cat "$WORK/host_a.out" >&2; fail "host A's ingest failed"; }
wait "$pid_b" || { cat "$WORK/host_b.out" >&2; fail "host B's ingest failed"; }

expected=$(for r in "${runs[@]}"; do basename "$r"; done | sort)
for side in a b; do
  url_var="url_$side"
  seen=$(PGAPPNAME="rfdb-host-$side" "$RFDB" --db "${!url_var}" runs --all --format json |
    python3 -c 'import json,sys; print("\n".join(sorted(r["run_id"] for r in json.load(sys.stdin))))')
  [[ "$seen" == "$expected" ]] || fail "host $side sees: $seen"
done
ref="$WORK/reference.sqlite"
sqlite_ingest "$ref" "${runs[@]}"
diff <(sqlite_run_shape "$ref") <(pg_run_shape "$url_a") >&2 || fail "stored runs differ from the SQLite reference"
note "ok: 8 runs from two clients (socket and 127.0.0.1), both see all"
