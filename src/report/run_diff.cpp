// Comparing two stored runs (declared in report/run_diff.hpp).
#include "report/run_diff.hpp"

#include "domain/noise.hpp"
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "domain/vocab.hpp"
#include "report/lookup.hpp"
#include "store/stack.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace rfdb::report {

namespace {

// Equal at the unit's precision: numbers rounded to the decimals they are shown with.
bool same_value(const DiffValue& a, const DiffValue& b, DiffUnit unit)
{
  const auto* x = std::get_if<double>(&a);
  const auto* y = std::get_if<double>(&b);
  const int dp = diff_decimals(unit);
  if (x != nullptr && y != nullptr && dp >= 0) {
    const double scale = std::pow(10.0, dp);
    return std::round(*x * scale) == std::round(*y * scale);
  }
  return a == b;
}

template <typename T> DiffValue value(const std::optional<T>& v)
{
  if (!v) {
    return std::monostate{};
  }
  if constexpr (std::is_same_v<T, int>) {
    return static_cast<std::int64_t>(*v);
  } else {
    return *v;
  }
}

FieldDiff field(std::string name, DiffValue a, DiffValue b, DiffUnit unit)
{
  FieldDiff f{std::move(name), std::move(a), std::move(b), unit, false};
  f.changed = !same_value(f.a, f.b, unit);
  return f;
}

// One field per tag key either run carries, in key order: the value, or none where the run
// lacks the key.
std::vector<FieldDiff> tag_fields(const store::RunDetail& a, const store::RunDetail& b)
{
  std::map<std::string, std::pair<DiffValue, DiffValue>> keys;
  for (const auto& t : a.tags) {
    keys[t.key].first = t.value;
  }
  for (const auto& t : b.tags) {
    keys[t.key].second = t.value;
  }
  std::vector<FieldDiff> out;
  for (auto& [key, values] : keys) {
    out.push_back(field(key, std::move(values.first), std::move(values.second), DiffUnit::text));
  }
  return out;
}

std::vector<FieldDiff> identity_fields(const store::RunDetail& a, const store::RunDetail& b)
{
  using U = DiffUnit;
  return {field("run_id", a.run_id, b.run_id, U::text),
          field("run_date", value(a.run_date), value(b.run_date), U::text),
          field("model", value(a.model), value(b.model), U::text),
          field("model_arch_class", value(a.model_arch_class), value(b.model_arch_class), U::text),
          field("gfx", value(a.gfx), value(b.gfx), U::text),
          field("device_name", value(a.device_name), value(b.device_name), U::text),
          field("backend", value(a.backend), value(b.backend), U::text),
          field("backend_version", value(a.backend_version), value(b.backend_version), U::text),
          field("retracted", a.retracted_reason.has_value(), b.retracted_reason.has_value(), U::flag)};
}

std::vector<FieldDiff> workload_fields(const store::RunDetail& a, const store::RunDetail& b)
{
  using U = DiffUnit;
  return {
      field("isl", value(a.isl), value(b.isl), U::count), field("osl", value(a.osl), value(b.osl), U::count),
      field("conc", value(a.conc), value(b.conc), U::count), field("tp", value(a.tp), value(b.tp), U::count),
      field("precision", value(a.model_dtype), value(b.model_dtype), U::text)};
}

std::vector<FieldDiff> throughput_fields(const store::RunDetail& a, const store::RunDetail& b)
{
  using U = DiffUnit;
  const auto spread_a = store::measured_spread_pct(a.bench);
  const auto spread_b = store::measured_spread_pct(b.bench);
  const auto band_a = domain::run_e2e_band(spread_a);
  const auto band_b = domain::run_e2e_band(spread_b);
  return {field("baseline_throughput_tok_s", value(a.baseline_throughput_tok_s),
                value(b.baseline_throughput_tok_s), U::throughput),
          field("final_throughput_tok_s", value(a.final_throughput_tok_s), value(b.final_throughput_tok_s),
                U::throughput),
          field("throughput_speedup", value(a.throughput_speedup), value(b.throughput_speedup), U::speedup),
          field("measured_spread_pct", value(spread_a), value(spread_b), U::percent),
          field("e2e_band_pct", band_a.pct, band_b.pct, U::percent),
          field("e2e_band_source", std::string(domain::to_string(band_a.source)),
                std::string(domain::to_string(band_b.source)), U::text)};
}

std::vector<FieldDiff> validation_fields(const store::RunDetail& a, const store::RunDetail& b)
{
  using U = DiffUnit;
  return {field("validation_class", a.validation_class, b.validation_class, U::text),
          field("validation_status", value(a.validation_status), value(b.validation_status), U::text),
          field("output_parity", value(a.output_parity), value(b.output_parity), U::text)};
}

std::vector<StackDiff> stack_diff(const store::RunDetail& a, const store::RunDetail& b)
{
  std::set<std::string> packages;
  for (const auto& r : a.stack) {
    packages.insert(r.package);
  }
  for (const auto& r : b.stack) {
    packages.insert(r.package);
  }
  std::vector<StackDiff> out;
  for (const auto& p : packages) {
    StackDiff d{p, std::nullopt, std::nullopt, DiffState::same};
    if (const auto* r = store::find_package(a.stack, p, std::nullopt)) {
      d.a = *r;
    }
    if (const auto* r = store::find_package(b.stack, p, std::nullopt)) {
      d.b = *r;
    }
    d.state = !d.b                                                                 ? DiffState::only_a
              : !d.a                                                               ? DiffState::only_b
              : store::stack_version_text(*d.a) == store::stack_version_text(*d.b) ? DiffState::same
                                                                                   : DiffState::changed;
    out.push_back(std::move(d));
  }
  return out;
}

// ---- heads

// The verdicts of one run the heads are read from: its latest analytic round, in stored order
// (pct_gpu_time descending), and its usable measured baselines by folded kernel name.
struct HeadSource {
  std::vector<const store::VerdictRow*> latest;
  std::map<std::string, const store::VerdictRow*> measured;
};

bool usable_measured(const store::VerdictRow& v)
{
  return v.roofline_pct && v.target_eff && *v.target_eff > 0.0 && !v.suspect &&
         domain::is_banded(v.headroom_class);
}

HeadSource head_source(const store::RunDetail& r)
{
  HeadSource s;
  std::optional<std::string> latest;
  for (const auto& v : r.verdicts) { // analytic rows come in round order (queries/run_verdicts.sql)
    if (domain::is(v.source_kind, domain::SourceKind::analytic) && v.round) {
      latest = v.round;
    }
  }
  for (const auto& v : r.verdicts) {
    if (domain::is(v.source_kind, domain::SourceKind::analytic)) {
      if (v.round && v.round == latest) {
        s.latest.push_back(&v);
      }
    } else if (v.phase == "baseline" && usable_measured(v)) {
      s.measured.emplace(fold_kernel_name(v.short_name), &v); // the first one wins
    }
  }
  return s;
}

HeadSide head_side(const store::VerdictRow& v, const HeadSource& src)
{
  HeadSide h;
  h.round = v.round.value_or("");
  h.short_name = v.short_name;
  h.op_class = v.op_class;
  h.pct_gpu_time = v.pct_gpu_time;
  const auto it = src.measured.find(fold_kernel_name(v.short_name));
  const store::VerdictRow& p = it != src.measured.end() ? *it->second : v;
  h.source = it != src.measured.end() ? "measured" : "analytic";
  h.roofline_pct = p.roofline_pct;
  h.target_eff = p.target_eff;
  h.attainable_speedup = p.attainable_speedup;
  h.expected_e2e_gain_pct = v.expected_e2e_gain_pct;
  if (it != src.measured.end()) {
    h.expected_e2e_gain_pct = v.pct_gpu_time && p.attainable_speedup && *p.attainable_speedup > 0.0
                                  ? std::optional(*v.pct_gpu_time * (1.0 - 1.0 / *p.attainable_speedup))
                                  : std::nullopt;
  }
  h.headroom_class = p.headroom_class;
  h.bound_type = p.bound_type;
  return h;
}

bool is_head(const store::VerdictRow& v)
{
  return v.pct_gpu_time && *v.pct_gpu_time >= domain::k_head_min_pct;
}

const store::VerdictRow* find_folded(const HeadSource& src, const std::string& folded)
{
  for (const auto* v : src.latest) {
    if (fold_kernel_name(v->short_name) == folded) {
      return v;
    }
  }
  return nullptr;
}

std::vector<FieldDiff> head_fields(const std::optional<HeadSide>& a, const std::optional<HeadSide>& b)
{
  using U = DiffUnit;
  auto get = [](const std::optional<HeadSide>& h, auto member) -> DiffValue {
    if (!h) {
      return std::monostate{};
    }
    if constexpr (std::is_same_v<std::decay_t<decltype((*h).*member)>, std::string>) {
      return (*h).*member;
    } else {
      return value((*h).*member);
    }
  };
  std::vector<FieldDiff> out{
      field("pct_gpu_time", get(a, &HeadSide::pct_gpu_time), get(b, &HeadSide::pct_gpu_time), U::percent),
      field("source", get(a, &HeadSide::source), get(b, &HeadSide::source), U::text),
      field("roofline_pct", get(a, &HeadSide::roofline_pct), get(b, &HeadSide::roofline_pct), U::fraction),
      field("target_eff", get(a, &HeadSide::target_eff), get(b, &HeadSide::target_eff), U::fraction),
      field("attainable_speedup", get(a, &HeadSide::attainable_speedup),
            get(b, &HeadSide::attainable_speedup), U::speedup),
      field("expected_e2e_gain_pct", get(a, &HeadSide::expected_e2e_gain_pct),
            get(b, &HeadSide::expected_e2e_gain_pct), U::percent),
      field("headroom_class", get(a, &HeadSide::headroom_class), get(b, &HeadSide::headroom_class), U::text),
      field("bound_type", get(a, &HeadSide::bound_type), get(b, &HeadSide::bound_type), U::text),
      field("op_class", get(a, &HeadSide::op_class), get(b, &HeadSide::op_class), U::text)};
  if (!a || !b) {
    for (auto& f : out) {
      f.changed = false; // the state (only_a / only_b) says it
    }
  }
  return out;
}

DiffState state_of(bool has_a, bool has_b, const std::vector<FieldDiff>& fields)
{
  if (!has_b) {
    return DiffState::only_a;
  }
  if (!has_a) {
    return DiffState::only_b;
  }
  return std::any_of(fields.begin(), fields.end(), [](const FieldDiff& f) { return f.changed; })
             ? DiffState::changed
             : DiffState::same;
}

std::vector<HeadDiff> heads_diff(const store::RunDetail& a, const store::RunDetail& b)
{
  const HeadSource sa = head_source(a);
  const HeadSource sb = head_source(b);
  std::vector<std::string> keys; // folded names, A's heads first, then B's
  auto add_heads = [&keys](const HeadSource& s) {
    for (const auto* v : s.latest) {
      const std::string k = fold_kernel_name(v->short_name);
      if (is_head(*v) && std::find(keys.begin(), keys.end(), k) == keys.end()) {
        keys.push_back(k);
      }
    }
  };
  add_heads(sa);
  add_heads(sb);
  std::vector<HeadDiff> out;
  for (const auto& k : keys) {
    HeadDiff d;
    const auto* va = find_folded(sa, k);
    const auto* vb = find_folded(sb, k);
    if (va != nullptr) {
      d.a = head_side(*va, sa);
    }
    if (vb != nullptr) {
      d.b = head_side(*vb, sb);
    }
    d.kernel = va != nullptr ? va->short_name : vb->short_name;
    d.fields = head_fields(d.a, d.b);
    d.state = state_of(d.a.has_value(), d.b.has_value(), d.fields);
    out.push_back(std::move(d));
  }
  return out;
}

// ---- attempts

AttemptSide attempt_side(const store::AttemptRow& r)
{
  AttemptSide s;
  s.attempt = r.attempt_key;
  s.short_name = r.short_name;
  s.kind = std::string(domain::to_string(r.kind));
  s.lever = r.lever;
  s.verdict = std::string(domain::to_string(r.verdict));
  s.gate = r.gate;
  s.output_parity = r.output_parity;
  s.reject_reason = r.reject_reason;
  s.measured = r.measured;
  s.deployed = r.deployed;
  s.isolated_speedup = r.isolated_speedup;
  s.e2e_delta_pct = r.e2e_delta_pct;
  return s;
}

std::vector<FieldDiff> attempt_fields(const std::optional<AttemptSide>& a,
                                      const std::optional<AttemptSide>& b)
{
  using U = DiffUnit;
  auto get = [](const std::optional<AttemptSide>& s, auto member) -> DiffValue {
    if (!s) {
      return std::monostate{};
    }
    using M = std::decay_t<decltype((*s).*member)>;
    if constexpr (std::is_same_v<M, std::string> || std::is_same_v<M, bool>) {
      return (*s).*member;
    } else {
      return value((*s).*member);
    }
  };
  std::vector<FieldDiff> out{
      field("gate", get(a, &AttemptSide::gate), get(b, &AttemptSide::gate), U::text),
      field("verdict", get(a, &AttemptSide::verdict), get(b, &AttemptSide::verdict), U::text),
      field("measured", get(a, &AttemptSide::measured), get(b, &AttemptSide::measured), U::flag),
      field("deployed", get(a, &AttemptSide::deployed), get(b, &AttemptSide::deployed), U::flag),
      field("isolated_speedup", get(a, &AttemptSide::isolated_speedup),
            get(b, &AttemptSide::isolated_speedup), U::speedup),
      field("e2e_delta_pct", get(a, &AttemptSide::e2e_delta_pct), get(b, &AttemptSide::e2e_delta_pct),
            U::percent),
      field("output_parity", get(a, &AttemptSide::output_parity), get(b, &AttemptSide::output_parity),
            U::text),
      field("reject_reason", get(a, &AttemptSide::reject_reason), get(b, &AttemptSide::reject_reason),
            U::text)};
  if (!a || !b) {
    for (auto& f : out) {
      f.changed = false;
    }
  }
  return out;
}

using AttemptKey = std::pair<std::string, std::string>; // kernel folded, lever key

AttemptKey attempt_key_of(const store::AttemptRow& r)
{
  return {fold_kernel_name(r.short_name), domain::lever_key(r.lever, domain::to_string(r.op_class))};
}

std::vector<AttemptDiff> attempts_diff(const store::RunDetail& a, const store::RunDetail& b)
{
  std::vector<AttemptKey> keys_b;
  keys_b.reserve(b.attempts.size());
  for (const auto& r : b.attempts) {
    keys_b.push_back(attempt_key_of(r));
  }
  std::vector<bool> used_b(b.attempts.size(), false);
  std::vector<AttemptKey> keys_a;
  keys_a.reserve(a.attempts.size());
  for (const auto& r : a.attempts) {
    keys_a.push_back(attempt_key_of(r));
  }
  // Pair each of A's attempts: the same key and attempt_key first, then the same key in order.
  std::vector<std::optional<std::size_t>> partner(a.attempts.size());
  for (const bool by_attempt_key : {true, false}) {
    for (std::size_t i = 0; i < a.attempts.size(); ++i) {
      if (partner[i]) {
        continue;
      }
      for (std::size_t j = 0; j < b.attempts.size(); ++j) {
        if (!used_b[j] && keys_a[i] == keys_b[j] &&
            (!by_attempt_key || a.attempts[i].attempt_key == b.attempts[j].attempt_key)) {
          partner[i] = j;
          used_b[j] = true;
          break;
        }
      }
    }
  }
  std::vector<AttemptDiff> out;
  auto push = [&out](const AttemptKey& key, const store::AttemptRow* ra, const store::AttemptRow* rb) {
    AttemptDiff d;
    d.kernel = ra != nullptr ? ra->short_name : rb->short_name;
    d.lever_key = key.second;
    if (ra != nullptr) {
      d.a = attempt_side(*ra);
    }
    if (rb != nullptr) {
      d.b = attempt_side(*rb);
    }
    d.fields = attempt_fields(d.a, d.b);
    d.state = state_of(d.a.has_value(), d.b.has_value(), d.fields);
    out.push_back(std::move(d));
  };
  for (std::size_t i = 0; i < a.attempts.size(); ++i) {
    push(keys_a[i], &a.attempts[i], partner[i] ? &b.attempts[*partner[i]] : nullptr);
  }
  for (std::size_t j = 0; j < b.attempts.size(); ++j) {
    if (!used_b[j]) {
      push(keys_b[j], nullptr, &b.attempts[j]);
    }
  }
  return out;
}

} // namespace

