// workflow_return.json (docs/artifacts.md, "Attempts"): the run's headline outcome and
// the orchestrator's own record of every direction it tried — the ledger
// (state.history.ledger) and the accepted / pending / flagged lists.
//
// The orchestrator JS writes 0 for "failed / not measured" (§3.1), so in this
// file an isolated speedup of 0 reads as null, and a ledger e2e_delta_pct of
// 0 on a verdict other than confirmed reads as null; so do 0 throughputs,
// speedups and e2e deltas in the accepted lists and the headline. Negative
// or non-finite speedups are still errors.
#include "domain/normalize.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/core.h>

namespace rfdb::ingest {

using detail::add_file;
using detail::invalid;
using detail::k_root;
using detail::require_object;
using detail::ZeroSpeedup;

namespace {

// Ledger lessons for per-candidate rows read "<winner_kind> <backend>: …".
std::optional<std::string> winner_kind_from_lesson(const std::optional<std::string>& lesson)
{
  if (!lesson) {
    return std::nullopt;
  }
  const auto space = lesson->find(' ');
  const std::string first = util::lower_ascii(lesson->substr(0, space));
  for (const char* kind : {"env", "flag", "patch", "authored", "direct_light"}) {
    if (first == kind && space != std::string::npos) {
      return first;
    }
  }
  return std::nullopt;
}

void finish_lever(AttemptRecord& a, std::string_view origin)
{
  a.lever = detail::describe_lever(a.winner_kind, a.backend, std::nullopt, std::nullopt);
  a.lever_kind = domain::canonical<domain::LeverKind>(
      domain::lever_kind_for({origin, a.winner_kind.value_or(""), a.backend.value_or(""), a.lever}));
}

// A reference row's short_name, which every ledger list requires.
// Errors: invalid_input "<ptr>/short_name: missing".
Result<std::string> required_short_name(const json& row, const std::string& ptr)
{
  std::optional<std::string> short_name;
  RFDB_TRY_ASSIGN(short_name, get_string(row, "short_name", ptr));
  if (!short_name) {
    return invalid(fmt::format("{}/short_name: missing", ptr));
  }
  return *short_name;
}

Result<AttemptRecord> ledger_row(const json& row, const std::string& ptr, std::string_view rel_path,
                                 std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(row, ptr));
  AttemptRecord a;
  std::optional<std::string> direction;
  RFDB_TRY_ASSIGN(direction, get_string(row, "direction", ptr));
  if (!direction) {
    return invalid(fmt::format("{}/direction: missing (required for every ledger row)", ptr));
  }
  const auto colon = direction->rfind(':');
  a.short_name = direction->substr(0, colon);
  if (colon != std::string::npos && colon + 1 < direction->size()) {
    a.backend = direction->substr(colon + 1);
  }
  a.candidate = direction;
  detail::warn_misspelled_keys(row, {"isolated_speedup", "e2e_delta_pct", "verdict"}, ptr, rel_path,
                               warnings);
  RFDB_TRY_ASSIGN(a.isolated_speedup,
                  detail::get_speedup(row, "isolated_speedup", ptr, ZeroSpeedup::means_not_measured));
  RFDB_TRY_ASSIGN(a.e2e_delta_pct, detail::get_e2e_delta(row, "e2e_delta_pct", ptr));
  RFDB_TRY_ASSIGN(a.verdict_raw, get_string(row, "verdict", ptr));
  const domain::Normalized v = domain::attempt_verdict_from_ledger(a.verdict_raw.value_or("unknown"));
  a.verdict = domain::canonical<domain::Verdict>(v.value);
  if (!v.recognized) {
    detail::warn(warnings, rel_path, child_pointer(ptr, "verdict"),
                 fmt::format("ledger verdict '{}' is not in the vocabulary; stored as unknown",
                             a.verdict_raw.value_or("")));
  }
  if (a.e2e_delta_pct && *a.e2e_delta_pct == 0.0 && a.verdict != domain::Verdict::confirmed) {
    a.e2e_delta_pct.reset();
  }
  RFDB_TRY_ASSIGN(a.reason, get_string(row, "lesson", ptr));
  RFDB_TRY_ASSIGN(a.round, get_string(row, "round", ptr));
  a.winner_kind = winner_kind_from_lesson(a.reason);
  if (a.backend || a.winner_kind) {
    finish_lever(a, "ledger");
  } else {
    a.lever = "direction " + *direction;
    a.lever_kind = domain::LeverKind::other;
  }
  a.origin = "ledger";
  a.json_pointer = ptr;
  return a;
}

// accepted_heads / accepted_kernels row: a lever the orchestrator banked.
// confirmed, or partial when its own e2e_delta_pct shows a loss (a `stack`
// accept); an e2e_delta_pct of exactly 0 reads as not measured.
Result<AttemptRecord> accepted_row(const json& row, const std::string& ptr, std::string_view rel_path,
                                   std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(row, ptr));
  AttemptRecord a;
  RFDB_TRY_ASSIGN(a.short_name, required_short_name(row, ptr));
  RFDB_TRY_ASSIGN(a.backend, get_string(row, "backend", ptr));
  RFDB_TRY_ASSIGN(a.winner_kind, detail::first_string(row, {"kind", "winner_kind"}, ptr));
  detail::warn_misspelled_keys(row, {"isolated", "e2e_delta_pct"}, ptr, rel_path, warnings);
  RFDB_TRY_ASSIGN(a.isolated_speedup,
                  detail::get_speedup(row, "isolated", ptr, ZeroSpeedup::means_not_measured));
  RFDB_TRY_ASSIGN(a.e2e_delta_pct, detail::get_e2e_delta(row, "e2e_delta_pct", ptr));
  std::optional<bool> corrective;
  RFDB_TRY_ASSIGN(corrective, get_bool(row, "corrective", ptr));
  a.verdict_raw = corrective.value_or(false) ? "confirmed_corrective" : "accepted";
  if (a.e2e_delta_pct && *a.e2e_delta_pct == 0.0) {
    a.e2e_delta_pct.reset(); // the orchestrator's "not measured"
  }
  a.verdict =
      a.e2e_delta_pct && *a.e2e_delta_pct < 0.0 ? domain::Verdict::partial : domain::Verdict::confirmed;
  std::optional<std::string> op_kind;
  RFDB_TRY_ASSIGN(op_kind, get_string(row, "op_kind", ptr));
  a.op_class = domain::canonical<domain::OpClass>(detail::attempt_op_class(op_kind, rel_path, ptr, warnings));
  finish_lever(a, "accepted");
  a.origin = "accepted";
  a.json_pointer = ptr;
  return a;
}

