#include "store/runs.hpp"

#include "rfdb_sql.hpp"

#include <nlohmann/json.hpp>

namespace rfdb::store {

namespace {

std::optional<bool> opt_bool(const Statement& s, int col)
{
  auto v = s.get_opt_int(col);
  return v ? std::optional<bool>(*v != 0) : std::nullopt;
}

Result<void> fill_kernels(Database& db, RunDetail& run)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_run_kernels, "run_kernels"));
  s.bind(":run_id", run.run_id);
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    KernelRow k;
    k.round = s.get_text(0);
    k.rank = s.get_opt_int(1);
    k.short_name = s.get_text(2);
    k.name = s.get_text(3);
    k.pct_gpu_time = s.get_double(4);
    k.classification = s.get_opt_text(5);
    k.editable = opt_bool(s, 6);
    k.total_ms = s.get_opt_double(7);
    k.calls = s.get_opt_int(8);
    run.kernels.push_back(std::move(k));
  }
  return {};
}

Result<void> fill_verdicts(Database& db, RunDetail& run)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_run_verdicts, "run_verdicts"));
  s.bind(":run_id", run.run_id);
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    VerdictRow v;
    v.round = s.get_opt_text(0);
    v.short_name = s.get_text(1);
    v.op_class = s.get_text(2);
    v.stage = s.get_text(3);
    v.source_kind = s.get_text(4);
    v.roofline_pct = s.get_opt_double(5);
    v.target_eff = s.get_opt_double(6);
    v.attainable_speedup = s.get_opt_double(7);
    v.expected_e2e_gain_pct = s.get_opt_double(8);
    v.headroom_class = s.get_text(9);
    v.bound_type = s.get_text(10);
    v.confidence = s.get_text(11);
    v.suspect = s.get_int(12) != 0;
    v.phase = s.get_opt_text(13);
    v.pct_gpu_time = s.get_opt_double(14);
    v.dispatch_bound = s.get_int(15) != 0;
    run.verdicts.push_back(std::move(v));
  }
  return {};
}

Result<void> fill_attempts(Database& db, RunDetail& run)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_run_attempts, "run_attempts"));
  s.bind(":run_id", run.run_id);
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    AttemptRow a;
    a.short_name = s.get_text(1);
    a.lever = s.get_text(2);
    a.backend = s.get_opt_text(3);
    a.isolated_speedup = s.get_opt_double(4);
    a.e2e_delta_pct = s.get_opt_double(5);
    a.verdict = s.get_text(6);
    a.prediction.roofline_pct = s.get_opt_double(7);
    a.prediction.target_eff = s.get_opt_double(8);
    a.prediction.attainable_speedup = s.get_opt_double(9);
    a.prediction.expected_e2e_gain_pct = s.get_opt_double(10);
    a.prediction.headroom_class = s.get_opt_text(11);
    a.prediction.confidence = s.get_opt_text(12);
    a.prediction.pct_gpu_time = s.get_opt_double(13);
    a.lever_kind = s.get_text(14);
    a.gate = s.get_opt_text(15);
    const auto col = [&](std::string_view name) { return s.column_index(name); };
    a.key = s.get_text(col("attempt_key"));
    a.kind = s.get_text(col("kind"));
    a.candidate = s.get_opt_text(col("candidate"));
    a.candidate_short_name = s.get_opt_text(col("candidate_short_name"));
    a.task = s.get_opt_text(col("task"));
    a.winner_kind = s.get_opt_text(col("winner_kind"));
    a.verdict_raw = s.get_opt_text(col("verdict_raw"));
    a.output_parity = s.get_opt_text(col("output_parity"));
    a.parity_kind = s.get_opt_text(col("parity_kind"));
    a.reason = s.get_opt_text(col("reason"));
    a.reject_reason = s.get_opt_text(col("reject_reason"));
    a.round = s.get_opt_text(col("round"));
    a.measured = s.get_int(col("measured")) != 0;
    a.deployed = s.get_int(col("deployed")) != 0;
    a.post_measured = s.get_int(col("post_measured")) != 0;
    a.post_efficiency = s.get_opt_double(col("post_efficiency"));
    a.prediction.source_kind = s.get_opt_text(col("pred_source_kind"));
    a.prediction.stage = s.get_opt_text(col("pred_stage"));
    a.prediction.bound_type = s.get_opt_text(col("pred_bound_type"));
    a.validation_class = s.get_text(col("validation_class"));
    a.validation_speedup = s.get_opt_double(col("validation_speedup"));
    for (const auto& p : nlohmann::json::parse(s.get_text(col("sources")))) {
      a.sources.push_back(p.get<std::string>());
    }
    run.attempts.push_back(std::move(a));
  }
  return {};
}

Result<void> fill_retractions(Database& db, RunDetail& run)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_run_retractions, "run_retractions"));
  s.bind(":run_id", run.run_id);
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    run.retraction_history.push_back({s.get_text(0), s.get_opt_text(1), s.get_text(2)});
  }
  return {};
}

