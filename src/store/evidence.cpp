// Typed readers of the calibration evidence (attempts with their prediction, verdicts, findings).
#include "store/evidence.hpp"

#include "rfdb_sql.hpp"

#include "domain/roofline.hpp"

#include <nlohmann/json.hpp>

namespace rfdb::store {

namespace {

std::string text_or_empty(const Statement& s, const char* col)
{
  return s.get_opt_text(col).value_or("");
}

std::optional<int> opt_int32(const Statement& s, const char* col)
{
  auto v = s.get_opt_int(col);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::vector<std::string> string_array(const std::optional<std::string>& json_text)
{
  std::vector<std::string> out;
  if (!json_text) {
    return out;
  }
  const auto j = nlohmann::json::parse(*json_text, nullptr, false);
  if (j.is_array()) {
    for (const auto& e : j) {
      if (e.is_string()) {
        out.push_back(e.get<std::string>());
      }
    }
  }
  return out;
}

void bind_filter(Statement& s, const EvidenceFilter& f, bool with_since)
{
  if (with_since) {
    s.bind(":since", f.since);
  }
  s.bind(":gfx", f.gfx);
}

Result<void> load_attempts(Database& db, const EvidenceFilter& f, Evidence& ev)
{
  auto prepared = db.prepare(sql::k_evidence_attempts, "evidence_attempts");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  bind_filter(s, f, true);
  RFDB_TRY(for_each_row(s, [&](const Statement& row) -> Result<void> {
    Attempt a;
    RFDB_TRY(read_attempt(row, AttemptReader::calibrate, a));
    a.prediction.dispatch_bound = row.get_opt_int("dispatch_bound").value_or(0) != 0;
    ev.attempts.push_back(std::move(a));
    return {};
  }));
  return {};
}

Result<void> load_verdicts(Database& db, const EvidenceFilter& f, Evidence& ev)
{
  auto prepared = db.prepare(sql::k_evidence_verdicts, "evidence_verdicts");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  bind_filter(s, f, true);
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    EvidenceVerdict v;
    v.run_id = row.get_text("run_id");
    v.run_date = text_or_empty(row, "run_date");
    v.gfx = text_or_empty(row, "gfx");
    v.round = text_or_empty(row, "round");
    v.round_order = static_cast<int>(row.get_opt_int("round_order").value_or(0));
    v.short_name = row.get_text("short_name");
    v.op_class = row.get_text("op_class");
    v.pct_gpu_time = row.get_opt_double("pct_gpu_time");
    v.roofline_pct = row.get_opt_double("roofline_pct");
    v.target_eff = row.get_opt_double("target_eff");
    v.attainable_speedup = row.get_opt_double("attainable_speedup");
    v.expected_e2e_gain_pct = row.get_opt_double("expected_e2e_gain_pct");
    v.headroom_class = row.get_text("headroom_class");
    v.byte_reduction_levers = string_array(row.get_opt_text("byte_reduction_levers"));
    ev.verdicts.push_back(std::move(v));
  }));
  return {};
}

Result<void> load_findings(Database& db, const EvidenceFilter& f, Evidence& ev)
{
  auto prepared = db.prepare(sql::k_evidence_findings, "evidence_findings");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  bind_filter(s, f, false);
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    EvidenceFinding x;
    x.origin = row.get_text("origin");
    x.identity = row.get_text("identity");
    x.name = text_or_empty(row, "name");
    x.op_class = row.get_text("op_class");
    x.gfx = text_or_empty(row, "gfx");
    x.regime = row.get_text("regime");
    x.lever = text_or_empty(row, "lever");
    x.effect = text_or_empty(row, "effect");
    x.stars = opt_int32(row, "stars");
    x.iso_min = row.get_opt_double("iso_min");
    x.iso_max = row.get_opt_double("iso_max");
    x.e2e_min_pct = row.get_opt_double("e2e_min_pct");
    x.e2e_max_pct = row.get_opt_double("e2e_max_pct");
    x.confirms = opt_int32(row, "confirms");
    x.last_seen = text_or_empty(row, "last_seen");
    x.lifecycle = row.get_text("lifecycle");
    x.sources_cited = string_array(row.get_opt_text("sources_cited"));
    x.cautions = string_array(row.get_opt_text("cautions"));
    x.generator = text_or_empty(row, "generator");
    x.kernel_class_raw = text_or_empty(row, "kernel_class_raw");
    x.type = text_or_empty(row, "type");
    ev.findings.push_back(std::move(x));
  }));
  return {};
}

} // namespace

