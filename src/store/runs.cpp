// Typed readers of runs: the runs list with its filters and one run with its kernels, verdicts and attempts.
#include "store/runs.hpp"

#include "rfdb_sql.hpp"

#include "domain/noise.hpp"
#include "store/stack.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace rfdb::store {

namespace {

std::optional<bool> opt_bool(const Statement& s, const char* col)
{
  auto v = s.get_opt_int(col);
  return v ? std::optional<bool>(*v != 0) : std::nullopt;
}

Result<void> fill_kernels(Database& db, RunDetail& run)
{
  auto prepared = db.prepare(sql::k_run_kernels, "run_kernels");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run.run_id);
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    KernelRow k;
    k.round = row.get_text("round");
    k.rank = row.get_opt_int("rank");
    k.short_name = row.get_text("short_name");
    k.name = row.get_text("name");
    k.pct_gpu_time = row.get_double("pct_gpu_time");
    k.classification = row.get_opt_text("classification");
    k.editable = opt_bool(row, "editable");
    k.total_ms = row.get_opt_double("total_ms");
    k.calls = row.get_opt_int("calls");
    run.kernels.push_back(std::move(k));
  }));
  return {};
}

Result<void> fill_noise(Database& db, RunDetail& run)
{
  auto bench = db.prepare(sql::k_run_bench_noise, "run_bench_noise");
  if (!bench) {
    return fail(std::move(bench).error());
  }
  bench->bind(":run_id", run.run_id);
  std::optional<std::int64_t> last_source;
  RFDB_TRY(for_each_row(*bench, [&](const Statement& row) {
    const std::int64_t source = row.get_int("source_id");
    if (last_source != source) {
      last_source = source;
      BenchNoiseRow b;
      b.role = row.get_text("role");
      b.label = row.get_opt_text("label");
      b.median_tok_s = row.get_opt_double("throughput_tok_s_median");
      b.spread_pct = row.get_opt_double("throughput_spread_pct");
      b.runs_count = row.get_opt_int("runs_count");
      run.bench.push_back(std::move(b));
    }
    if (const auto v = row.get_opt_double("throughput_tok_s"); v) {
      run.bench.back().samples.push_back(*v);
    }
  }));
  auto lim = db.prepare(sql::k_run_limitations, "run_limitations");
  if (!lim) {
    return fail(std::move(lim).error());
  }
  lim->bind(":run_id", run.run_id);
  return for_each_row(*lim,
                      [&](const Statement& row) { run.limitations.push_back(row.get_text("limitation")); });
}

Result<void> fill_verdicts(Database& db, RunDetail& run)
{
  auto prepared = db.prepare(sql::k_run_verdicts, "run_verdicts");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run.run_id);
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    VerdictRow v;
    v.round = row.get_opt_text("round");
    v.short_name = row.get_text("short_name");
    v.op_class = row.get_text("op_class");
    v.stage = row.get_text("stage");
    v.source_kind = row.get_text("source_kind");
    v.roofline_pct = row.get_opt_double("roofline_pct");
    v.target_eff = row.get_opt_double("target_eff");
    v.attainable_speedup = row.get_opt_double("attainable_speedup");
    v.expected_e2e_gain_pct = row.get_opt_double("expected_e2e_gain_pct");
    v.headroom_class = row.get_text("headroom_class");
    v.bound_type = row.get_text("bound_type");
    v.confidence = row.get_text("confidence");
    v.suspect = row.get_int("suspect") != 0;
    v.phase = row.get_opt_text("phase");
    v.pct_gpu_time = row.get_opt_double("pct_gpu_time");
    v.dispatch_bound = row.get_int("dispatch_bound") != 0;
    v.headroom_ratio = row.get_opt_double("headroom_ratio");
    v.guidance = row.get_opt_text("guidance");
    v.observed_limit = row.get_opt_text("observed_limit");
    v.disputed = row.get_int("disputed") != 0;
    v.profiler_version = row.get_opt_text("profiler_version");
    v.profiler_hbm_undercount = row.get_int("profiler_hbm_undercount") != 0;
    run.verdicts.push_back(std::move(v));
  }));
  return {};
}

