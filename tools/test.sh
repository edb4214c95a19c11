#!/usr/bin/env bash
# Install what is missing, check the include layers, build with -Werror + ASan/UBSan, run
# every test through ctest, then clang-tidy over src/ and the formatting check. Used by the README and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh --with-lint
bash tools/install-lint.sh
bash tools/check-layers.sh # cheap: fail before the build
preset=${RFDB_TEST_PRESET:-ci}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j 2
ctest --preset "$preset" -j 2
bash tools/run-clang-tidy.sh "build/$preset"
bash tools/check-format.sh
echo "rfdb: all tests passed, clang-tidy and formatting are clean"
