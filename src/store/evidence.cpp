// Typed readers of the calibration evidence (attempts with their prediction, verdicts, findings).
#include "store/evidence.hpp"

#include "rfdb_sql.hpp"

#include <nlohmann/json.hpp>

namespace rfdb::store {

namespace {

std::string text_or_empty(const Statement& s, int col)
{
  return s.get_opt_text(col).value_or("");
}

std::optional<int> opt_int32(const Statement& s, int col)
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
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_evidence_attempts, "evidence_attempts"));
  bind_filter(s, f, true);
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      return {};
    }
    EvidenceAttempt a;
    a.run_id = s.get_text(0);
    a.run_date = text_or_empty(s, 1);
    a.gfx = text_or_empty(s, 2);
    a.model = text_or_empty(s, 3);
    a.isl = s.get_opt_int(4);
    a.osl = s.get_opt_int(5);
    a.conc = s.get_opt_int(6);
    a.validation_class = s.get_text(7);
    a.round = text_or_empty(s, 8);
    a.short_name = s.get_text(9);
    a.op_class = s.get_text(10);
    a.regime = text_or_empty(s, 11);
    a.lever = s.get_text(12);
    a.lever_kind = s.get_text(13);
    a.backend = text_or_empty(s, 14);
    a.isolated_speedup = s.get_opt_double(15);
    a.e2e_delta_pct = s.get_opt_double(16);
    a.gate = text_or_empty(s, 17);
    a.verdict = s.get_text(18);
    a.prediction.roofline_pct = s.get_opt_double(19);
    a.prediction.target_eff = s.get_opt_double(20);
    a.prediction.attainable_speedup = s.get_opt_double(21);
    a.prediction.expected_e2e_gain_pct = s.get_opt_double(22);
    a.prediction.headroom_class = s.get_opt_text(23);
    a.prediction.confidence = s.get_opt_text(24);
    if (auto v = s.get_opt_int(25)) {
      a.prediction.suspect = *v != 0;
    }
    a.prediction.pct_gpu_time = s.get_opt_double(26);
    a.post_efficiency = s.get_opt_double(27);
    a.prediction.dispatch_bound = s.get_opt_int(28).value_or(0) != 0;
    a.output_parity = text_or_empty(s, 29);
    a.reject_reason = text_or_empty(s, 30);
    ev.attempts.push_back(std::move(a));
  }
}

Result<void> load_verdicts(Database& db, const EvidenceFilter& f, Evidence& ev)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_evidence_verdicts, "evidence_verdicts"));
  bind_filter(s, f, true);
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      return {};
    }
    EvidenceVerdict v;
    v.run_id = s.get_text(0);
    v.run_date = text_or_empty(s, 1);
    v.gfx = text_or_empty(s, 2);
    v.round = text_or_empty(s, 3);
    v.round_order = static_cast<int>(s.get_opt_int(4).value_or(0));
    v.short_name = s.get_text(5);
    v.op_class = s.get_text(6);
    v.pct_gpu_time = s.get_opt_double(7);
    v.roofline_pct = s.get_opt_double(8);
    v.target_eff = s.get_opt_double(9);
    v.attainable_speedup = s.get_opt_double(10);
    v.expected_e2e_gain_pct = s.get_opt_double(11);
    v.headroom_class = s.get_text(12);
    v.byte_reduction_levers = string_array(s.get_opt_text(13));
    ev.verdicts.push_back(std::move(v));
  }
}

Result<void> load_findings(Database& db, const EvidenceFilter& f, Evidence& ev)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_evidence_findings, "evidence_findings"));
  bind_filter(s, f, false);
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      return {};
    }
    EvidenceFinding x;
    x.origin = s.get_text(0);
    x.identity = s.get_text(1);
    x.name = text_or_empty(s, 2);
    x.op_class = s.get_text(3);
    x.gfx = text_or_empty(s, 4);
    x.regime = s.get_text(5);
    x.lever = text_or_empty(s, 6);
    x.effect = text_or_empty(s, 7);
    x.stars = opt_int32(s, 8);
    x.iso_min = s.get_opt_double(9);
    x.iso_max = s.get_opt_double(10);
    x.e2e_min_pct = s.get_opt_double(11);
    x.e2e_max_pct = s.get_opt_double(12);
    x.confirms = opt_int32(s, 13);
    x.last_seen = text_or_empty(s, 14);
    x.lifecycle = s.get_text(15);
    x.sources_cited = string_array(s.get_opt_text(16));
    x.cautions = string_array(s.get_opt_text(17));
    x.generator = text_or_empty(s, 18);
    x.kernel_class_raw = text_or_empty(s, 19);
    x.type = text_or_empty(s, 20);
    ev.findings.push_back(std::move(x));
  }
}

} // namespace

Result<Evidence> load_evidence(Database& db, const EvidenceFilter& filter)
{
  Evidence ev;
  std::vector<RunSummary> runs;
  RFDB_TRY_ASSIGN(runs, list_runs(db, IncludeRetracted::no));
  for (auto& r : runs) {
    const bool in_window = !filter.since || (r.run_date && *r.run_date >= *filter.since);
    const bool on_gpu = !filter.gfx || (r.gfx && *r.gfx == *filter.gfx);
    if (in_window && on_gpu) {
      ev.runs.push_back(std::move(r));
    }
  }
  RFDB_TRY(load_attempts(db, filter, ev));
  RFDB_TRY(load_verdicts(db, filter, ev));
  RFDB_TRY(load_findings(db, filter, ev));
  return ev;
}

} // namespace rfdb::store