// pending_integrations row: an A/B that never finished (verdict incomplete).
Result<AttemptRecord> pending_row(const json& row, const std::string& ptr)
{
  RFDB_TRY(require_object(row, ptr));
  AttemptRecord a;
  RFDB_TRY_ASSIGN(a.short_name, required_short_name(row, ptr));
  RFDB_TRY_ASSIGN(a.backend, get_string(row, "backend", ptr));
  RFDB_TRY_ASSIGN(a.winner_kind, detail::first_string(row, {"kind", "winner_kind"}, ptr));
  RFDB_TRY_ASSIGN(a.isolated_speedup,
                  detail::get_speedup(row, "isolated", ptr, ZeroSpeedup::means_not_measured));
  RFDB_TRY_ASSIGN(a.pct_gpu_time, detail::get_pct(row, "pct_gpu_time", ptr));
  const auto it = row.find("partial");
  if (it != row.end() && it->is_object()) {
    const std::string pp = child_pointer(ptr, "partial");
    std::optional<std::string> gate;
    RFDB_TRY_ASSIGN(gate, get_string(*it, "gate", pp));
    a.gate = gate ? std::optional(util::lower_ascii(*gate)) : std::nullopt;
    RFDB_TRY_ASSIGN(a.reason, get_string(*it, "reason", pp));
    std::optional<double> ref;
    std::optional<double> cand;
    RFDB_TRY_ASSIGN(ref, get_double(*it, "ref_med", pp));
    RFDB_TRY_ASSIGN(cand, get_double(*it, "cand_med", pp));
    if (ref && cand && *ref > 0.0 && *cand > 0.0) {
      a.e2e_delta_pct = (*cand - *ref) / *ref * 100.0;
    }
  }
  a.verdict = domain::Verdict::incomplete;
  a.verdict_raw = "pending";
  finish_lever(a, "accepted");
  a.origin = "pending";
  a.json_pointer = ptr;
  return a;
}

