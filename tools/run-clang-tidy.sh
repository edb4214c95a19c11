#!/usr/bin/env bash
# Run clang-tidy (.clang-tidy at the root) over every src/ translation unit of a configured
# build, two at a time; fail on any finding. tests/ and tools/ are not checked.
# Usage: tools/run-clang-tidy.sh [BUILD_DIR]   (default build/ci; needs its compile_commands.json)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
runner=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
if [[ -z "$runner" || -z "$tidy" ]]; then
  echo "clang-tidy not found (tools/install-deps.sh --with-lint installs it)" >&2
  exit 1
fi
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "$build/compile_commands.json is missing: configure that build first" >&2
  exit 1
fi
# The positional argument is a regex on the file paths of the compilation database.
# Skipped: calibrate/priors.cpp, whose lambdas capture structured bindings (C++20, which GCC 12
# compiles and clang 14 rejects as an error); drop the skip with clang >= 16.
# -Wno-sign-conversion: clang's -Wconversion includes it, GCC's (the build's judge) does not.
"$runner" -clang-tidy-binary "$tidy" -p "$build" -j 2 -quiet -extra-arg=-Wno-sign-conversion \
  "$PWD/src/(?!calibrate/priors\.cpp)" >"$build/clang-tidy.log" 2>&1 || {
  grep -E 'warning:|error:' "$build/clang-tidy.log" | sort -u >&2 || cat "$build/clang-tidy.log" >&2
  echo "clang-tidy found problems (full log: $build/clang-tidy.log)" >&2
  exit 1
}
echo "rfdb: clang-tidy clean over src/"
