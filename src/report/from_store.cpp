// Report input from the store: evidence rows turned into the runs, attempts,
// heads and imported findings the playbook analysis reads.
#include "report/from_store.hpp"

#include "domain/kb_ledger.hpp"
#include "domain/knowledge_kind.hpp"
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "report/digest.hpp"
#include "report/findings.hpp"
#include "store/findings_writer.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <span>
#include <string_view>
#include <tuple>

namespace rfdb::report {

namespace {

std::optional<int> to_int(const std::optional<std::int64_t>& v)
{
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

// `out` takes the text of `in` by swap ("" for NULL), so each keeps the
// other's buffer for the next row.
void take(std::string& out, std::optional<std::string>& in)
{
  if (in) {
    std::swap(out, *in);
  } else {
    out.clear();
  }
}

// `a` as an AttemptInfo in `x` (the report's view of a store::Attempt):
// strings are swapped, so each keeps the other's buffer for its next row;
// the enum members are written as their stored spelling (the view keeps text).
void attempt_info(store::Attempt& a, const RunInfo& run, std::uint32_t run_index, AttemptInfo& x)
{
  using std::swap;
  swap(x.run_id, a.run_id);
  x.run_index = run_index;
  x.run_date = run.run_date;
  x.gfx = run.gfx;
  x.model = run.model;
  x.isl = run.isl;
  x.osl = run.osl;
  x.conc = run.conc;
  x.e2e_band = domain::run_e2e_band(run.measured_spread_pct);
  swap(x.short_name, a.short_name);
  x.op_class = domain::to_string(a.op_class);
  take(x.regime, a.regime);
  swap(x.lever, a.lever);
  x.lever_kind = domain::to_string(a.lever_kind);
  take(x.backend, a.backend);
  x.isolated_speedup = a.isolated_speedup;
  x.e2e_delta_pct = a.e2e_delta_pct;
  take(x.gate, a.gate);
  x.verdict = domain::to_string(a.verdict);
  x.run_validation_class = domain::to_string(a.validation_class);
  x.validation_speedup = a.validation_speedup;
  swap(x.attempt_key, a.attempt_key);
  take(x.content_signature, a.content_signature);
  x.kind = domain::to_string(a.kind);
  x.measured = a.measured;
  x.deployed = a.deployed;
  take(x.output_parity, a.output_parity);
  take(x.reason, a.reason);
  take(x.reject_reason, a.reject_reason);
  swap(x.prediction, a.prediction);
}

// A card whose kernel_class says "config" (as `rfdb report --cards` writes
// for a serving-config trial) is stored as op_class unknown, since the
// learned_findings vocabulary has no config class; give it back its class so
// it joins the config line of its key (the round trip changes nothing).
std::string imported_op_class(const store::ReportFinding& f)
{
  std::string raw;
  for (const char c : one_line(f.kernel_class_raw)) {
    raw += (c == '_' || c == '-') ? ' ' : util::lower_ascii(c);
  }
  if (domain::is(f.op_class, domain::OpClass::unknown) &&
      (domain::is(raw, domain::ReuseClass::config) || raw == "serving config")) {
    return std::string(domain::to_string(domain::ReuseClass::config));
  }
  return f.op_class;
}

ImportedFinding imported(const store::ReportFinding& f)
{
  ImportedFinding x;
  x.origin = f.origin;
  x.identity = f.identity;
  x.name = f.name;
  x.op_class = imported_op_class(f);
  x.gfx = f.gfx;
  x.regime = f.regime;
  x.lever = f.lever;
  x.effect = f.effect;
  x.stars = f.stars;
  x.iso_min = f.iso_min;
  x.iso_max = f.iso_max;
  x.e2e_min_pct = f.e2e_min_pct;
  x.e2e_max_pct = f.e2e_max_pct;
  x.confirms = f.confirms;
  x.last_seen = f.last_seen;
  x.lifecycle = f.lifecycle;
  x.sources_cited = f.sources_cited;
  for (const auto& c : f.cautions) {
    if (c.rfind(domain::k_dead_end_prefix, 0) == 0) {
      x.dead_ends.push_back(c.substr(domain::k_dead_end_prefix.size()));
    } else {
      x.cautions.push_back(c);
    }
  }
  x.generator = f.generator;
  x.key_raw = f.key_raw;
  x.type = f.type;
  x.apply = f.apply;
  x.description = f.description;
  x.text = f.text;
  x.lever_key = f.lever_key;
  x.title = f.title;
  x.status = f.status;
  if (const auto kind = domain::parse_knowledge_kind(f.classification)) {
    x.kind = *kind;
    x.kind_reason = f.classification_reason;
  } else {
    // A row an older rfdb stored: classify it as ingest now would.
    const auto c = domain::classify_knowledge({x.origin, x.type, x.lifecycle, x.status, x.name, x.title,
                                               x.description, x.effect, x.lever, x.text, x.generator});
    x.kind = c.kind;
    x.kind_reason = c.reason;
    x.iso_min = c.iso_min;
    x.iso_max = c.iso_max;
    x.e2e_min_pct = c.e2e_min_pct;
    x.e2e_max_pct = c.e2e_max_pct;
  }
  return x;
}

using detail::RoundTops;

// The tops of every profiled round of one run's verdicts (all of one
// run_id, in their report order) into `out`, rounds in first-seen order.
void round_tops(std::span<const store::ReportVerdict> verdicts, std::vector<RoundTops>& out)
{
  out.clear();
  for (const auto& v : verdicts) {
    if (domain::is(v.source_kind, domain::SourceKind::measured) && v.round.empty()) {
      continue; // a measured baseline, not a profiled round
    }
    auto t =
        std::find_if(out.begin(), out.end(), [&](const RoundTops& x) { return x.first->round == v.round; });
    if (t == out.end()) {
      t = out.insert(out.end(), RoundTops{&v, nullptr, nullptr});
    }
    if (t->by_pct == nullptr || v.pct_gpu_time.value_or(0) > t->by_pct->pct_gpu_time.value_or(0)) {
      t->by_pct = &v;
    }
    if (t->by_gain == nullptr ||
        v.expected_e2e_gain_pct.value_or(0) > t->by_gain->expected_e2e_gain_pct.value_or(0)) {
      t->by_gain = &v;
    }
  }
}

RoundRanking ranking(const RoundTops& t, std::uint32_t run_index)
{
  RoundRanking r;
  r.run_id = t.first->run_id;
  r.run_index = run_index;
  r.round = t.first->round_order.value_or(0);
  r.round_label = t.first->round;
  r.top_by_pct = t.by_pct->short_name;
  r.top_by_pct_pct_gpu_time = t.by_pct->pct_gpu_time;
  r.top_by_pct_expected_gain_pct = t.by_pct->expected_e2e_gain_pct;
  r.top_by_gain = t.by_gain->short_name;
  r.top_by_gain_pct_gpu_time = t.by_gain->pct_gpu_time;
  r.top_by_gain_expected_gain_pct = t.by_gain->expected_e2e_gain_pct;
  return r;
}

// A measured baseline is usable as a prediction when it has a verdict.
bool usable_measured(const store::ReportVerdict& v)
{
  return v.roofline_pct && v.target_eff && *v.target_eff > 0.0 && !v.suspect &&
         domain::is_banded(v.headroom_class);
}

// The measured baseline roofline of each kernel of one run's verdicts (all
// of one run_id), by its kernel key and by the device kernel it matched (a
// task dir may name either); the first one wins.
using Baselines = std::vector<std::pair<std::string_view, const store::ReportVerdict*>>;

Baselines measured_baselines(std::span<const store::ReportVerdict> vs)
{
  Baselines out;
  for (const auto& v : vs) {
    if (!domain::is(v.source_kind, domain::SourceKind::measured) || !v.round.empty() || !usable_measured(v)) {
      continue;
    }
    out.emplace_back(v.short_name, &v);
    if (!v.name.empty()) {
      out.emplace_back(v.name, &v);
    }
  }
  return out;
}

const store::ReportVerdict* find_baseline(const Baselines& bs, std::string_view kernel)
{
  for (const auto& [key, v] : bs) {
    if (key == kernel) {
      return v;
    }
  }
  return nullptr;
}

// True for an attempt that reduces bytes (fusion or lower precision).
bool reduces_bytes(const store::Attempt& a)
{
  return a.lever_kind == domain::LeverKind::fusion || a.lever_kind == domain::LeverKind::precision;
}

// Every field of `h` (its strings keep their buffers) for verdict `v` of
// `run`, with the kernel's measured baseline when it has one.
void head_into(const store::ReportVerdict& v, const RunInfo& run, std::uint32_t run_index,
               const store::ReportVerdict* measured, HeadVerdict& h)
{
  h.run_id = v.run_id;
  h.run_index = run_index;
  h.run_date = run.run_date;
  h.gfx = run.gfx;
  h.round = v.round_order.value_or(0);
  h.round_label = v.round;
  h.short_name = v.short_name;
  h.op_class = v.op_class;
  h.pct_gpu_time = v.pct_gpu_time.value_or(0);
  const store::ReportVerdict& p = measured != nullptr ? *measured : v;
  h.roofline_pct = p.roofline_pct;
  h.target_eff = p.target_eff;
  h.attainable_speedup = p.attainable_speedup;
  h.expected_e2e_gain_pct = measured != nullptr && p.attainable_speedup && *p.attainable_speedup > 0.0
                                ? std::optional(h.pct_gpu_time * (1.0 - 1.0 / *p.attainable_speedup))
                                : v.expected_e2e_gain_pct;
  // A suspect or dispatch-bound analytic row has no verdict, whatever its
  // stored band says.
  h.headroom_class = measured != nullptr               ? p.headroom_class
                     : (v.suspect || v.dispatch_bound) ? std::string("unknown")
                                                       : v.headroom_class;
  h.source_kind = measured != nullptr ? "measured" : "analytic";
  h.headroom_ratio = measured != nullptr ? p.headroom_ratio : std::nullopt;
  h.guidance = measured != nullptr ? p.guidance : std::string();
  h.observed_limit = measured != nullptr ? p.observed_limit : std::string();
  h.disputed = measured != nullptr && p.disputed;
  h.byte_reduction_levers = v.byte_reduction_levers;
  h.followed_by_byte_reduction = false;
  h.is_newest_run = false;
}

// Heads of the latest profiled round of one run's `verdicts` into `out`
// (its first elements; their count is returned): the slots are reused from
// run to run, so their strings keep their buffers. Whether a byte-reduction
// lever (fusion or lower precision) was tried on the kernel afterwards and
// is_newest_run are set by the caller.
std::size_t heads(std::span<const store::ReportVerdict> verdicts, const RunInfo& run, std::uint32_t run_index,
                  std::vector<HeadVerdict>& out)
{
  int latest_round = std::numeric_limits<int>::min(); // read only for verdicts with a round
  for (const auto& v : verdicts) {
    if (!v.round.empty()) {
      latest_round = std::max(latest_round, v.round_order.value_or(0));
    }
  }
  const auto measured = measured_baselines(verdicts);
  std::size_t n = 0;
  for (const auto& v : verdicts) {
    if (v.round.empty() || v.round_order.value_or(0) != latest_round ||
        v.pct_gpu_time.value_or(0) < domain::k_head_min_pct) {
      continue;
    }
    if (n == out.size()) {
      out.emplace_back();
    }
    head_into(v, run, run_index, find_baseline(measured, v.short_name), out[n++]);
  }
  return n;
}

// A run's verdicts in report order: round_order (none first), pct_gpu_time
// descending (none last), short_name, verdict_id — what the rankings' and
// heads' first-of-equals rules read.
void sort_run_verdicts(std::span<store::ReportVerdict> vs)
{
  std::sort(vs.begin(), vs.end(), [](const store::ReportVerdict& a, const store::ReportVerdict& b) {
    if (a.round_order != b.round_order) {
      return a.round_order < b.round_order; // nullopt first
    }
    if (a.pct_gpu_time.has_value() != b.pct_gpu_time.has_value()) {
      return a.pct_gpu_time.has_value();
    }
    if (a.pct_gpu_time && *a.pct_gpu_time != *b.pct_gpu_time) {
      return *a.pct_gpu_time > *b.pct_gpu_time;
    }
    return std::tie(a.short_name, a.verdict_id) < std::tie(b.short_name, b.verdict_id);
  });
}

} // namespace

ReportInputBuilder::ReportInputBuilder(std::string as_of, std::optional<std::string> since,
                                       std::optional<std::string> gfx_filter, bool for_cards)
    : m_as_of_given(std::move(as_of)), m_for_cards(for_cards)
{
  m_in.since = std::move(since);
  m_in.gfx_filter = std::move(gfx_filter);
}

ReportInputBuilder::~ReportInputBuilder() = default;

RunInfo run_info(store::RunSummary r)
{
  const auto text = [](std::optional<std::string>& v) { return v ? std::move(*v) : std::string(); };
  return RunInfo{std::move(r.run_id), text(r.run_date),     text(r.model),
                 text(r.gfx),         text(r.backend),      to_int(r.isl),
                 to_int(r.osl),       to_int(r.conc),       std::move(r.validation_class),
                 text(r.model_dtype), r.measured_spread_pct};
}

AttemptInfo attempt_view(store::Attempt a, const RunInfo& run)
{
  AttemptInfo x;
  attempt_info(a, run, UINT32_MAX, x);
  return x;
}

void ReportInputBuilder::add_run(store::RunSummary r)
{
  m_newest_run_date.see(r.run_date.value_or(""));
  m_undated.push_back(!r.run_date.has_value());
  m_in.runs.push_back(run_info(std::move(r)));
}

void ReportInputBuilder::start()
{
  if (m_started) {
    return;
  }
  m_started = true;
  sort_runs();
  m_in.as_of = domain::resolve_as_of(m_as_of_given, m_newest_run_date);
  // The quadrant chart falls back to the newest run in scope.
  std::pair<std::string, std::string> newest;
  for (const auto& r : m_in.runs) {
    if (in_scope(r.run_date, r.gfx, m_in.as_of, m_in.since, m_in.gfx_filter)) {
      newest = std::max(newest, std::make_pair(r.run_date, r.run_id));
    }
  }
  m_watch = newest.second;
  // The digests number the runs as m_in.runs lists them: an attempt's or a
  // head's run_index is then its run's number, with no lookup of run_id.
  auto run_ids = std::make_shared<std::vector<std::string>>();
  run_ids->reserve(m_in.runs.size());
  for (const auto& r : m_in.runs) {
    run_ids->push_back(r.run_id);
  }
  m_run_ids = std::move(run_ids);
  reset_attempts();
  m_by_id.reserve(m_in.runs.size());
  for (std::uint32_t i = 0; i < m_in.runs.size(); ++i) {
    m_by_id.emplace(m_in.runs[i].run_id, i);
  }
}

void ReportInputBuilder::sort_runs()
{
  // The store reads the runs in table order: under the report's small page
  // cache SQLite's sorter grew its list into fresh memory, a quarter of the
  // runs' read (tools/bench/README.md).
  const auto less = [&](std::uint32_t x, std::uint32_t y) {
    const RunInfo& a = m_in.runs[x];
    const RunInfo& b = m_in.runs[y];
    const bool a_dated = !m_undated[x];
    const bool b_dated = !m_undated[y];
    return std::tie(a_dated, a.run_date, a.run_id) < std::tie(b_dated, b.run_date, b.run_id);
  };
  const auto n = static_cast<std::uint32_t>(m_in.runs.size());
  std::vector<std::uint32_t> order(n); // by run order: the read position
  std::iota(order.begin(), order.end(), 0U);
  m_next_read.resize(n);
  if (std::is_sorted(order.begin(), order.end(), less)) {
    std::iota(m_next_read.begin(), m_next_read.end(), 1U);
    return;
  }
  std::sort(order.begin(), order.end(), less);
  std::vector<RunInfo> runs;
  std::vector<bool> undated;
  std::vector<std::uint32_t> sorted_at(n); // by read position: the run order
  runs.reserve(n);
  undated.reserve(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    runs.push_back(std::move(m_in.runs[order[k]]));
    undated.push_back(m_undated[order[k]]);
    sorted_at[order[k]] = k;
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    m_next_read[k] = order[k] + 1 < n ? sorted_at[order[k] + 1] : n;
  }
  m_in.runs = std::move(runs);
  m_undated = std::move(undated);
}

const RunInfo* ReportInputBuilder::find_run(const std::string& run_id, const RunInfo* after) const
{
  if (after != nullptr) {
    const std::uint32_t next = m_next_read[static_cast<std::size_t>(after - m_in.runs.data())];
    if (next < m_in.runs.size() && m_in.runs[next].run_id == run_id) {
      return &m_in.runs[next];
    }
  }
  const auto it = m_by_id.find(run_id);
  return it == m_by_id.end() ? nullptr : &m_in.runs[it->second];
}

VerdictFold ReportInputBuilder::fold_verdicts()
{
  start();
  return VerdictFold(*this);
}

AttemptFold::AttemptFold(const ReportInputBuilder& builder, std::shared_ptr<AttemptDigest> digest)
    : m_builder(&builder), m_digest(std::move(digest))
{
}

AttemptFold::AttemptFold(AttemptFold&&) noexcept = default;
AttemptFold& AttemptFold::operator=(AttemptFold&&) noexcept = default;
AttemptFold::~AttemptFold() = default;

void AttemptFold::add(store::Attempt&& a)
{
  if (m_last_run == nullptr || m_last_run->run_id != a.run_id) {
    m_last_run = m_builder->find_run(a.run_id, m_last_run);
  }
  const RunInfo* run = m_last_run;
  if (run == nullptr) {
    return; // a run out of the filter
  }
  if (reduces_bytes(a)) {
    m_byte_reducing.insert({a.run_id, a.short_name});
  }
  const ReportInput& in = m_builder->m_in;
  attempt_info(a, *run, static_cast<std::uint32_t>(run - in.runs.data()), m_attempt);
  if (in_scope(m_attempt.run_date, m_attempt.gfx, in.as_of, in.since, in.gfx_filter)) {
    m_digest->add(m_attempt);
  }
}

std::shared_ptr<AttemptDigest> ReportInputBuilder::new_attempt_digest() const
{
  auto digest = std::make_shared<AttemptDigest>();
  digest->keep_all_cautions = m_for_cards;
  digest->number_runs(m_run_ids);
  return digest;
}

void ReportInputBuilder::reset_attempts()
{
  m_in.attempt_digest = new_attempt_digest();
  m_attempts.emplace(AttemptFold(*this, m_in.attempt_digest));
}

AttemptFold ReportInputBuilder::fold_attempts()
{
  start();
  return AttemptFold(*this, new_attempt_digest());
}

void ReportInputBuilder::add_attempt(store::Attempt&& a)
{
  start();
  m_attempts->add(std::move(a));
}

void ReportInputBuilder::take_attempts(AttemptFold&& fold)
{
  start();
  m_in.attempt_digest->merge(std::move(*fold.m_digest));
  m_attempts->m_byte_reducing.merge(fold.m_byte_reducing);
}

void ReportInputBuilder::drop_attempts()
{
  start();
  reset_attempts();
}

void ReportInputBuilder::add_finding(const store::ReportFinding& f)
{
  m_in.imported.push_back(imported(f));
}

namespace {

// "YYYY-MM-DD" when `text` starts with one, else "".
std::string date_prefix(std::string_view text)
{
  if (text.size() < 10) {
    return "";
  }
  for (std::size_t i = 0; i < 10; ++i) {
    const bool dash = i == 4 || i == 7;
    const char c = text[i];
    if (dash ? c != '-' : (c < '0' || c > '9')) {
      return "";
    }
  }
  return std::string(text.substr(0, 10));
}

int counter(std::int64_t v)
{
  return static_cast<int>(std::clamp<std::int64_t>(v, 0, std::numeric_limits<int>::max()));
}

} // namespace

KbRecordInfo kb_record_info(const store::KbRecord& r)
{
  KbRecordInfo x;
  x.record_key = r.record_key;
  x.lane = r.lane;
  x.gfx = r.gfx;
  x.kernel_name = r.kernel_name;
  x.kernel_class = r.kernel_class;
  x.backend = r.backend;
  x.framework = r.framework;
  x.framework_version = r.framework_version;
  x.model = r.model;
  x.precision = r.precision;
  x.direction = r.direction;
  x.strategy = r.strategy;
  x.speedup = r.speedup;
  x.throughput_tok_s = r.throughput_tok_s;
  x.baseline_tok_s = r.baseline_tok_s;
  x.content_signature = r.content_signature;
  x.reproductions = counter(r.reproductions.value_or(0));
  x.validations = counter(r.validations);
  x.failures = counter(r.failures);
  x.not_reproduced = counter(r.not_reproduced);
  x.inapplicable = counter(r.inapplicable);
  for (const auto& h : r.history) {
    if (h.outcome == "validated" || h.outcome == "failed" || h.outcome == "not_reproduced") {
      x.last_outcomes.push_back(h.outcome);
    }
  }
  if (x.last_outcomes.size() > static_cast<std::size_t>(domain::k_recent_window)) {
    x.last_outcomes.erase(x.last_outcomes.begin(),
                          x.last_outcomes.end() - static_cast<std::ptrdiff_t>(domain::k_recent_window));
  }
  x.retired = r.retired;
  x.retired_why = r.retired_why;
  x.date = date_prefix(r.verified_on);
  if (x.date.empty()) {
    x.date = date_prefix(r.last_at);
  }
  return x;
}

void ReportInputBuilder::add_kb_record(const store::KbRecord& r)
{
  m_in.kb_records.push_back(kb_record_info(r));
}

VerdictFold::VerdictFold(const ReportInputBuilder& builder)
    : m_builder(&builder), m_heads(std::make_shared<HeadDigest>()), m_seen(builder.m_in.runs.size())
{
  m_heads->watch(builder.m_watch);
  m_heads->number_runs(builder.m_run_ids);
}

VerdictFold::VerdictFold(VerdictFold&&) noexcept = default;
VerdictFold& VerdictFold::operator=(VerdictFold&&) noexcept = default;
VerdictFold::~VerdictFold() = default;

void VerdictFold::add(store::ReportVerdict&& v)
{
  if (m_split) {
    return;
  }
  if (m_run_count != 0 && m_run_verdicts.front().run_id != v.run_id) {
    flush_run();
  }
  if (m_run_count == 0) {
    m_run = m_builder->find_run(v.run_id, m_run);
    if (m_run == nullptr) {
      return; // a run out of the filter
    }
    const auto i = static_cast<std::size_t>(m_run - m_builder->m_in.runs.data());
    if (m_seen[i]) {
      m_split = true; // its first rows were folded already
      return;
    }
    m_seen[i] = true;
  }
  if (!v.round.empty() &&
      (m_run->run_date > m_newest_date || (m_run->run_date == m_newest_date && v.run_id > m_newest_run))) {
    m_newest_date = m_run->run_date;
    m_newest_run = v.run_id;
  }
  // The slots of earlier runs are reused: `v` takes the old strings' buffers
  // back to the reader.
  if (m_run_count < m_run_verdicts.size()) {
    std::swap(m_run_verdicts[m_run_count], v);
  } else {
    m_run_verdicts.push_back(std::move(v));
  }
  ++m_run_count;
}

void VerdictFold::flush_run()
{
  // A round whose rankings agree is only counted (routing quality lists the
  // disagreements); a round of a run out of scope is dropped by the analysis.
  if (m_run_count == 0) {
    return;
  }
  const ReportInput& in = m_builder->m_in;
  const std::span<store::ReportVerdict> verdicts(m_run_verdicts.data(), m_run_count);
  const RunInfo& run = *m_run;
  const bool scoped = in_scope(run.run_date, run.gfx, in.as_of, in.since, in.gfx_filter);
  const auto run_index = static_cast<std::uint32_t>(m_run - in.runs.data());
  sort_run_verdicts(verdicts);
  round_tops(verdicts, m_tops);
  for (const auto& t : m_tops) {
    if (scoped && !t.by_pct->short_name.empty() && t.by_pct->short_name == t.by_gain->short_name) {
      ++m_agreed_rounds;
    } else {
      m_rankings.push_back(ranking(t, run_index));
    }
  }
  // A head is in scope as its run is (its date and gfx are the run's).
  if (scoped) {
    const std::size_t n = heads(verdicts, run, run_index, m_run_heads);
    m_heads->add_run(std::span<const HeadVerdict>(m_run_heads.data(), n));
  }
  m_run_count = 0;
}

Result<void> fold_report_verdicts(store::Database& db, const store::EvidenceFilter& filter, VerdictFold& fold)
{
  store::ReportEvidenceSink sink;
  sink.verdict = [&](store::ReportVerdict&& v) { fold.add(std::move(v)); };
  RFDB_TRY(store::read_report_evidence(db, filter, sink, store::ReportRows::verdicts));
  if (fold.split()) {
    fold = VerdictFold(*fold.m_builder);
    RFDB_TRY(store::read_report_evidence(db, filter, sink, store::ReportRows::verdicts_by_run));
  }
  return {};
}

ReportInput ReportInputBuilder::finish(VerdictFold fold, calibrate::PriorsResult priors)
{
  start();
  fold.flush_run();
  m_in.agreed_rounds = fold.m_agreed_rounds;
  m_in.head_digest = std::move(fold.m_heads);
  // Rankings in run order (m_in.runs' order, see sort_runs), a run's in its
  // verdict order.
  std::vector<std::pair<std::uint32_t, RoundRanking>> ranked;
  ranked.reserve(fold.m_rankings.size());
  for (auto& r : fold.m_rankings) {
    const RunInfo* run = find_run(r.run_id);
    ranked.emplace_back(static_cast<std::uint32_t>(run - m_in.runs.data()), std::move(r));
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  m_in.rankings.clear();
  for (auto& [i, r] : ranked) {
    m_in.rankings.push_back(std::move(r));
  }
  m_in.head_digest->flag_newest(fold.m_newest_run);
  m_in.head_digest->for_each_kept([&](HeadVerdict& h) {
    h.followed_by_byte_reduction = m_attempts->m_byte_reducing.count({h.run_id, h.short_name}) != 0;
  });
  m_in.priors = std::move(priors);
  std::sort(m_in.kb_records.begin(), m_in.kb_records.end(),
            [](const KbRecordInfo& x, const KbRecordInfo& y) { return x.record_key < y.record_key; });
  return std::move(m_in);
}

} // namespace rfdb::report