// flagged_heads row: a dominant head that could not be extracted/measured.
Result<AttemptRecord> flagged_row(const json& row, const std::string& ptr)
{
  RFDB_TRY(require_object(row, ptr));
  AttemptRecord a;
  RFDB_TRY_ASSIGN(a.short_name, required_short_name(row, ptr));
  RFDB_TRY_ASSIGN(a.pct_gpu_time, detail::get_pct(row, "pct_gpu_time", ptr));
  std::optional<std::string> gate;
  RFDB_TRY_ASSIGN(gate, get_string(row, "gate", ptr));
  a.gate = gate ? std::optional(util::lower_ascii(*gate)) : std::nullopt;
  RFDB_TRY_ASSIGN(a.reason, get_string(row, "reason", ptr));
  std::optional<std::string> stage;
  RFDB_TRY_ASSIGN(stage, get_string(row, "stage", ptr));
  a.verdict = domain::Verdict::flagged;
  a.verdict_raw = "flagged";
  a.lever = stage ? fmt::format("flagged head (stage {})", *stage) : "flagged head";
  a.lever_kind = domain::LeverKind::other;
  a.origin = "flagged";
  a.json_pointer = ptr;
  return a;
}

// The array at `key` of the return, else of `state` (the carried copy).
std::pair<const json*, std::string> find_list(const json& doc, std::string_view key)
{
  const auto top = doc.find(key);
  if (top != doc.end() && top->is_array()) {
    return {&*top, child_pointer("", key)};
  }
  const auto state = doc.find("state");
  if (state != doc.end() && state->is_object()) {
    const auto inner = state->find(key);
    if (inner != state->end() && inner->is_array()) {
      return {&*inner, child_pointer("/state", key)};
    }
  }
  return {nullptr, ""};
}

// The ledger: state.history.ledger, else history.ledger.
std::pair<const json*, std::string> find_ledger(const json& doc)
{
  const auto member = [](const json* obj, std::string_view key) -> const json* {
    if (obj == nullptr || !obj->is_object()) {
      return nullptr;
    }
    const auto it = obj->find(key);
    return it == obj->end() ? nullptr : &*it;
  };
  const json* ledger = member(member(member(&doc, "state"), "history"), "ledger");
  if (ledger != nullptr && ledger->is_array()) {
    return {ledger, "/state/history/ledger"};
  }
  ledger = member(member(&doc, "history"), "ledger");
  if (ledger != nullptr && ledger->is_array()) {
    return {ledger, "/history/ledger"};
  }
  return {nullptr, ""};
}

template <typename RowParser>
Result<void> collect(const std::pair<const json*, std::string>& list, RowParser parse,
                     std::vector<AttemptRecord>& out)
{
  if (list.first == nullptr) {
    return {};
  }
  for (std::size_t i = 0; i < list.first->size(); ++i) {
    AttemptRecord a;
    RFDB_TRY_ASSIGN(a, parse((*list.first)[i], child_pointer(list.second, i)));
    out.push_back(std::move(a));
  }
  return {};
}