Result<std::vector<RunSummary>> runs_in_scope(Database& db, const EvidenceFilter& filter)
{
  std::vector<RunSummary> runs;
  RFDB_TRY_ASSIGN(runs, list_runs(db, IncludeRetracted::no));
  std::erase_if(runs, [&](const RunSummary& r) {
    const bool in_window = !filter.since || (r.run_date && *r.run_date >= *filter.since);
    const bool on_gpu = !filter.gfx || (r.gfx && *r.gfx == *filter.gfx);
    const bool chosen = !filter.run_ids || filter.run_ids->contains(r.run_id);
    return !(in_window && on_gpu && chosen);
  });
  return runs;
}

Result<void> for_each_observation(Database& db, const EvidenceFilter& filter,
                                  const std::function<void(const ObservationRecord&)>& fn)
{
  auto prepared = db.prepare(sql::k_evidence_observations, "evidence_observations");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  bind_filter(s, filter, true);
  // Columns by position, in the query's SELECT order.
  const auto text = [&s](int col) { return s.get_opt_text_view(col).value_or(std::string_view()); };
  ObservationRecord r;
  return for_each_row(s, [&](const Statement&) {
    r.run_id = text(0);
    r.run_date = text(1);
    r.gfx = text(2);
    r.op_class = text(3);
    r.regime = text(4);
    r.output_parity = text(5);
    r.reject_reason = text(6);
    r.headroom_class = s.get_opt_text_view(7);
    r.confidence = s.get_opt_text_view(8);
    r.isolated_speedup = s.get_opt_double(9);
    r.e2e_delta_pct = s.get_opt_double(10);
    r.roofline_pct = s.get_opt_double(11);
    r.attainable_speedup = s.get_opt_double(12);
    r.pct_gpu_time = s.get_opt_double(13);
    r.post_efficiency = s.get_opt_double(14);
    const auto suspect = s.get_opt_int(15);
    r.suspect = suspect ? std::optional<bool>(*suspect != 0) : std::nullopt;
    r.dispatch_bound = s.get_opt_int(16).value_or(0) != 0;
    r.short_name = text(17);
    r.source_kind = s.get_opt_text_view(18);
    r.profiler_hbm_undercount = s.get_opt_int(19).value_or(0) != 0;
    if (filter.run_ids && !filter.run_ids->contains(r.run_id)) {
      return;
    }
    fn(r);
  });
}

Result<void> for_each_censored_head(Database& db, const EvidenceFilter& filter,
                                    const std::function<void(const CensoredHeadRecord&)>& fn)
{
  auto prepared = db.prepare(sql::k_evidence_censored, "evidence_censored");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  bind_filter(s, filter, true);
  s.bind(":head_min_pct", domain::k_head_min_pct);
  // Columns by position, in the query's SELECT order.
  const auto text = [&s](int col) { return s.get_opt_text_view(col).value_or(std::string_view()); };
  CensoredHeadRecord c;
  domain::ObservationRow& r = c.row;
  return for_each_row(s, [&](const Statement&) {
    r.run_id = text(0);
    r.run_date = text(1);
    r.gfx = text(2);
    r.op_class = text(3);
    r.regime = text(4);
    r.headroom_class = s.get_opt_text_view(5);
    r.confidence = s.get_opt_text_view(6);
    r.roofline_pct = s.get_opt_double(7);
    r.attainable_speedup = s.get_opt_double(8);
    r.pct_gpu_time = s.get_opt_double(9);
    r.short_name = text(10);
    r.source_kind = s.get_opt_text_view(11);
    r.profiler_hbm_undercount = s.get_opt_int(12).value_or(0) != 0;
    r.censored = text(13) == "skip_gate" ? domain::CensorReason::skip_gate
                                         : domain::CensorReason::saturated_no_attempt;
    c.round = text(14);
    r.suspect = false;
    r.dispatch_bound = false;
    if (filter.run_ids && !filter.run_ids->contains(r.run_id)) {
      return;
    }
    fn(c);
  });
}

Result<Evidence> load_evidence(Database& db, const EvidenceFilter& filter)
{
  Evidence ev;
  RFDB_TRY_ASSIGN(ev.runs, runs_in_scope(db, filter));
  RFDB_TRY(load_attempts(db, filter, ev));
  RFDB_TRY(load_verdicts(db, filter, ev));
  RFDB_TRY(load_findings(db, filter, ev));
  if (filter.run_ids) {
    const auto& ids = *filter.run_ids;
    std::erase_if(ev.attempts, [&](const auto& a) { return !ids.contains(a.run_id); });
    std::erase_if(ev.verdicts, [&](const auto& v) { return !ids.contains(v.run_id); });
  }
  return ev;
}

} // namespace rfdb::store
