// Internal to report/: the What works line while attempts and imported
// findings are merged into it (findings.cpp builds lines from attempts,
// merge.cpp adds the imported findings). Not a public API.
#pragma once

#include "report/cautions.hpp"
#include "report/findings.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rfdb::report::detail {

// The strength order of a line's qualifying attempts (findings.cpp): best
// evidence first — verified, clean, newest, then ids (deterministic).
struct StrengthKey {
  bool unverified = true;
  bool unclean = true;
  std::string run_date;
  std::string run_id;
  std::string attempt_key;
};
bool stronger_key(const StrengthKey& x, const StrengthKey& y);

// The run ids of the attempts folded, each numbered once: a line's run
// sets hold numbers, not strings (one hash of an id per run, not per set).
class RunIds {
public:
  RunIds() = default;
  // The i-th of `names` (shared, never changed; no repeats) is number i.
  // With its number as the hint, id_of and find compare one string: no
  // hash, and no index of the names is built unless a lookup misses.
  explicit RunIds(std::shared_ptr<const std::vector<std::string>> names) : m_seeded(std::move(names))
  {
    m_names.reserve(m_seeded->size());
    for (const auto& n : *m_seeded) {
      m_names.push_back(&n);
    }
  }
  // The number of `run_id`, given on its first call; the hint, then the
  // last id numbered, is checked first (attempts mostly arrive a run at a
  // time).
  std::uint32_t id_of(const std::string& run_id, std::uint32_t hint = k_no_hint)
  {
    if (hint < m_names.size() && *m_names[hint] == run_id) {
      return hint;
    }
    if (m_last < m_names.size() && *m_names[m_last] == run_id) {
      return m_last;
    }
    index();
    const auto [it, added] = m_ids.try_emplace(run_id, static_cast<std::uint32_t>(m_names.size()));
    if (added) {
      m_names.push_back(&it->first);
    }
    m_last = it->second;
    return m_last;
  }
  // The number of `run_id`, or nullopt when it was never numbered.
  [[nodiscard]] std::optional<std::uint32_t> find(const std::string& run_id,
                                                  std::uint32_t hint = k_no_hint) const
  {
    if (hint < m_names.size() && *m_names[hint] == run_id) {
      return hint;
    }
    index();
    const auto it = m_ids.find(run_id);
    return it == m_ids.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  }
  [[nodiscard]] const std::string& name(std::uint32_t id) const { return *m_names[id]; }
  // Each number's place in ascending id order (the ids sorted once for
  // every set).
  [[nodiscard]] const std::vector<std::uint32_t>& ranks() const;

  static constexpr std::uint32_t k_no_hint = UINT32_MAX;

private:
  // Index the seeded names (once, on the first lookup that needs it).
  void index() const
  {
    if (m_indexed || !m_seeded) {
      return;
    }
    m_indexed = true;
    m_ids.reserve(m_seeded->size());
    for (std::uint32_t i = 0; i < m_seeded->size(); ++i) {
      m_ids.emplace((*m_seeded)[i], i);
    }
  }

  std::shared_ptr<const std::vector<std::string>> m_seeded;     // numbers 0..n-1 (their addresses are stable)
  mutable std::unordered_map<std::string, std::uint32_t> m_ids; // node-based: the names' addresses are stable
  mutable bool m_indexed = false;                               // m_ids holds the seeded names
  std::vector<const std::string*> m_names;                      // by number
  std::uint32_t m_last = 0;
  mutable std::vector<std::uint32_t> m_ranks; // of the first m_ranks.size() numbers
};