int diff_decimals(DiffUnit unit)
{
  switch (unit) {
  case DiffUnit::speedup:
    return 3;
  case DiffUnit::percent:
    return 2;
  case DiffUnit::fraction:
    return 4;
  case DiffUnit::throughput:
    return 1;
  case DiffUnit::text:
  case DiffUnit::count:
  case DiffUnit::flag:
    break;
  }
  return -1;
}

std::string_view to_string(DiffState state)
{
  switch (state) {
  case DiffState::same:
    return "same";
  case DiffState::changed:
    return "changed";
  case DiffState::only_a:
    return "only_a";
  case DiffState::only_b:
    return "only_b";
  }
  return "same";
}

std::size_t RunDiff::differences() const
{
  std::size_t n = 0;
  for (const auto* fields : {&identity, &workload, &throughput, &validation, &tags}) {
    n += static_cast<std::size_t>(
        std::count_if(fields->begin(), fields->end(), [](const FieldDiff& f) { return f.changed; }));
  }
  auto count = [&n](const auto& items) {
    n += static_cast<std::size_t>(
        std::count_if(items.begin(), items.end(), [](const auto& x) { return x.state != DiffState::same; }));
  };
  count(stack);
  count(heads);
  count(attempts);
  return n;
}

RunDiff diff_runs(const store::RunDetail& a, const store::RunDetail& b)
{
  RunDiff d;
  d.run_a = a.run_id;
  d.run_b = b.run_id;
  d.date_a = a.run_date;
  d.date_b = b.run_date;
  d.identity = identity_fields(a, b);
  d.stack = stack_diff(a, b);
  d.workload = workload_fields(a, b);
  d.heads = heads_diff(a, b);
  d.attempts = attempts_diff(a, b);
  d.throughput = throughput_fields(a, b);
  d.validation = validation_fields(a, b);
  d.tags = tag_fields(a, b);
  return d;
}

Result<RunDiff> diff_runs(store::Database& db, const std::string& run_a, const std::string& run_b)
{
  store::RunDetail a, b;
  RFDB_TRY_ASSIGN(a, store::get_run(db, run_a));
  RFDB_TRY_ASSIGN(b, store::get_run(db, run_b));
  return diff_runs(a, b);
}

} // namespace rfdb::report
