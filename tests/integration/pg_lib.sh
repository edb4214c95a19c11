# Shared by the tests/integration/pg_*.sh tests (sourced): the rfdb binary, a work dir, the
# throwaway server of tools/pg-cluster.sh and a fresh database on it, a SQLite reference.
# Usage in a test: source "$(dirname "$0")/pg_lib.sh" "$@"   (args: RFDB_BINARY WORK_DIR)
set -euo pipefail

RFDB=${1:?usage: $0 RFDB_BINARY WORK_DIR}
WORK=${2:?usage: $0 RFDB_BINARY WORK_DIR}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TEST_NAME=$(basename "$0" .sh)

fail() {
  echo "$TEST_NAME: FAIL: $*" >&2
  exit 1
}
note() {
  echo "$TEST_NAME: $*" >&2
}

# Skip (exit 77, ctest's SKIP_RETURN_CODE) without a server, unless it is required.
if [[ -z "${RFDB_TEST_PG_URL:-}" ]]; then
  if [[ "${RFDB_TEST_PG_REQUIRED:-}" == "1" ]]; then
    fail "RFDB_TEST_PG_REQUIRED=1 but RFDB_TEST_PG_URL is not set (tools/pg-cluster.sh start)"
  fi
  echo "$TEST_NAME: skipped: no PostgreSQL server (RFDB_TEST_PG_URL is not set; tools/pg-cluster.sh start)"
  exit 77
fi
command -v psql >/dev/null || fail "psql not found (tools/install-deps.sh --with-postgres)"
command -v sqlite3 >/dev/null || fail "sqlite3 not found (tools/install-deps.sh)"
[[ -x "$RFDB" ]] || fail "no rfdb binary at $RFDB"

rm -rf "$WORK"
mkdir -p "$WORK"

# URL with its database (last path component) replaced: pg_url_for URL DBNAME
pg_url_for() {
  local base=${1%%\?*} rest=""
  [[ "$1" == *\?* ]] && rest="?${1#*\?}"
  echo "${base%/*}/$2$rest"
}

# A fresh database on the server; prints its name.
new_database() {
  local name="${1}_$$_${RANDOM}"
  psql "$RFDB_TEST_PG_URL" -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$name\"" >/dev/null ||
    fail "cannot create database $name"
  echo "$name"
}

# psql -At on URL: pgq URL SQL
pgq() {
  psql "$1" -X -q -A -t -v ON_ERROR_STOP=1 -c "$2"
}

# Per stored run: run_id|sources|attempts|verdicts|bench rows, sorted. The same text from
# PostgreSQL (psql) and SQLite (sqlite3) for the same content.
k_run_shape="SELECT r.run_id
  || '|' || (SELECT count(*) FROM sources s WHERE s.run_id = r.run_id)
  || '|' || (SELECT count(*) FROM attempts a WHERE a.run_id = r.run_id)
  || '|' || (SELECT count(*) FROM verdicts v WHERE v.run_id = r.run_id)
  || '|' || (SELECT count(*) FROM bench_summaries b WHERE b.run_id = r.run_id)
  FROM runs r ORDER BY r.run_id"
pg_run_shape() {
  pgq "$1" "$k_run_shape"
}
sqlite_run_shape() {
  sqlite3 -readonly "$1" "$k_run_shape"
}

# The reference: the same dirs ingested into a SQLite file by one process: sqlite_ingest DB DIR...
sqlite_ingest() {
  local db=$1
  shift
  "$RFDB" --db "$db" -q ingest "$@" >"$db.out" 2>&1 || {
    cat "$db.out" >&2
    fail "reference SQLite ingest failed"
  }
}

# N distinct eval dirs (new run ids, distinct measurements) under DIR: make_corpus DIR N
make_corpus() {
  python3 "$ROOT/tools/bench/make_corpus.py" "$1" --runs "$2" >/dev/null || fail "make_corpus.py failed"
  find "$1" -mindepth 1 -maxdepth 1 -type d -name 'e2e_*' | sort
}