// A set of run ids (numbered by one RunIds): a few numbers in a list, then a
// bitmap over the numbers. sorted() gives the std::set order.
class RunSet {
public:
  void insert(std::uint32_t id, const std::shared_ptr<RunIds>& ids)
  {
    if (m_size != 0 && id == m_last) {
      return;
    }
    m_last = id;
    if (!m_ids) {
      m_ids = ids;
    }
    if (m_bits.empty()) {
      if (std::find(m_small.begin(), m_small.end(), id) != m_small.end()) {
        return;
      }
      if (m_small.size() < k_small) {
        m_small.push_back(id);
        ++m_size;
        return;
      }
      for (const std::uint32_t i : m_small) {
        set_bit(i);
      }
      std::vector<std::uint32_t>().swap(m_small);
    }
    if (set_bit(id)) {
      ++m_size;
    }
  }
  [[nodiscard]] std::size_t count(const std::string& run_id) const
  {
    if (!m_ids) {
      return 0;
    }
    const auto id = m_ids->find(run_id);
    return id && contains(*id) ? 1 : 0;
  }
  [[nodiscard]] std::size_t size() const { return m_size; }
  [[nodiscard]] bool empty() const { return m_size == 0; }
  // The ids in ascending order.
  [[nodiscard]] std::vector<std::string> sorted() const;
  // Add every member of `other` (numbered by its own RunIds), numbered by
  // `ids`: a number of other's is tried as the hint, so sets numbered alike
  // (RunIds seeded with one run list) merge without a hash.
  void merge(const RunSet& other, const std::shared_ptr<RunIds>& ids)
  {
    const auto add = [&](std::uint32_t id) {
      insert(other.m_ids == ids ? id : ids->id_of(other.m_ids->name(id), id), ids);
    };
    if (other.m_bits.empty()) {
      for (const std::uint32_t id : other.m_small) {
        add(id);
      }
      return;
    }
    for (std::uint32_t id = 0; id < other.m_bits.size(); ++id) {
      if (other.m_bits[id]) {
        add(id);
      }
    }
  }

private:
  static constexpr std::size_t k_small = 16;
  [[nodiscard]] bool contains(std::uint32_t id) const
  {
    if (m_bits.empty()) {
      return std::find(m_small.begin(), m_small.end(), id) != m_small.end();
    }
    return id < m_bits.size() && m_bits[id];
  }
  // Set bit `id`; true when it was clear.
  bool set_bit(std::uint32_t id)
  {
    if (id >= m_bits.size()) {
      m_bits.resize(std::max<std::size_t>(id + 1, m_bits.size() * 2));
    }
    if (m_bits[id]) {
      return false;
    }
    m_bits[id] = true;
    return true;
  }

  std::shared_ptr<RunIds> m_ids;
  std::vector<std::uint32_t> m_small; // while m_bits is empty
  std::vector<bool> m_bits;
  std::size_t m_size = 0;
  std::uint32_t m_last = 0;
};

// What a line keeps of its qualifying run attempts: the aggregates the
// finding shows, the strongest attempt of each kind and every reference, so
// the attempts themselves need not be held.
struct LineRuns {
  std::vector<StrengthKey> refs; // the k_refs_shown strongest qualifying attempts, strongest first
  std::size_t ref_count = 0;     // every qualifying attempt
  // The strongest attempt and its lever text and reason.
  std::optional<StrengthKey> front;
  std::string front_lever;
  std::string front_reason;
  // The strongest verified attempt's Director speedup.
  std::optional<StrengthKey> verified;
  std::optional<double> verified_speedup;
  // The strongest attempt whose run's Director validation was lost.
  std::optional<StrengthKey> lost;
  std::string lost_class;
  std::optional<double> lost_speedup;
  // The strongest attempt beyond its Amdahl ceiling.
  std::optional<StrengthKey> beyond;
  double beyond_e2e = 0.0;
  double beyond_ceiling = 0.0;
  std::set<std::string> kernels, backends, kinds, gates;
  RunSet clean, e2e_runs;
  std::optional<double> iso_min, iso_max, e2e_min, e2e_max;
  // The widest e2e band among the qualifying attempts with an e2e figure
  // (the run's measured spread or the fixed band, domain::run_e2e_band).
  std::optional<domain::E2eBand> e2e_band;
  std::string last_seen;
};

struct Line {
  ReuseKey key;
  std::string lever_key;
  std::string display;             // shown lever text
  std::set<std::string> spellings; // raw lever texts
  LineRuns run_evidence;           // of the qualifying attempts (ref_count 0: none)
  RunSet runs;
  std::set<std::string> backend_keys; // lever keys of the attempts' backends
  // Imported knowledge on the line: one source whatever its member count.
  std::set<std::string> imported_ids;
  std::set<std::string> imported_key_texts; // folded `key` fields (kb.py's merge target)
  std::vector<std::string> sources;         // cited, first-seen order
  std::set<std::string> source_set;         // source_key of each
  std::vector<std::string> cautions;
  int imported_stars = 0;
  int imported_confirms = 0; // the largest count of one member: duplicates restate it
  std::string imported_last_seen;
  std::optional<double> imported_iso_min, imported_iso_max, imported_e2e_min, imported_e2e_max;
  std::set<std::string> imported_dtypes; // dtype families its imported findings name (dtypes_named)
  std::set<std::string> restated_runs;   // runs of the line an imported finding restates
  bool independent_import = false;       // an imported finding that restates no run of the line
  // The content signatures (csha:/asha:) of its qualifying attempts → the runs that carry them.
  std::map<std::string, std::set<std::string>> signature_runs;
  std::vector<KbSource> kb_sources; // merge_kb (kb_lines.cpp), by record_key
  bool kb_only = false;             // made by merge_kb from kb records alone
  std::optional<double> kb_iso_min, kb_iso_max, kb_e2e_min, kb_e2e_max;
  std::string kb_last_seen;
};

