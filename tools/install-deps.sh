#!/usr/bin/env bash
# Install the Debian packages rfdb needs to build and test, only those missing.
# Usage: tools/install-deps.sh [--with-lint]   (--with-lint adds Node/npm for markdownlint and clang-tidy)
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git ca-certificates
  libsqlitecpp-dev libsqlite3-dev sqlite3 libcli11-dev libfmt-dev nlohmann-json3-dev
  libhowardhinnant-date-dev libgtest-dev libexpected-dev libutfcpp-dev libssl-dev libzstd-dev clang-format
  python3 # tools/bench/bench.py (the issue 12 benchmark and its CTest smoke entry)
)
# markdownlint-cli2 (the playbook's lint) runs on Node; any node+npm will do,
# so only install Debian's when none is on PATH.
if [[ "${1:-}" == "--with-lint" ]] && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
# clang-tidy (tools/run-clang-tidy.sh, run by tools/test.sh): Debian 12's is clang-tidy 14.
if [[ "${1:-}" == "--with-lint" ]]; then
  packages+=(clang-tidy)
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
