// Store evidence rows → calibrate::Observation (gfx, regime grouped by the domain rules).
#include "calibrate/from_store.hpp"

#include "domain/normalize.hpp"
#include "store/runs.hpp"
#include "store/stack.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>

namespace rfdb::calibrate {

namespace {

// The regime of a priors key: domain::regime_of, with both spelled "mixed"
// (k_regimes); unknown text and "" group as unknown.
std::string regime_key(std::string_view raw)
{
  const domain::Regime r = domain::regime_of(raw);
  return r == domain::Regime::both ? std::string("mixed") : std::string(domain::to_string(r));
}

std::string gfx_key(std::string_view raw)
{
  return raw.empty() ? std::string() : domain::normalize_gfx(raw).value_or("unknown");
}

// Memoized `key` of a raw text (a handful of distinct spellings per database).
class Grouped {
public:
  explicit Grouped(std::string (*key)(std::string_view)) : m_key(key) {}
  const std::string& operator()(std::string_view raw)
  {
    // Consecutive rows mostly repeat the previous spelling.
    if (m_last != m_cache.end() && m_last->first == raw) {
      return m_last->second;
    }
    auto it = m_cache.find(raw);
    if (it == m_cache.end()) {
      it = m_cache.emplace(std::string(raw), m_key(raw)).first;
    }
    m_last = it;
    return it->second;
  }

private:
  using Cache = std::map<std::string, std::string, std::less<>>;
  std::string (*m_key)(std::string_view);
  Cache m_cache;
  Cache::const_iterator m_last = m_cache.end();
};

} // namespace

std::string priors_gfx_key(std::string_view raw)
{
  return gfx_key(raw);
}

std::string priors_regime_key(std::string_view raw)
{
  return regime_key(raw);
}

Result<ObservationTable> load_observations(store::Database& db, const store::EvidenceFilter& filter)
{
  ObservationTable table;
  Grouped gfx(gfx_key);
  Grouped regime(regime_key);
  RFDB_TRY(store::for_each_observation(db, filter, [&](const store::ObservationRecord& r) {
    domain::ObservationRow grouped = r;
    grouped.gfx = gfx(r.gfx);
    grouped.regime = regime(r.regime);
    table.add(grouped);
  }));
  RFDB_TRY(store::for_each_censored_head(db, filter, [&](const store::CensoredHeadRecord& c) {
    domain::ObservationRow grouped = c.row;
    grouped.gfx = gfx(c.row.gfx);
    grouped.regime = regime(c.row.regime);
    table.add(grouped);
  }));
  return table;
}

Result<std::vector<Observation>> censored_observations(store::Database& db,
                                                       const store::EvidenceFilter& filter)
{
  std::vector<Observation> out;
  RFDB_TRY(store::for_each_censored_head(db, filter, [&](const store::CensoredHeadRecord& c) {
    const domain::ObservationRow& r = c.row;
    const auto text = [](const std::optional<std::string_view>& t) {
      return t ? std::optional<std::string>(*t) : std::nullopt;
    };
    Observation o;
    o.run_id = r.run_id;
    o.run_date = r.run_date;
    o.round = c.round;
    o.short_name = r.short_name;
    o.op_class = r.op_class;
    o.gfx = gfx_key(r.gfx);
    o.regime = regime_key(r.regime);
    o.prediction.source_kind = text(r.source_kind);
    o.prediction.headroom_class = text(r.headroom_class);
    o.prediction.confidence = text(r.confidence);
    o.prediction.roofline_pct = r.roofline_pct;
    o.prediction.attainable_speedup = r.attainable_speedup;
    o.prediction.pct_gpu_time = r.pct_gpu_time;
    o.prediction.suspect = false;
    o.prediction.dispatch_bound = false;
    o.profiler_hbm_undercount = r.profiler_hbm_undercount;
    o.censored = r.censored;
    out.push_back(std::move(o));
  }));
  return out;
}

std::vector<Observation> observations_from(const store::Evidence& evidence)
{
  std::map<std::string_view, const store::RunSummary*> runs;
  for (const auto& r : evidence.runs) {
    runs.emplace(r.run_id, &r);
  }
  std::vector<Observation> out;
  out.reserve(evidence.attempts.size());
  for (const auto& a : evidence.attempts) {
    const auto run = runs.find(a.run_id);
    const store::RunSummary* r = run == runs.end() ? nullptr : run->second;
    Observation o;
    o.run_id = a.run_id;
    o.run_date = r != nullptr ? r->run_date.value_or("") : "";
    o.round = a.round.value_or("");
    o.short_name = a.short_name;
    o.lever = a.lever;
    o.op_class = domain::to_string(a.op_class);
    o.gfx = gfx_key(r != nullptr ? r->gfx.value_or("") : "");
    o.regime = regime_key(a.regime.value_or(""));
    o.isolated_speedup = a.isolated_speedup;
    o.e2e_delta_pct = a.e2e_delta_pct;
    o.prediction = a.prediction;
    o.post_efficiency = a.post_efficiency;
    o.output_parity = a.output_parity.value_or("");
    o.reject_reason = a.reject_reason.value_or("");
    o.profiler_hbm_undercount = a.profiler_hbm_undercount;
    out.push_back(std::move(o));
  }
  return out;
}

namespace {

// What attribution reads from the store, read once: the runs' backend
// versions and their stack rows. compute_priors_at_dates attributes the
// shifts of every date from one read (rfdb rescore asks for hundreds).
struct AttributionData {
  bool loaded = false;
  std::map<std::string, std::vector<store::StackRow>> run_stacks;
  std::map<std::string, RunStack, std::less<>> stacks;
};

// Fill `data` from the store unless it is loaded; `runs` when given are the
// runs to attribute from, else every non-retracted run is read. Errors: db.
Result<void> load_attribution(store::Database& db, AttributionData& data,
                              const std::vector<store::RunSummary>* runs)
{
  if (data.loaded) {
    return {};
  }
  RFDB_TRY_ASSIGN(data.run_stacks, store::all_run_stacks(db));
  std::vector<store::RunSummary> listed;
  if (runs == nullptr) {
    RFDB_TRY_ASSIGN(listed, store::list_runs(db, store::IncludeRetracted::no));
    runs = &listed;
  }
  for (const auto& r : *runs) {
    data.stacks.emplace(r.run_id, RunStack{r.backend.value_or(""), r.backend_version.value_or("")});
  }
  data.loaded = true;
  return {};
}

// `shifts` with each one's attribution: what changed in the stack between
// its two runs (store::stack_changes over run_stack, "; "-joined), else,
// when neither run has stored stack rows, the backend version change of the
// runs table (stack_change). `data` is loaded on the first shift.
// Errors: db.
Result<std::vector<Shift>> attributed(store::Database& db, std::vector<Shift> shifts, AttributionData& data,
                                      const std::vector<store::RunSummary>* runs = nullptr)
{
  if (shifts.empty()) {
    return shifts;
  }
  RFDB_TRY(load_attribution(db, data, runs));
  const auto rows_of = [&](const std::string& run) -> std::span<const store::StackRow> {
    const auto it = data.run_stacks.find(run);
    return it == data.run_stacks.end() ? std::span<const store::StackRow>{} : std::span{it->second};
  };
  for (Shift& s : shifts) {
    const auto before_rows = rows_of(s.before_run);
    const auto after_rows = rows_of(s.after_run);
    if (!before_rows.empty() && !after_rows.empty()) {
      s.attribution = util::join(store::stack_changes(before_rows, after_rows), "; ");
      continue;
    }
    const auto before = data.stacks.find(s.before_run);
    const auto after = data.stacks.find(s.after_run);
    if (before != data.stacks.end() && after != data.stacks.end()) {
      s.attribution = stack_change(before->second, after->second).value_or("");
    }
  }
  return shifts;
}

// params with the shifts detected in `observations` (as of params' dates),
// attributed from `data` (loaded on the first date with a shift).
Result<PriorsParams> with_shifts(store::Database& db, const ObservationTable& observations,
                                 const PriorsParams& params, AttributionData& data)
{
  PriorsParams out = params;
  out.shifts.clear(); // the detected ones only
  std::vector<Shift> found;
  RFDB_TRY_ASSIGN(found, detect_shifts_from_table(observations, params));
  RFDB_TRY_ASSIGN(out.shifts, attributed(db, std::move(found), data));
  return out;
}

} // namespace

Result<PriorsResult> compute_priors_from_store(store::Database& db, const store::EvidenceFilter& filter,
                                               const PriorsParams& params)
{
  ObservationTable observations;
  RFDB_TRY_ASSIGN(observations, load_observations(db, filter));
  PriorsParams p;
  AttributionData data;
  RFDB_TRY_ASSIGN(p, with_shifts(db, observations, params, data));
  return compute_priors_from_table(observations, p);
}

Result<PriorsAtTwoDates> compute_priors_at_two_dates(store::Database& db, const store::EvidenceFilter& filter,
                                                     const PriorsParams& params,
                                                     const std::string& before_as_of)
{
  ObservationTable observations;
  RFDB_TRY_ASSIGN(observations, load_observations(db, filter));
  PriorsAtTwoDates out;
  AttributionData data;
  PriorsParams later;
  RFDB_TRY_ASSIGN(later, with_shifts(db, observations, params, data));
  RFDB_TRY_ASSIGN(out.after, compute_priors_from_table(observations, later));
  PriorsParams earlier = params;
  earlier.as_of = before_as_of;
  RFDB_TRY_ASSIGN(earlier, with_shifts(db, observations, earlier, data));
  RFDB_TRY_ASSIGN(out.before, compute_priors_from_table(observations, earlier));
  return out;
}

Result<std::vector<PriorsResult>> compute_priors_at_dates(store::Database& db,
                                                          const store::EvidenceFilter& filter,
                                                          const PriorsParams& params,
                                                          const std::vector<std::string>& as_of_dates)
{
  ObservationTable observations;
  RFDB_TRY_ASSIGN(observations, load_observations(db, filter));
  std::vector<PriorsResult> out;
  out.reserve(as_of_dates.size());
  AttributionData data;
  for (const auto& date : as_of_dates) {
    PriorsParams at = params;
    at.as_of = date;
    RFDB_TRY_ASSIGN(at, with_shifts(db, observations, at, data));
    PriorsResult result;
    RFDB_TRY_ASSIGN(result, compute_priors_from_table(observations, at));
    out.push_back(std::move(result));
  }
  return out;
}

Result<StoredKeyExplanation> explain_priors_from_store(store::Database& db,
                                                       const store::EvidenceFilter& filter,
                                                       const PriorsParams& params, const PriorsKey& key)
{
  store::Evidence evidence;
  RFDB_TRY_ASSIGN(evidence, store::load_evidence(db, filter));
  auto attempts = observations_from(evidence);
  std::vector<Observation> censored;
  RFDB_TRY_ASSIGN(censored, censored_observations(db, filter));
  attempts.insert(attempts.end(), std::make_move_iterator(censored.begin()),
                  std::make_move_iterator(censored.end()));
  PriorsParams p = params;
  std::vector<Shift> found;
  RFDB_TRY_ASSIGN(found, detect_shifts(attempts, params));
  AttributionData data;
  RFDB_TRY_ASSIGN(p.shifts, attributed(db, std::move(found), data, &evidence.runs));
  StoredKeyExplanation out;
  RFDB_TRY_ASSIGN(out.key, explain_priors(attempts, p, key));
  RFDB_TRY_ASSIGN(out.children, explain_children(attempts, out.key));
  return out;
}

} // namespace rfdb::calibrate