// Lines by (reuse key text, lever key), and the lever keys of the texts seen
// so far: thousands of runs repeat a few dozen lever texts.
struct LineIndex {
  std::unordered_map<std::string, std::size_t> lines;
  std::unordered_map<std::string, std::string> lever_keys;
  std::shared_ptr<RunIds> run_ids = std::make_shared<RunIds>(); // the numbers of the lines' run sets

  std::unordered_map<std::string, std::pair<ReuseKey, std::string>> reuse_keys;
  std::string scratch, line_scratch; // lookup keys, reused from attempt to attempt
  Caution caution_scratch;           // attempt_cautions' fields, reused from attempt to attempt

  std::unordered_map<std::string, std::string> one_lines;
  // Line index by attempt shape: kind, lever_kind, op_class, gfx, regime,
  // lever, backend and gate, each preceded by its length.
  std::unordered_map<std::string, std::size_t> shapes;
  std::string shape_scratch;

  // one_line(text), computed once per distinct text.
  const std::string& one_line_of(const std::string& text);
  // attempt_lever_text(attempt) from the memoized one_line texts.
  const std::string& lever_text(const AttemptInfo& attempt);
  // domain::lever_key(text, op_class), computed once per pair.
  const std::string& lever_key(const std::string& text, const std::string& op_class);
  // attempt_reuse_key(attempt) and its text, computed once per distinct
  // class, gfx, regime and trial kind.
  const std::pair<ReuseKey, std::string>& reuse_key(const AttemptInfo& attempt);
};

// Fold a What works attempt (what_works_exclusion empty) into its line.
void add_line_attempt(std::vector<Line>& lines, LineIndex& index, const AttemptInfo& attempt);
// Fold the run lines of another digest (`from`, numbered by their own
// RunIds) into `lines`: a line of the same key takes their evidence, as if
// their attempts had been added here. After the last add_line_attempt (the
// shapes of `from` are not indexed); lines without imported knowledge yet.
void merge_lines(std::vector<Line>& lines, LineIndex& index, std::vector<Line>&& from);
// The findings of the run lines (any order) and the imported findings of
// `scoped`, before the cap, in report order.
std::vector<Finding> findings_from_lines(std::vector<Line> lines, const ReportInput& scoped,
                                         std::string_view as_of);
// The run cautions an attempt raises, appended to `out`: those `wanted`
// accepts (decided before any text is built; empty: all). `lever_keys`, when
// given, caches the lever keys.
void attempt_cautions(const AttemptInfo& attempt, std::vector<Caution>& out, LineIndex* lever_keys = nullptr,
                      const std::function<bool(const Caution&)>& wanted = {});
// One caution under the dedupe rule: same kind, run, kernel and lever key.
bool same_caution(const Caution& x, const Caution& y);
// The order of run cautions: newest run first, then run, kind, kernel,
// lever key and (with_text) text.
bool run_caution_less(const Caution& x, const Caution& y, bool with_text = true);
// The run cautions (any order, duplicates allowed) with the imported
// negatives of `scoped`: sorted and deduplicated as build_cautions.
std::vector<Caution> finish_cautions(std::vector<Caution> runs, const ReportInput& scoped);

// Put the kb records of `scoped` on the lines (rules in kb_lines.hpp): a record whose content
// signature an attempt of a line carries joins that line; a measured positive record that is not
// retired and joins none gives a kb-only line (records of one signature on one line). After
// merge_imported.
void merge_kb(std::vector<Line>& lines, const ReportInput& scoped);
// The Cautions of the retired kb records of `scoped`, newest first (rules in kb_lines.hpp).
std::vector<Caution> kb_cautions(const ReportInput& scoped);

// Add the imported findings of `scoped` to `lines` (rules in findings.hpp).
void merge_imported(std::vector<Line>& lines, const ReportInput& scoped);

// The display text of an imported finding: never a file name, never a
// heading that ends in ':'.
std::string imported_display(const ImportedFinding& f);
// Its lever key: the first known lever named by its lever and apply text —
// or, when it states no lever (a playbook line), by its name, apply and text
// — else its folded lever (or display) text.
std::string imported_lever_key(const ImportedFinding& f);
// Its reuse key.
ReuseKey imported_reuse_key(const ImportedFinding& f);

// The dtype families a text names as whole words: bf16, fp16, fp8 (also
// w8a8, a8w8, e4m3), int4 (w4a16, gptq, awq), int8, mxfp4 (fp4), mxfp8, fp32.
// An imported finding joins a line only when their dtypes agree (one side
// names none, or both name one in common).
std::set<std::string> dtypes_named(std::string_view text);

// Widen [lo, hi] by v.
void widen(std::optional<double>& lo, std::optional<double>& hi, const std::optional<double>& v);
// The later of two dates ("" and non-dates lose).
void bump_date(std::string& date, std::string_view candidate);

} // namespace rfdb::report::detail
