#!/usr/bin/env bash
# Install the Debian packages rfdb needs to build and test, only those missing.
# Usage: tools/install-deps.sh [--with-lint] [--with-postgres] [--with-fuzz]
#   --with-lint      adds Node/npm for markdownlint and clang-tidy
#   --with-postgres  adds the PostgreSQL 15 server and psql, for the tests labelled `postgres`
#                    (tools/pg-cluster.sh starts a throwaway cluster; the demo does not need it)
#   --with-fuzz      adds clang 14 and its compiler-rt (libFuzzer, ASan, UBSan) for the `fuzz`
#                    preset (tools/fuzz/run.sh)
# tools/test.sh passes all three; tools/demo.sh none.
set -euo pipefail

with_lint=false
with_postgres=false
with_fuzz=false
for arg in "$@"; do
  case "$arg" in
  --with-lint) with_lint=true ;;
  --with-postgres) with_postgres=true ;;
  --with-fuzz) with_fuzz=true ;;
  *)
    echo "usage: tools/install-deps.sh [--with-lint] [--with-postgres] [--with-fuzz]" >&2
    exit 2
    ;;
  esac
done

packages=(
  g++ cmake ninja-build pkg-config git ca-certificates
  libsqlitecpp-dev libsqlite3-dev sqlite3 libcli11-dev libfmt-dev nlohmann-json3-dev
  libhowardhinnant-date-dev libgtest-dev libexpected-dev libutfcpp-dev libssl-dev libzstd-dev libsimdjson-dev libyaml-cpp-dev clang-format
  libpq-dev # libpq 15: the PostgreSQL store (--db postgresql://…); its libpq5 is dlopened at run time
  python3 # tools/bench/bench.py (the issue 12 benchmark and its CTest smoke entry)
)
# markdownlint-cli2 (the playbook's lint) runs on Node; any node+npm will do,
# so only install Debian's when none is on PATH.
if $with_lint && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
# clang-tidy (tools/run-clang-tidy.sh, run by tools/test.sh): Debian 12's is clang-tidy 14.
if $with_lint; then
  packages+=(clang-tidy)
fi
# The test command's throwaway server (tools/pg-cluster.sh): initdb, pg_ctl, postgres, psql.
if $with_postgres; then
  packages+=(postgresql postgresql-client)
fi
# The fuzz targets (tools/fuzz/): Debian 12's clang is clang 14; libFuzzer's runtime
# (libclang_rt.fuzzer*.a) and the sanitizers' are in libclang-rt-14-dev.
if $with_fuzz; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
echo "rfdb: installing missing packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
