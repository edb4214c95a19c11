#!/usr/bin/env bash
# Fail when a file under src/ includes a header of a layer it may not use (issue 11).
# Usage: tools/check-layers.sh   (from anywhere; exit 1 and one line per violation)
#
# The layers, lowest first; each may include its own headers and those of the layers listed
# for it (README, "Architecture"). The CMake libraries link in the same order.
# There is no allow-list: a wrong include fails here, and the CMake link fails too.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A allowed=(
  [util]="util"
  [domain]="util domain"
  [store]="util domain store"
  [ingest]="util domain store ingest"
  [calibrate]="util domain store calibrate"
  [report]="util domain store calibrate report"
  [cli]="util domain store ingest calibrate report cli"
)
# Third-party headers confined to one layer: SQLite to the store, CLI11 to the CLI.
declare -A confined=(
  ["SQLiteCpp/"]="store"
  ["sqlite3.h"]="store"
  ["rfdb_sql.hpp"]="store"
  ["CLI/"]="cli"
)

status=0
report() { # report <file> <header> <why>
  echo "$1: includes $2 ($3)"
  status=1
}

while IFS= read -r file; do
  rel=${file#src/}
  layer=${rel%%/*}
  [[ $layer == "$rel" ]] && layer=cli # src/main.cpp sits on top of cli/
  if [[ -z ${allowed[$layer]:-} ]]; then
    echo "$file: folder src/$layer is not a known layer (add it to tools/check-layers.sh)"
    status=1
    continue
  fi
  while IFS= read -r header; do
    for prefix in "${!confined[@]}"; do
      if [[ $header == "$prefix"* && $layer != "${confined[$prefix]}" ]]; then
        report "$file" "$header" "only src/${confined[$prefix]}/ may include it"
      fi
    done
    target=${header%%/*}
    [[ $target == "$header" || -z ${allowed[$target]:-} ]] && continue
    if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
      report "$file" "$header" "$layer/ may use: ${allowed[$layer]}"
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1/p' "$file")
done < <(git ls-files 'src/*.cpp' 'src/*.hpp')

if ((status == 0)); then
  echo "rfdb: layers ok"
fi
exit $status