Result<RunOutcome> workflow_outcome(const json& doc, std::string_view rel_path,
                                    std::vector<Warning>& warnings)
{
  static const json k_empty = json::object();
  const auto st = doc.find("state");
  const json& state = st != doc.end() && st->is_object() ? *st : k_empty;
  RunOutcome o;
  RFDB_TRY_ASSIGN(o.model, get_string(doc, "model_name", k_root));
  if (!o.model) {
    RFDB_TRY_ASSIGN(o.model, get_string(state, "model_name", "/state"));
  }
  // 0 is the orchestrator's "not measured" default for these fields.
  const auto throughput = [&](const json& obj, std::string_view key,
                              const std::string& ptr) -> Result<std::optional<double>> {
    std::optional<double> v;
    RFDB_TRY_ASSIGN(v, detail::get_non_negative(obj, key, ptr));
    return v && *v == 0.0 ? std::nullopt : v;
  };
  RFDB_TRY_ASSIGN(o.baseline_throughput_tok_s, throughput(doc, "baseline_throughput_tok_s", k_root));
  if (!o.baseline_throughput_tok_s) {
    RFDB_TRY_ASSIGN(o.baseline_throughput_tok_s, throughput(state, "baseline_throughput_tok_s", "/state"));
  }
  RFDB_TRY_ASSIGN(o.final_throughput_tok_s, throughput(doc, "final_throughput_tok_s", k_root));
  RFDB_TRY_ASSIGN(o.throughput_speedup,
                  detail::get_speedup(doc, "throughput_speedup", k_root, ZeroSpeedup::means_not_measured));
  RFDB_TRY(detail::read_validation(doc, rel_path, warnings, o));
  return o;
}

// model_name, backend and workload {isl, osl, conc}: top level, else `state`.
Result<EnvReport> workflow_identity(const json& doc)
{
  static const json k_empty = json::object();
  const auto st = doc.find("state");
  const json& state = st != doc.end() && st->is_object() ? *st : k_empty;
  EnvReport id;
  RFDB_TRY_ASSIGN(id.model, get_string(doc, "model_name", k_root));
  if (!id.model) {
    RFDB_TRY_ASSIGN(id.model, get_string(state, "model_name", "/state"));
  }
  RFDB_TRY_ASSIGN(id.backend, get_string(doc, "backend", k_root));
  for (const auto& [obj, base] : {std::pair<const json*, std::string>{&doc, ""}, {&state, "/state"}}) {
    const auto wl = obj->find("workload");
    if (wl == obj->end() || !wl->is_object()) {
      continue;
    }
    const std::string ptr = base + "/workload";
    if (!id.isl) {
      RFDB_TRY_ASSIGN(id.isl, get_int(*wl, "isl", ptr));
    }
    if (!id.osl) {
      RFDB_TRY_ASSIGN(id.osl, get_int(*wl, "osl", ptr));
    }
    if (!id.conc) {
      RFDB_TRY_ASSIGN(id.conc, get_int(*wl, "conc", ptr));
    }
    if (!id.tp) {
      RFDB_TRY_ASSIGN(id.tp, get_int(*wl, "tp", ptr));
    }
  }
  return id;
}

Result<WorkflowReturn> workflow_impl(const json& doc, std::string_view rel_path,
                                     std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  WorkflowReturn w;
  RFDB_TRY_ASSIGN(w.outcome, workflow_outcome(doc, rel_path, warnings));
  RFDB_TRY_ASSIGN(w.identity, workflow_identity(doc));
  const auto with_warnings = [&](auto parser) {
    return
        [&, parser](const json& row, const std::string& ptr) { return parser(row, ptr, rel_path, warnings); };
  };
  RFDB_TRY(collect(find_ledger(doc), with_warnings(ledger_row), w.attempts));
  RFDB_TRY(collect(find_list(doc, "accepted_heads"), with_warnings(accepted_row), w.attempts));
  RFDB_TRY(collect(find_list(doc, "accepted_kernels"), with_warnings(accepted_row), w.attempts));
  RFDB_TRY(collect(find_list(doc, "pending_integrations"), pending_row, w.attempts));
  RFDB_TRY(collect(find_list(doc, "flagged_heads"), flagged_row, w.attempts));
  return w;
}

} // namespace

Result<WorkflowReturn> parse_workflow_return(const json& doc, std::string_view rel_path,
                                             std::vector<Warning>& warnings)
{
  return workflow_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
