#!/usr/bin/env bash
# Install what is missing, check the include layers, build with -Werror + ASan/UBSan, run
# every test through ctest, then the fuzz pass (tools/fuzz/run.sh: every libFuzzer target for 20 s),
# clang-tidy over src/ and the formatting check. Used by the README and .ci/run.
# The tests labelled `postgres` run against a throwaway PostgreSQL 15 cluster (tools/pg-cluster.sh)
# started just before ctest and removed on any exit (failure and Ctrl-C included); here they
# cannot skip (RFDB_TEST_PG_REQUIRED=1). With RFDB_TEST_PG_URL and RFDB_TEST_PG_TCP_URL already
# set, that server is used instead and left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh --with-lint --with-postgres --with-fuzz
bash tools/install-lint.sh
bash tools/check-layers.sh # cheap: fail before the build
preset=${RFDB_TEST_PRESET:-ci}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j 2
pg_dir="" # the cluster this script started, if any
if [[ -z "${RFDB_TEST_PG_URL:-}" ]]; then
  # EXIT runs on success, on a failing command (set -e) and after INT/TERM (turned into exits).
  trap '[[ -z "$pg_dir" ]] || bash tools/pg-cluster.sh stop "$pg_dir"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  pg_env=$(bash tools/pg-cluster.sh start)
  eval "$pg_env"
  pg_dir=$RFDB_TEST_PG_DIR
fi
export RFDB_TEST_PG_URL RFDB_TEST_PG_TCP_URL="${RFDB_TEST_PG_TCP_URL:-$RFDB_TEST_PG_URL}"
export RFDB_TEST_PG_REQUIRED=1
ctest --preset "$preset" -j 2
if [[ -n "$pg_dir" ]]; then
  bash tools/pg-cluster.sh stop "$pg_dir"
  pg_dir=""
fi
# Builds the `fuzz` preset (clang, build/fuzz), then runs each target for 20 s: a crash, leak,
# hang or sanitizer report fails here, naming its reproducer under build/fuzz/fuzz-work/.
bash tools/fuzz/run.sh --time 20
bash tools/run-clang-tidy.sh "build/$preset"
bash tools/check-format.sh
echo "rfdb: all tests passed, clang-tidy and formatting are clean"