Result<void> fill_attempts(Database& db, RunDetail& run)
{
  auto prepared = db.prepare(sql::k_run_attempts, "run_attempts");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run.run_id);
  RFDB_TRY(for_each_row(s, [&](const Statement& row) -> Result<void> {
    AttemptRow a;
    RFDB_TRY(read_attempt(row, AttemptReader::show, a, 1)); // after attempt_id
    for (const auto& p : nlohmann::json::parse(row.get_text("sources"))) {
      a.sources.push_back(p.get<std::string>());
    }
    run.attempts.push_back(std::move(a));
    return {};
  }));
  // A post roofline that measured several deployed attempts on one kernel
  // (a stack) gave none of them its efficiency: each says so.
  for (auto& a : run.attempts) {
    if (!a.deployed || !a.post_measured || a.post_efficiency) {
      continue;
    }
    const auto n = std::count_if(run.attempts.begin(), run.attempts.end(), [&](const AttemptRow& o) {
      return o.deployed && o.post_measured && !o.post_efficiency && o.short_name == a.short_name;
    });
    a.post_note = fmt::format("post measured a stack of {} levers", n);
  }
  return {};
}

Result<void> fill_retractions(Database& db, RunDetail& run)
{
  auto prepared = db.prepare(sql::k_run_retractions, "run_retractions");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run.run_id);
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    run.retraction_history.push_back(
        {row.get_text("action"), row.get_opt_text("reason"), row.get_text("at")});
  }));
  return {};
}

Result<void> log_retraction(Database& db, const std::string& run_id, const char* action,
                            const std::optional<std::string>& reason, const std::string& at)
{
  auto prepared = db.prepare(sql::k_retraction_log_insert, "retraction_log_insert");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run_id).bind(":action", action).bind(":reason", reason).bind(":at", at);
  RFDB_TRY(s.exec());
  return {};
}

} // namespace

std::optional<double> measured_spread_pct(const std::vector<BenchNoiseRow>& bench)
{
  std::optional<double> widest;
  for (const auto& b : bench) {
    if (domain::is_reference_bench_role(b.role) && b.spread_pct && (!widest || *b.spread_pct > *widest)) {
      widest = b.spread_pct;
    }
  }
  return widest;
}

Result<std::vector<RunSummary>> list_runs(Database& db, IncludeRetracted include)
{
  RunFilter filter;
  filter.include = include;
  return list_runs(db, filter);
}

