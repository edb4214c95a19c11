// Typed readers of the playbook evidence (runs, attempts, verdicts, imported findings).
#include "store/report_evidence.hpp"

#include "rfdb_sql.hpp"

#include <nlohmann/json.hpp>

namespace rfdb::store {

namespace {

// One row of a statement with the conversions every reader below needs.
class Row {
public:
  explicit Row(const Statement& s) : m_s(s) {}
  [[nodiscard]] std::string text(int col) const { return m_s.get_opt_text(col).value_or(""); }
  [[nodiscard]] std::optional<double> num(int col) const { return m_s.get_opt_double(col); }
  [[nodiscard]] std::optional<std::string> opt_text(int col) const { return m_s.get_opt_text(col); }
  [[nodiscard]] std::optional<std::int64_t> integer(int col) const { return m_s.get_opt_int(col); }
  [[nodiscard]] bool flag(int col) const { return m_s.get_opt_int(col).value_or(0) != 0; }
  [[nodiscard]] std::optional<int> int32(int col) const
  {
    const auto v = m_s.get_opt_int(col);
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  }
  [[nodiscard]] std::vector<std::string> strings(int col) const
  {
    std::vector<std::string> out;
    const auto j = nlohmann::json::parse(text(col), nullptr, false);
    if (j.is_array()) {
      for (const auto& e : j) {
        if (e.is_string()) {
          out.push_back(e.get<std::string>());
        }
      }
    }
    return out;
  }

private:
  const Statement& m_s;
};

template <typename F> Result<void> each_row(Statement& s, F&& f)
{
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      return {};
    }
    f(Row(s));
  }
}

ReportAttempt read_attempt(const Row& r)
{
  ReportAttempt a;
  a.run_id = r.text(0);
  a.run_date = r.text(1);
  a.gfx = r.text(2);
  a.model = r.text(3);
  a.isl = r.integer(4);
  a.osl = r.integer(5);
  a.conc = r.integer(6);
  a.attempt_key = r.text(7);
  a.kind = r.text(8);
  a.candidate = r.text(9);
  a.short_name = r.text(10);
  a.op_class = r.text(11);
  a.regime = r.text(12);
  a.lever = r.text(13);
  a.lever_kind = r.text(14);
  a.backend = r.text(15);
  a.isolated_speedup = r.num(16);
  a.e2e_delta_pct = r.num(17);
  a.gate = r.text(18);
  a.verdict = r.text(19);
  a.measured = r.flag(20);
  a.deployed = r.flag(21);
  a.output_parity = r.text(22);
  a.parity_kind = r.text(23);
  a.reason = r.text(24);
  a.reject_reason = r.text(25);
  a.validation_class = r.text(26);
  a.validation_speedup = r.num(27);
  a.prediction.source_kind = r.opt_text(28);
  a.prediction.roofline_pct = r.num(29);
  a.prediction.target_eff = r.num(30);
  a.prediction.attainable_speedup = r.num(31);
  a.prediction.expected_e2e_gain_pct = r.num(32);
  a.prediction.headroom_class = r.opt_text(33);
  a.prediction.confidence = r.opt_text(34);
  if (const auto v = r.integer(35)) {
    a.prediction.suspect = *v != 0;
  }
  a.prediction.pct_gpu_time = r.num(36);
  return a;
}

ReportVerdict read_verdict(const Row& r)
{
  ReportVerdict v;
  v.run_id = r.text(0);
  v.run_date = r.text(1);
  v.gfx = r.text(2);
  v.round = r.text(3);
  v.round_order = static_cast<int>(r.integer(4).value_or(0));
  v.short_name = r.text(5);
  v.name = r.text(6);
  v.op_class = r.text(7);
  v.source_kind = r.text(8);
  v.pct_gpu_time = r.num(9);
  v.roofline_pct = r.num(10);
  v.target_eff = r.num(11);
  v.attainable_speedup = r.num(12);
  v.expected_e2e_gain_pct = r.num(13);
  v.headroom_class = r.text(14);
  v.suspect = r.flag(15);
  v.dispatch_bound = r.flag(16);
  v.byte_reduction_levers = r.strings(17);
  return v;
}

ReportFinding read_finding(const Row& r)
{
  ReportFinding f;
  f.origin = r.text(0);
  f.identity = r.text(1);
  f.name = r.text(2);
  f.key_raw = r.text(3);
  f.kernel_class_raw = r.text(4);
  f.op_class = r.text(5);
  f.gfx = r.text(6);
  f.regime = r.text(7);
  f.type = r.text(8);
  f.stars = r.int32(9);
  f.lever = r.text(10);
  f.apply = r.text(11);
  f.effect = r.text(12);
  f.iso_min = r.num(13);
  f.iso_max = r.num(14);
  f.e2e_min_pct = r.num(15);
  f.e2e_max_pct = r.num(16);
  f.confirms = r.int32(17);
  f.last_seen = r.text(18);
  f.lifecycle = r.text(19);
  f.sources_cited = r.strings(20);
  f.cautions = r.strings(21);
  f.generator = r.text(22);
  f.description = r.text(23);
  f.text = r.text(24);
  f.lever_key = r.text(25);
  return f;
}

} // namespace

Result<ReportEvidence> load_report_evidence(Database& db, const EvidenceFilter& filter)
{
  ReportEvidence ev;
  std::vector<RunSummary> runs;
  RFDB_TRY_ASSIGN(runs, list_runs(db, IncludeRetracted::no));
  for (auto& r : runs) {
    const bool in_window = !filter.since || (r.run_date && *r.run_date >= *filter.since);
    const bool on_gpu = !filter.gfx || (r.gfx && *r.gfx == *filter.gfx);
    if (in_window && on_gpu) {
      ev.runs.push_back(std::move(r));
    }
  }
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_report_attempts, "report_attempts"));
  s.bind(":since", filter.since).bind(":gfx", filter.gfx);
  RFDB_TRY(each_row(s, [&](const Row& r) { ev.attempts.push_back(read_attempt(r)); }));
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_report_verdicts, "report_verdicts"));
  s.bind(":since", filter.since).bind(":gfx", filter.gfx);
  RFDB_TRY(each_row(s, [&](const Row& r) { ev.verdicts.push_back(read_verdict(r)); }));
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_report_findings, "report_findings"));
  s.bind(":gfx", filter.gfx);
  RFDB_TRY(each_row(s, [&](const Row& r) { ev.findings.push_back(read_finding(r)); }));
  return ev;
}

} // namespace rfdb::store
