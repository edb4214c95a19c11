// Internal to report/: the scoped attempts of a report folded one at a time
// into what the sections show (Calibration's per-class samples and largest
// misses, the run cautions, the What works lines, the realized gains routing
// quality reads), so a history of any length is never held attempt by
// attempt. Not a public API; rules in report/findings.hpp.
#pragma once

#include "domain/as_of.hpp"
#include "report/analysis.hpp"
#include "report/findings.hpp"
#include "report/lines.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
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
  // Take the misses of another list of the same direction.
  void merge(MissList&& other);
};

inline constexpr std::size_t k_misses_shown = 5; // each way; `rfdb query playbook_misses` lists all

class AttemptDigest {
public:
  AttemptDigest();

  // Number the runs as `run_ids` lists them (ReportInput::runs' ids), so
  // an attempt's run_index spares a lookup of its run_id. Before the first
  // add.
  void number_runs(std::shared_ptr<const std::vector<std::string>> run_ids);
  // Fold one attempt in scope.
  void add(const AttemptInfo& attempt);
  // Fold `other`, a digest of other attempts of the same report (its runs
  // numbered by the same list, keep_all_cautions alike), into this one: the
  // sections then read what adding its attempts here would have given. After
  // the last add of either, before seal().
  void merge(AttemptDigest&& other);
  // Call once the last attempt is added: realized() reads the sealed
  // digest.
  void seal();

  // The realized gain of one (run, kernel) pick of routing quality: the best
  // e2e delta and isolated speedup of its evidence attempts in scope (empty
  // when none). Only after seal().
  [[nodiscard]] RealizedPick realized(const std::string& run_id, const std::string& kernel,
                                      std::uint32_t run_index = detail::RunIds::k_no_hint) const;

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
  // A run caution under the dedupe rule (same_caution): its run, kernel and
  // lever key by number, and its kind.
  struct CautionId {
    std::uint32_t run = 0, kernel = 0, lever_key = 0, kind = 0;
    friend bool operator==(const CautionId&, const CautionId&) = default;
  };
  struct CautionIdHash {
    std::size_t operator()(const CautionId& c) const noexcept
    {
      const std::uint64_t a = (std::uint64_t{c.run} << 32U) | c.kernel;
      const std::uint64_t b = (std::uint64_t{c.lever_key} << 32U) | c.kind;
      return std::hash<std::uint64_t>{}(a * 0x9E3779B97F4A7C15ULL ^ b);
    }
  };
  // The number of a kernel or lever key text among the run cautions.
  std::uint32_t name_id(const std::string& name);
  std::unordered_set<CautionId, CautionIdHash> m_caution_keys;    // distinct run cautions seen (bounded mode)
  std::unordered_map<std::string, std::uint32_t> m_caution_names; // name_id's numbers
  std::vector<Caution> m_raised;                                  // one attempt's cautions
  // The best e2e delta (percent) and isolated speedup (×) of a (run,
  // kernel) among the evidence attempts, NaN for none: the run by its
  // number in m_index.run_ids, the kernel by name_id. Every (run, kernel)
  // is kept, since routing quality's picks come from the verdicts, which may
  // be read at the same time on another thread. In arrival order with
  // adjacent duplicates merged (a run's attempts mostly arrive together),
  // compacted when full; sorted and merged by seal().
  struct Best {
    std::uint32_t run = 0, kernel = 0;
    double e2e_pct = 0.0, isolated = 0.0;
  };
  void note_best(std::uint32_t run, std::uint32_t kernel, const std::optional<double>& e2e_pct,
                 const std::optional<double>& isolated);
  // Sort m_best by (run, kernel) and merge the duplicates.
  void compact_best();
  std::vector<Best> m_best;
  bool m_sealed = false;
};

// The head verdicts in scope folded one run at a time: the saturated heads
// per kernel class × gfx (the newest of each, their count and runs) and the
// heads of the runs the quadrant chart may show, so a history's heads are
// never all held.
class HeadDigest {
public:
  // Keep the heads of this run (the newest run in scope).
  void watch(std::string run_id);
  // As AttemptDigest::number_runs, for the heads' run_index. Before the
  // first add_run.
  void number_runs(std::shared_ptr<const std::vector<std::string>> run_ids);
  // Fold the heads in scope of one run, in verdict order; only the heads
  // kept are copied.
  void add_run(std::span<const HeadVerdict> heads);
  // Every head kept (the groups' newest and the candidate runs' heads).
  template <typename F> void for_each_kept(F&& f)
  {
    for (auto* groups : {&m_groups, &m_disputed}) {
      for (auto& [key, g] : *groups) {
        f(g.newest);
      }
    }
    for (auto* v : {&m_watched, &m_newest, &m_flagged}) {
      for (auto& h : *v) {
        f(h);
      }
    }
  }
  // The saturated groups in key order (disputed heads left out).
  [[nodiscard]] std::vector<SaturatedGroup> saturated_groups() const;
  // The disputed groups (saturated heads whose measuring engine disputes
  // the band) in key order.
  [[nodiscard]] std::vector<SaturatedGroup> disputed_groups() const;
  // Flag the heads of `run_id` (the newest run with a profiled round, known
  // once every verdict was read) as is_newest_run: it has heads in scope
  // exactly when it is the newest run with heads in scope.
  void flag_newest(const std::string& run_id);
  // The run the quadrant chart shows (the newest run with a flagged head,
  // else the watched run when `have_runs`, else the newest run with heads)
  // and its latest heads, in head order.
  [[nodiscard]] std::pair<std::string, std::vector<HeadVerdict>> newest(bool have_runs) const;

  std::size_t heads = 0;           // head verdicts in scope
  std::size_t saturated_heads = 0; // of the latest per (run, kernel), the saturated ones not disputed
  std::size_t disputed_heads = 0;  // of the latest per (run, kernel), the disputed ones

private:
  std::map<std::pair<std::string, std::string>, SaturatedGroup> m_groups;
  std::map<std::pair<std::string, std::string>, detail::RunSet> m_group_runs; // only counted
  std::map<std::pair<std::string, std::string>, SaturatedGroup> m_disputed;
  std::map<std::pair<std::string, std::string>, detail::RunSet> m_disputed_runs;
  std::shared_ptr<detail::RunIds> m_run_ids = std::make_shared<detail::RunIds>(); // their numbers
  std::string m_watch;
  std::vector<HeadVerdict> m_watched;       // the watched run's latest heads
  std::vector<HeadVerdict> m_newest;        // the newest run's latest heads
  std::vector<HeadVerdict> m_flagged;       // the newest flagged run's latest heads
  std::vector<const HeadVerdict*> m_latest; // add_run's latest head per kernel (reused)
};

// Head order: newest run first, then run id, then the largest share.
bool head_less(const HeadVerdict& a, const HeadVerdict& b);

// The scope rule of a dated, GPU-bound row (report/findings.hpp): its date
// on or before as_of ("" = no bound) and on or after since (an undated row
// only without since), its gfx that of gfx_filter when one is given.
bool in_scope(const std::string& date, const std::string& gfx, const std::string& as_of,
              const std::optional<std::string>& since, const std::optional<std::string>& gfx_filter);

} // namespace rfdb::report
