#!/usr/bin/env bash
# Build the libFuzzer targets (the `fuzz` preset) and run each for a fixed time, one at a time.
# Usage: tools/fuzz/run.sh [--time SECONDS] [--no-build] [TARGET...]
#   --time SECONDS  per target (-max_total_time; default 20: the CI pass of tools/test.sh)
#   --no-build      use build/fuzz as it is
#   TARGET          json topn roofline summaries sweep workflow card playbook_lines index proposal
#                   (default: all, in that order)
# Everything it writes is under build/fuzz/fuzz-work/: the seed corpus assembled from tests/fixtures
# (seeds/<target>, remade on every run), the corpus the fuzzer grows (corpus/<target>, kept from
# run to run), crash/leak/timeout reproducers (crashes/<target>/) and logs (logs/<target>.log).
# Exit 1 when a target crashes, leaks, times out or reports undefined behaviour, naming the
# reproducer and the command that replays it; the per-target executions go to stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."

all_targets=(json topn roofline summaries sweep workflow card playbook_lines index proposal)
seconds=20
build=true
targets=()
while (($# > 0)); do
  case "$1" in
  --time)
    seconds=$2
    shift 2
    ;;
  --no-build)
    build=false
    shift
    ;;
  -h | --help)
    sed -n '2,12p' "$0"
    exit 0
    ;;
  -*)
    echo "usage: tools/fuzz/run.sh [--time SECONDS] [--no-build] [TARGET...]" >&2
    exit 2
    ;;
  *)
    targets+=("$1")
    shift
    ;;
  esac
done
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")

out=build/fuzz
if $build; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz
fi

fixtures=tests/fixtures
# The fixture files that seed a target: find(1) predicates on their names and paths.
seed_files() {
  case "$1" in
  json) find "$fixtures" -type f \( -name '*.json' -o -name '*.json.drained' \) -size -32k ;;
  topn) find "$fixtures" -type f -name 'profile_topN.json' ;;
  roofline) find "$fixtures" -type f \( -name '*_roofline.json' -o -name 'profile_roofline.json' \) ;;
  summaries)
    find "$fixtures" -type f \( -name 'integrate_result.json' -o -name 'opbench_result*.json' \
      -o -name 'bench_summary.json' -o -name 'env_report.json' -o -name 'director_e2e_validation.json' \)
    ;;
  sweep) find "$fixtures" -type f -name 'sweep_results.json' ;;
  workflow) find "$fixtures" -type f -name 'workflow_return.json' ;;
  card)
    find "$fixtures" -type f -name '*.md' \( -path '*/learned/*' -o -path '*/kernel_learned/*' \) \
      ! -name INDEX.md ! -name README.md
    ;;
  playbook_lines) find "$fixtures" -type f -name 'backend_playbook*.md' ;;
  index) find "$fixtures" -type f -name 'INDEX.md' ;;
  proposal) find "$fixtures" -type f -path '*/_inbox/*' \( -name '*.json' -o -name '*.json.drained' \) ;;
  *) return 1 ;;
  esac
}

failed=0
total=0
for t in "${targets[@]}"; do
  bin=$out/tools/fuzz/fuzz_$t
  if [[ ! -x $bin ]]; then
    echo "rfdb: no fuzz target '$t' ($bin; targets: ${all_targets[*]})" >&2
    exit 2
  fi
  seeds=$out/fuzz-work/seeds/$t
  corpus=$out/fuzz-work/corpus/$t
  crashes=$out/fuzz-work/crashes/$t
  log=$out/fuzz-work/logs/$t.log
  rm -rf "$seeds"
  mkdir -p "$seeds" "$corpus" "$crashes" "$(dirname "$log")"
  # Named by content hash, as libFuzzer names its own inputs: identical fixtures seed once.
  while IFS= read -r f; do
    cp "$f" "$seeds/$(sha1sum <"$f" | cut -c1-40)"
  done < <(seed_files "$t")
  # -timeout: an input taking longer than 10 s is a hang (a timeout-* reproducer).
  # -print_funcs=0: no symbolizer for each newly covered function (seconds per target).
  # New inputs go to the first directory (corpus), the seeds are read only.
  status=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$bin" -max_total_time="$seconds" -timeout=10 -print_funcs=0 -print_final_stats=1 \
    -dict="tools/fuzz/$t.dict" -artifact_prefix="$crashes/" "$corpus" "$seeds" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  runs=${runs:-0}
  total=$((total + runs))
  if ((status != 0)); then
    failed=1
    reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY:' "$log" | head -5 >&2 || true
    echo "rfdb: fuzz_$t failed (exit $status) after $runs executions; reproducer: ${reproducer:-none}" >&2
    echo "rfdb: replay it with: $bin ${reproducer:-<file>}   (log: $log)" >&2
  else
    echo "rfdb: fuzz_$t: $runs executions in ${seconds}s, $(find "$seeds" -type f | wc -l) seeds, no crash"
  fi
done
echo "rfdb: fuzz pass: $total executions in ${#targets[@]} targets"
exit "$failed"