Result<std::vector<RunSummary>> list_runs(Database& db, const RunFilter& filter)
{
  auto prepared = db.prepare(sql::k_runs_list, "runs_list");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":include_retracted", filter.include == IncludeRetracted::only  ? 2
                               : filter.include == IncludeRetracted::yes ? 1
                                                                         : 0);
  s.bind(":gfx", filter.gfx).bind(":backend", filter.backend).bind(":model", filter.model);
  s.bind(":since", filter.since).bind(":until", filter.until);
  std::vector<RunSummary> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    RunSummary r;
    r.run_id = row.get_text("run_id");
    r.run_date = row.get_opt_text("run_date");
    r.model = row.get_opt_text("model");
    r.gfx = row.get_opt_text("gfx");
    r.backend = row.get_opt_text("backend");
    r.backend_version = row.get_opt_text("backend_version");
    r.isl = row.get_opt_int("isl");
    r.osl = row.get_opt_int("osl");
    r.conc = row.get_opt_int("conc");
    r.tp = row.get_opt_int("tp");
    r.baseline_throughput_tok_s = row.get_opt_double("baseline_throughput_tok_s");
    r.final_throughput_tok_s = row.get_opt_double("final_throughput_tok_s");
    r.throughput_speedup = row.get_opt_double("throughput_speedup");
    r.validation_class = row.get_text("validation_class");
    r.rounds = row.get_int("rounds");
    r.verdicts = row.get_int("verdicts");
    r.attempts = row.get_int("attempts");
    r.sources = row.get_int("sources");
    r.retracted_reason = row.get_opt_text("retracted_reason");
    r.measured_spread_pct = row.get_opt_double("measured_spread_pct");
    out.push_back(std::move(r));
  }));
  std::map<std::string, std::vector<StackRow>> stacks;
  RFDB_TRY_ASSIGN(stacks, all_run_stacks(db));
  for (auto& r : out) {
    if (auto it = stacks.find(r.run_id); it != stacks.end()) {
      r.stack = std::move(it->second);
    }
  }
  if (!filter.stack.empty()) {
    std::erase_if(out, [&](const RunSummary& r) { return !stack_matches(r.stack, r.backend, filter.stack); });
  }
  std::map<std::string, std::vector<domain::Tag>> tags;
  RFDB_TRY_ASSIGN(tags, all_run_tags(db));
  for (auto& r : out) {
    if (auto it = tags.find(r.run_id); it != tags.end()) {
      r.tags = std::move(it->second);
    }
  }
  if (!filter.tags.empty()) {
    std::erase_if(out, [&](const RunSummary& r) { return !domain::tags_match(r.tags, filter.tags); });
  }
  return out;
}

Result<RunDetail> get_run(Database& db, const std::string& run_id)
{
  auto prepared = db.prepare(sql::k_run_get, "run_get");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run_id);
  bool row = false;
  RFDB_TRY_ASSIGN(row, s.step());
  if (!row) {
    return fail(make_error(ErrorCode::not_found, "no run '" + run_id + "'")
                    .with_hint("`rfdb runs` lists the stored runs"));
  }
  RunDetail r;
  r.run_id = s.get_text("run_id");
  r.run_date = s.get_opt_text("run_date");
  r.model = s.get_opt_text("model");
  r.model_arch_class = s.get_opt_text("model_arch_class");
  r.model_dtype = s.get_opt_text("model_dtype");
  r.gfx = s.get_opt_text("gfx");
  r.device_name = s.get_opt_text("device_name");
  r.backend = s.get_opt_text("backend");
  r.backend_version = s.get_opt_text("backend_version");
  r.tp = s.get_opt_int("tp");
  r.isl = s.get_opt_int("isl");
  r.osl = s.get_opt_int("osl");
  r.conc = s.get_opt_int("conc");
  r.baseline_throughput_tok_s = s.get_opt_double("baseline_throughput_tok_s");
  r.final_throughput_tok_s = s.get_opt_double("final_throughput_tok_s");
  r.throughput_speedup = s.get_opt_double("throughput_speedup");
  r.validation_status = s.get_opt_text("validation_status");
  r.validation_class = s.get_text("validation_class");
  r.output_parity = s.get_opt_text("output_parity");
  r.retracted_reason = s.get_opt_text("retracted_reason");
  r.retracted_at = s.get_opt_text("retracted_at");
  s.reset();
  RFDB_TRY(fill_kernels(db, r));
  RFDB_TRY(fill_verdicts(db, r));
  RFDB_TRY(fill_attempts(db, r));
  RFDB_TRY(fill_retractions(db, r));
  RFDB_TRY_ASSIGN(r.stack, run_stack(db, r.run_id));
  RFDB_TRY_ASSIGN(r.tags, run_tags(db, r.run_id));
  RFDB_TRY_ASSIGN(r.tag_history, tag_history(db, r.run_id));
  RFDB_TRY(fill_noise(db, r));
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
  auto prepared = db.prepare(sql::k_retraction_insert, "retraction_insert");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
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
  auto prepared = db.prepare(sql::k_retraction_delete, "retraction_delete");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
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
