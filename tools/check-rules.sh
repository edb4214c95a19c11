#!/usr/bin/env bash
# Fail when a rule value (a threshold, band edge, cap or shrink strength) appears as a numeric
# literal outside src/domain/ (issue 29: every rule once). The rules live in src/domain/roofline.hpp;
# code uses its constants and the named queries take them as bound parameters (:iso_win_min,
# :e2e_noise_pct, :head_min_pct, bound by store::run_named_query).
# Usage: tools/check-rules.sh   (from anywhere; exit 1 and one line per literal found)
#
# Searched: src/**/*.{cpp,hpp} outside src/domain/, and queries/*.sql, queries/postgresql/*.sql,
# comments stripped (a comment may cite a rule's value; code and string literals, which reach the
# user, may not: format them from the constant). A value is found as a numeric literal: not part of
# a longer number or a name ("1.034" but not "11.034", "1.0345" or "x1.034").
set -euo pipefail
cd "$(dirname "$0")/.."

# The rule values searched in C++ (value: the domain constant it belongs to). Values too common in
# arithmetic to search in C++ (0.5, 2.0, 0.9·x …) are searched in SQL only, where every number
# besides 0, 1, 2 and round()'s digits is a rule.
cpp_values=(
  1.034  # 1 + domain::k_iso_noise (isolated win)
  0.034  # domain::k_iso_noise
  3.4    # domain::k_iso_noise in percent (prose)
  0.966  # 1 − domain::k_iso_noise
  1.25   # domain::k_disputed_headroom_ratio
  1.05   # domain::k_infeasible_e
  0.875  # domain::seed_target_eff(elementwise)
  5.0    # domain::k_head_min_pct
  0.010  # domain::k_dispatch_bound_t_ms
  3.0    # domain::k_transfer_prior_strength
)
sql_values=(
  1.034 0.034 0.966 # isolated noise band (:iso_win_min)
  0.5               # e2e noise band (:e2e_noise_pct)
  5 5.0             # head threshold (:head_min_pct)
  1.25              # disputed headroom ratio
  0.9 0.90 0.6      # headroom band edges
  1.05              # infeasible e
  0.875 0.50        # seed target_eff
  0.010 3 3.0       # dispatch-bound t_ms, transfer shrink strength
)
# Allowed occurrences: "path<TAB>literal" with the reason in a comment. Empty: no exception.
allowed=()

status=0
check() { # check <file> <stripped text> <values...>
  local file=$1 text=$2
  shift 2
  local v re hit
  for v in "$@"; do
    re="(^|[^0-9A-Za-z_.])${v//./\\.}([^0-9A-Za-z_.]|\$)"
    while IFS= read -r hit; do
      [[ -z $hit ]] && continue
      if [[ " ${allowed[*]-} " == *" $file"$'\t'"$v "* ]]; then
        continue
      fi
      echo "$file:${hit%%:*}: rule value $v outside src/domain/ (use its domain/roofline.hpp constant): ${hit#*:}"
      status=1
    done < <(grep -nE -- "$re" <<<"$text" || true)
  done
}

while IFS= read -r file; do
  # // comments stripped (a "//" inside a string cuts the line short: it can only hide, not invent, a hit).
  check "$file" "$(sed -E 's#//.*$##' "$file")" "${cpp_values[@]}"
done < <(git ls-files 'src/*.cpp' 'src/*.hpp' | grep -v '^src/domain/')

while IFS= read -r file; do
  check "$file" "$(sed -E 's#--.*$##' "$file")" "${sql_values[@]}"
done < <(git ls-files 'queries/*.sql')

if ((status == 0)); then
  echo "rfdb: rules ok (no rule value outside src/domain/)"
fi
exit $status