Result<void> log_retraction(Database& db, const std::string& run_id, const char* action,
                            const std::optional<std::string>& reason, const std::string& at)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_retraction_log_insert, "retraction_log_insert"));
  s.bind(":run_id", run_id).bind(":action", action).bind(":reason", reason).bind(":at", at);
  RFDB_TRY(s.exec());
  return {};
}

} // namespace

Result<std::vector<RunSummary>> list_runs(Database& db, IncludeRetracted include)
{
  RunFilter filter;
  filter.include = include;
  return list_runs(db, filter);
}

Result<std::vector<RunSummary>> list_runs(Database& db, const RunFilter& filter)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_runs_list, "runs_list"));
  s.bind(":include_retracted", filter.include == IncludeRetracted::only  ? 2
                               : filter.include == IncludeRetracted::yes ? 1
                                                                         : 0);
  s.bind(":gfx", filter.gfx).bind(":backend", filter.backend).bind(":model", filter.model);
  s.bind(":since", filter.since).bind(":until", filter.until);
  std::vector<RunSummary> out;
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    RunSummary r;
    r.run_id = s.get_text(0);
    r.run_date = s.get_opt_text(1);
    r.model = s.get_opt_text(2);
    r.gfx = s.get_opt_text(3);
    r.backend = s.get_opt_text(4);
    r.backend_version = s.get_opt_text(5);
    r.isl = s.get_opt_int(6);
    r.osl = s.get_opt_int(7);
    r.conc = s.get_opt_int(8);
    r.tp = s.get_opt_int(9);
    r.baseline_throughput_tok_s = s.get_opt_double(10);
    r.final_throughput_tok_s = s.get_opt_double(11);
    r.throughput_speedup = s.get_opt_double(12);
    r.validation_class = s.get_text(13);
    r.rounds = s.get_int(14);
    r.verdicts = s.get_int(15);
    r.attempts = s.get_int(16);
    r.sources = s.get_int(17);
    r.retracted_reason = s.get_opt_text(18);
    out.push_back(std::move(r));
  }
  return out;
}

Result<RunDetail> get_run(Database& db, const std::string& run_id)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_run_get, "run_get"));
  s.bind(":run_id", run_id);
  bool row = false;
  RFDB_TRY_ASSIGN(row, s.step());
  if (!row) {
    return fail(make_error(ErrorCode::not_found, "no run '" + run_id + "'")
                    .with_hint("`rfdb runs` lists the stored runs"));
  }
  RunDetail r;
  r.run_id = s.get_text(0);
  r.run_date = s.get_opt_text(1);
  r.model = s.get_opt_text(2);
  r.model_arch_class = s.get_opt_text(3);
  r.model_dtype = s.get_opt_text(4);
  r.gfx = s.get_opt_text(5);
  r.device_name = s.get_opt_text(6);
  r.backend = s.get_opt_text(7);
  r.backend_version = s.get_opt_text(8);
  r.tp = s.get_opt_int(9);
  r.isl = s.get_opt_int(10);
  r.osl = s.get_opt_int(11);
  r.conc = s.get_opt_int(12);
  r.baseline_throughput_tok_s = s.get_opt_double(13);
  r.final_throughput_tok_s = s.get_opt_double(14);
  r.throughput_speedup = s.get_opt_double(15);
  r.validation_status = s.get_opt_text(16);
  r.validation_class = s.get_text(17);
  r.output_parity = s.get_opt_text(18);
  r.retracted_reason = s.get_opt_text(19);
  r.retracted_at = s.get_opt_text(20);
  s.reset();
  RFDB_TRY(fill_kernels(db, r));
  RFDB_TRY(fill_verdicts(db, r));
  RFDB_TRY(fill_attempts(db, r));
  RFDB_TRY(fill_retractions(db, r));
  return r;
}

Result<void> retract_run(Database& db, const std::string& run_id, const std::string& reason,
                         const std::string& at_timestamp)
{
  RunDetail probe;
  RFDB_TRY_ASSIGN(probe, get_run(db, run_id));
  auto tx = db.begin_immediate();
  if (!tx) {
    return fail(std::move(tx).error());
  }
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_retraction_insert, "retraction_insert"));
  s.bind(":run_id", run_id).bind(":reason", reason).bind(":retracted_at", at_timestamp);
  RFDB_TRY(s.exec());
  RFDB_TRY(log_retraction(db, run_id, "retract", reason, at_timestamp));
  return tx->commit();
}

Result<void> restore_run(Database& db, const std::string& run_id, const std::string& at_timestamp)
{
  RunDetail probe;
  RFDB_TRY_ASSIGN(probe, get_run(db, run_id));
  auto tx = db.begin_immediate();
  if (!tx) {
    return fail(std::move(tx).error());
  }
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_retraction_delete, "retraction_delete"));
  s.bind(":run_id", run_id);
  int changed = 0;
  RFDB_TRY_ASSIGN(changed, s.exec());
  if (changed == 0) {
    return fail(make_error(ErrorCode::not_found, "run '" + run_id + "' is not retracted")
                    .with_hint("`rfdb runs --retracted` lists the retracted runs"));
  }
  RFDB_TRY(log_retraction(db, run_id, "restore", std::nullopt, at_timestamp));
  return tx->commit();
}

} // namespace rfdb::store
