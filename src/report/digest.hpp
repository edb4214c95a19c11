// Internal to report/: the scoped attempts of a report folded one at a time
// into what the sections show (Calibration's per-class samples and largest
// misses, the run cautions, the What works lines, the realized gains routing
// quality reads), so a history of any length is never held attempt by
// attempt. Not a public API; rules in report/findings.hpp.
#pragma once

#include "domain/as_of.hpp"
#include "report/findings.hpp"
#include "report/lines.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace rfdb::report {

// One op class of the Calibration table: its attempts and the samples
// behind its three medians.
struct ClassSample {
  int attempts = 0;
  std::vector<double> predicted; // usable predictions' attainable_speedup
  std::vector<double> measured;  // isolated speedups
  std::vector<double> ratio;     // measured / predicted, where both exist
};

// A prediction miss: measured / predicted and the attempt behind it.
struct Miss {
  double ratio = 0.0;
  AttemptInfo attempt;
};

// The largest misses one way: at most k_misses_shown, farthest from 1
// first (ties by run_id, attempt_key), and how many there were.
struct MissList {
  bool descending = true; // under-predicted: largest ratio first
  std::vector<Miss> kept;
  std::size_t total = 0;
  void add(double ratio, const AttemptInfo& attempt);
};

inline constexpr std::size_t k_misses_shown = 5; // each way; `rfdb query playbook_misses` lists all

class AttemptDigest {
public:
  AttemptDigest();

  // Routing quality reads the realized gain of these (run, kernel) picks;
  // name them before the attempts are added.
  void need_realized(const std::string& run_id, const std::string& kernel);
  // Fold one attempt in scope.
  void add(const AttemptInfo& attempt);

  // The realized gain of a pick named by need_realized (empty when no
  // attempt realized anything).
  [[nodiscard]] RealizedPick realized(const std::string& run_id, const std::string& kernel) const;

  std::size_t attempts = 0;      // attempts folded
  std::size_t config_trials = 0; // of them, serving-config trials
  std::map<std::string, ClassSample> by_class;
  MissList under; // the model under-predicted
  MissList over;  // the model over-predicted
  // Run cautions: every one, unsorted and not deduplicated, while
  // keep_all_cautions (the cards quote them all); else only the
  // k_run_cautions first in report order, deduplicated.
  bool keep_all_cautions = true;
  std::vector<Caution> cautions;
  std::size_t distinct_run_cautions = 0; // without keep_all_cautions
  std::vector<detail::Line> lines;       // What works run lines, in arrival order
  domain::NewestDate newest;             // newest valid run date among the attempts

private:
  void keep_caution(Caution&& caution);

  detail::LineIndex m_index;
  std::unordered_set<std::string> m_caution_keys;           // distinct run cautions seen (bounded mode)
  std::vector<Caution> m_raised;                            // one attempt's cautions
  std::unordered_map<std::string, RealizedPick> m_realized; // run_id '\n' kernel
};

// The scope rule of a dated, GPU-bound row (report/findings.hpp): its date
// on or before as_of ("" = no bound) and on or after since (an undated row
// only without since), its gfx that of gfx_filter when one is given.
bool in_scope(const std::string& date, const std::string& gfx, const std::string& as_of,
              const std::optional<std::string>& since, const std::optional<std::string>& gfx_filter);

// Fold the attempts of `scoped` into a digest (needing the picks of its
// rankings).
AttemptDigest digest_attempts(const ReportInput& scoped);

} // namespace rfdb::report
