#!/usr/bin/env bash
# Fail when a C++ file under src/, tests/ or tools/ is not clang-format clean.
# Usage: tools/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z "$fmt" ]]; then
  echo "clang-format not found (apt-get install clang-format)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'tools/*.cpp')
if [[ "${1:-}" == "--fix" ]]; then
  "$fmt" -i "${files[@]}"
else
  "$fmt" --dry-run -Werror "${files[@]}"
fi
