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
# scan <cpp|sql> <values...> < file list: "path:line: value: text" per hit, in one perl pass.
scan() {
  perl -e '
    my ($lang, @values) = @ARGV;
    my $marker = $lang eq "sql" ? "--" : "//";
    my $alt = join("|", map { quotemeta } @values);
    while (my $file = <STDIN>) {
      chomp $file;
      open(my $fh, "<", $file) or die "$file: $!";
      while (my $line = <$fh>) {
        $line =~ s/\Q$marker\E.*$//s; # comments stripped ("//" in a string cuts short: hides, never invents)
        while ($line =~ /(?<![0-9A-Za-z_.])($alt)(?![0-9A-Za-z_.])/g) {
          chomp(my $text = $line);
          print "$file:$.: $1: $text\n";
        }
      }
      close($fh);
    }' "$@"
}
report() {
  local hit file value
  while IFS= read -r hit; do
    file=${hit%%:*}
    value=${hit#*: }
    value=${value%%:*}
    if [[ " ${allowed[*]-} " == *" $file"$'\t'"$value "* ]]; then
      continue
    fi
    echo "$hit  <- rule value outside src/domain/ (use its domain/roofline.hpp constant)"
    status=1
  done
}

report < <(git ls-files 'src/*.cpp' 'src/*.hpp' | grep -v '^src/domain/' | scan cpp "${cpp_values[@]}")
report < <(git ls-files 'queries/*.sql' | scan sql "${sql_values[@]}")

if ((status == 0)); then
  echo "rfdb: rules ok (no rule value outside src/domain/)"
fi
exit $status
