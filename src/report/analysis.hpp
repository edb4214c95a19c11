// The analysis behind `rfdb report`, computed once: the scope rules, the
// findings after the cap, cautions, methods and seams, saturated heads,
// routing quality and the newest run's heads (rules: findings.hpp).
#pragma once

#include "report/cautions.hpp"
#include "report/findings.hpp"
#include "report/merge.hpp"
#include "report/model.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::report {

// One pick of a disagreeing round and what it realized in that run.
struct RealizedPick {
  std::string short_name;
  std::optional<double> best_e2e_pct;
  std::optional<double> best_isolated; // ×
};
struct RoutingDisagreement {
  RoundRanking ranking;
  std::string run_date;
  RealizedPick by_pct;
  RealizedPick by_gain;
  std::string basis;  // "e2e" | "isolated" | "" (not comparable)
  std::string winner; // "pct" | "gain" | "tie" | "undecided"
};
struct RoutingSummary {
  int rounds = 0;                                 // rankings in scope with both picks named
  std::vector<RoutingDisagreement> disagreements; // every one, newest run first
};

// The saturated heads of one kernel class × gfx: the newest is shown.
struct SaturatedGroup {
  HeadVerdict newest;
  std::size_t heads = 0; // saturated head verdicts of the group
  std::size_t runs = 0;  // distinct runs among them
};

// Everything the playbook and the cards render, computed once.
struct Analysis {
  std::string as_of;             // resolved as_of ("" when no date exists at all)
  ReportInput scoped;            // the input after the scope rules (priors untouched)
  std::vector<Finding> findings; // shown, in report order
  std::vector<Finding> evicted;  // in eviction order
  // Run cautions newest run first, then imported ones: every one, or — when
  // the input's attempt digest kept only those shown — the k_run_cautions
  // first run cautions.
  std::vector<Caution> cautions;
  std::size_t run_cautions = 0;          // distinct run cautions in all
  std::vector<MethodNote> methods;       // every one (the playbook shows k_method_notes)
  std::vector<SaturatedGroup> saturated; // one per kernel class × gfx, in key order
  std::size_t saturated_heads = 0;       // saturated head verdicts in scope, disputed ones left out
  // Saturated measured heads whose engine disputes the band (headroom_ratio
  // ≥ 1.25 or guidance actionable): one group per kernel class × gfx, in key
  // order, never rerouted; and their count.
  std::vector<SaturatedGroup> disputed;
  std::size_t disputed_heads = 0;
  RoutingSummary routing;
  std::string newest_run_id;             // "" when there are no runs/heads
  std::vector<HeadVerdict> newest_heads; // latest verdict per kernel, pct desc
  std::size_t attempts = 0;              // attempts in scope
  std::size_t heads = 0;                 // head verdicts in scope
  // The scoped attempts folded (Calibration reads its samples and misses).
  std::shared_ptr<const AttemptDigest> digest;
};

// Compute the analysis. Deterministic: any permutation of the input vectors
// gives the same result. Move a large input in: it is scoped in place.
Analysis analyze(ReportInput input);

} // namespace rfdb::report
