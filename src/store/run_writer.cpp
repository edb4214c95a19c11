// Writing a derived run's rows, and the reads ingest makes inside the run's
// transaction (see run_writer.hpp).
#include "store/run_writer.hpp"

#include "rfdb_sql.hpp"

#include "store/case_mix.hpp"

namespace rfdb::store {

// Every statement, in the order RunWriter::create prepares them.
struct RunWriter::Statements {
  Statement run_upsert, clear_observations, clear_attempts, clear_verdicts, clear_rounds, clear_bench,
      clear_noise, clear_limitations;
  Statement bench, bench_sample, limitation, round, sample, doc, verdict, attempt, attempt_source,
      observations;
  Statement derived_by, set_derived_by, copy_candidates, measured, unshared_file, file_copies;
  Statement clear_stack, stack;
};

RunWriter::RunWriter(Database& db, std::unique_ptr<Statements> s) : m_db(&db), m_s(std::move(s)) {}
RunWriter::RunWriter(RunWriter&&) noexcept = default;
RunWriter& RunWriter::operator=(RunWriter&&) noexcept = default;
RunWriter::~RunWriter() = default;

Result<RunWriter> RunWriter::create(Database& db)
{
  std::vector<Statement> all;
  RFDB_TRY_ASSIGN(all, prepare_all(db, {
                                           {sql::k_run_upsert, "run_upsert"},
                                           {sql::k_run_clear_observations, "run_clear_observations"},
                                           {sql::k_run_clear_attempts, "run_clear_attempts"},
                                           {sql::k_run_clear_verdicts, "run_clear_verdicts"},
                                           {sql::k_run_clear_rounds, "run_clear_rounds"},
                                           {sql::k_run_clear_bench, "run_clear_bench"},
                                           {sql::k_run_clear_noise, "run_clear_noise"},
                                           {sql::k_run_clear_limitations, "run_clear_limitations"},
                                           {sql::k_bench_insert, "bench_insert"},
                                           {sql::k_bench_sample_insert, "bench_sample_insert"},
                                           {sql::k_limitation_insert, "limitation_insert"},
                                           {sql::k_round_insert, "round_insert"},
                                           {sql::k_sample_insert, "sample_insert"},
                                           {sql::k_roofline_doc_insert, "roofline_doc_insert"},
                                           {sql::k_verdict_insert, "verdict_insert"},
                                           {sql::k_attempt_insert, "attempt_insert"},
                                           {sql::k_attempt_source_insert, "attempt_source_insert"},
                                           {sql::k_observation_insert, "observation_insert"},
                                           {sql::k_run_derived_by, "run_derived_by"},
                                           {sql::k_run_set_derived_by, "run_set_derived_by"},
                                           {sql::k_run_copy_candidates, "run_copy_candidates"},
                                           {sql::k_run_measured_attempts, "run_measured_attempts"},
                                           {sql::k_run_has_unshared_file, "run_has_unshared_file"},
                                           {sql::k_run_file_copies, "run_file_copies"},
                                           {sql::k_run_clear_stack, "run_clear_stack"},
                                           {sql::k_run_stack_insert, "run_stack_insert"},
                                       }));
  auto next = all.begin();
  auto take = [&next] { return std::move(*next++); };
  // Braced initializers run left to right: members take the list's order.
  return RunWriter(db, std::make_unique<Statements>(
                           Statements{take(), take(), take(), take(), take(), take(), take(), take(), take(),
                                      take(), take(), take(), take(), take(), take(), take(), take(), take(),
                                      take(), take(), take(), take(), take(), take(), take(), take()}));
}

Result<void> RunWriter::upsert_run(const RunRow& run, const std::string& eval_dir, const std::string& now)
{
  const auto& e = run.env;
  const auto& o = run.outcome;
  auto& s = m_s->run_upsert;
  s.bind(":run_id", run.run_id).bind(":run_date", run.run_date).bind(":model", e.model);
  s.bind(":model_arch_class", e.model_arch_class).bind(":model_dtype", e.model_dtype).bind(":gfx", e.gfx);
  s.bind(":device_name", e.device_name)
      .bind(":backend", e.backend)
      .bind(":backend_version", e.backend_version);
  s.bind(":tp", e.tp).bind(":isl", e.isl).bind(":osl", e.osl).bind(":conc", e.conc);
  s.bind(":available_backends", e.available_backends);
  s.bind(":baseline_throughput_tok_s", o.baseline_throughput_tok_s);
  s.bind(":final_throughput_tok_s", o.final_throughput_tok_s);
  s.bind(":throughput_speedup", o.throughput_speedup).bind(":validation_status", o.validation_status);
  s.bind(":validation_class", o.validation_class).bind(":output_parity", o.output_parity);
  s.bind(":eval_dir", eval_dir).bind(":now", now);
  RFDB_TRY(s.exec());
  // The run's stated limitations are refreshed with its identity row.
  m_s->clear_limitations.bind(":run_id", run.run_id);
  RFDB_TRY(m_s->clear_limitations.exec());
  for (std::size_t i = 0; i < e.limitations.size(); ++i) {
    auto& l = m_s->limitation;
    l.bind(":run_id", run.run_id).bind(":limitation_index", static_cast<std::int64_t>(i));
    l.bind(":limitation", e.limitations[i]);
    RFDB_TRY(l.exec());
  }
  return {};
}

Result<void> RunWriter::clear_derived(const std::string& run_id)
{
  for (Statement* s : {&m_s->clear_observations, &m_s->clear_attempts, &m_s->clear_verdicts,
                       &m_s->clear_rounds, &m_s->clear_bench, &m_s->clear_noise, &m_s->clear_stack}) {
    s->bind(":run_id", run_id);
    RFDB_TRY(s->exec());
  }
  return {};
}

namespace {

void bind_verdict(Statement& s, const Verdict& v)
{
  s.bind(":round", v.round).bind(":short_name", v.short_name).bind(":name", v.name);
  s.bind(":round_order", v.round_order ? std::optional<std::int64_t>(*v.round_order) : std::nullopt);
  s.bind(":op_class", v.op_class).bind(":op_class_raw", v.op_class_raw).bind(":regime", v.regime);
  s.bind(":pct_gpu_time", v.pct_gpu_time)
      .bind(":t_ms", v.t_ms)
      .bind(":launches_per_step", v.launches_per_step);
  s.bind(":bytes_est", v.bytes_est).bind(":flops_est", v.flops_est).bind(":hbm_util", v.hbm_util);
  s.bind(":compute_util", v.compute_util).bind(":arithmetic_intensity", v.arithmetic_intensity);
  s.bind(":ridge_point", v.ridge_point)
      .bind(":bound_type", v.bound_type)
      .bind(":bound_type_raw", v.bound_type_raw);
  s.bind(":roofline_pct", v.roofline_pct).bind(":roofline_pct_raw", v.roofline_pct_raw);
  s.bind(":target_eff", v.target_eff).bind(":attainable_speedup", v.attainable_speedup);
  s.bind(":expected_e2e_gain_pct", v.expected_e2e_gain_pct).bind(":headroom_class", v.headroom_class);
  s.bind(":headroom_class_raw", v.headroom_class_raw).bind(":stage", v.stage);
  s.bind(":source_kind", v.source_kind).bind(":confidence", v.confidence).bind(":suspect", v.suspect);
  s.bind(":dispatch_bound", v.dispatch_bound).bind(":modeled", v.modeled).bind(":phase", v.phase);
  s.bind(":case_id", v.case_id).bind(":observed_limit", v.observed_limit);
  s.bind(":headroom_ratio", v.headroom_ratio).bind(":roofline_efficiency_pct", v.roofline_efficiency_pct);
  s.bind(":byte_reduction_levers", v.byte_reduction_levers).bind(":json_pointer", v.json_pointer);
  s.bind(":guidance", v.guidance).bind(":disputed", v.disputed).bind(":case_mix", case_mix_json(v.case_mix));
  s.bind(":profiler_version", v.profiler_version).bind(":profiler_hbm_undercount", v.profiler_hbm_undercount);
}

} // namespace

Result<WriteCounts> RunWriter::write_rows(const std::string& run_id,
                                          std::span<const std::pair<std::int64_t, BenchSummary>> bench,
                                          std::span<const std::pair<std::int64_t, TopN>> rounds,
                                          std::span<const DocRecord> docs, std::span<const Attempt> attempts)
{
  WriteCounts counts;
  auto& st = *m_s;
  for (const auto& [source_id, b] : bench) {
    st.bench.bind(":run_id", run_id)
        .bind(":source_id", source_id)
        .bind(":role", b.role)
        .bind(":label", b.label);
    st.bench.bind(":throughput_tok_s_median", b.throughput_tok_s_median);
    st.bench.bind(":throughput_spread_pct", b.throughput_spread_pct)
        .bind(":ttft_ms_median", b.ttft_ms_median);
    st.bench.bind(":tpot_ms_median", b.tpot_ms_median).bind(":runs_count", b.runs_count);
    st.bench.bind(":metric_basis", b.metric_basis).bind(":measurement_mode", b.measurement_mode);
    RFDB_TRY(st.bench.exec());
    ++counts.bench;
    for (std::size_t i = 0; i < b.throughput_samples.size(); ++i) {
      st.bench_sample.bind(":run_id", run_id).bind(":source_id", source_id);
      st.bench_sample.bind(":sample_index", static_cast<std::int64_t>(i))
          .bind(":throughput_tok_s", b.throughput_samples[i]);
      RFDB_TRY(st.bench_sample.exec());
    }
  }
  for (const auto& [source_id, t] : rounds) {
    st.round.bind(":run_id", run_id).bind(":round", t.round).bind(":round_order", t.round_order);
    st.round.bind(":source_id", source_id).bind(":parser_source", t.parser_source);
    st.round.bind(":total_gpu_time_ms", t.total_gpu_time_ms)
        .bind(":num_kernel_launches", t.num_kernel_launches);
    st.round.bind(":num_distinct_kernels", t.num_distinct_kernels);
    RFDB_TRY(st.round.exec());
    const std::int64_t round_id = m_db->last_insert_rowid();
    for (const auto& k : t.rows) {
      auto& s = st.sample;
      s.bind(":round_id", round_id)
          .bind(":rank", k.rank)
          .bind(":name", k.name)
          .bind(":short_name", k.short_name);
      s.bind(":pct_gpu_time", k.pct_gpu_time).bind(":raw_pct_gpu_time", k.raw_pct_gpu_time);
      s.bind(":total_ms", k.total_ms).bind(":calls", k.calls).bind(":avg_us", k.avg_us);
      s.bind(":classification", k.classification).bind(":backend_guess", k.backend_guess);
      s.bind(":editable", k.editable).bind(":phase", k.phase).bind(":base_latency_ms", k.base_latency_ms);
      s.bind(":shapes", k.shapes).bind(":dtypes", k.dtypes).bind(":json_pointer", k.json_pointer);
      RFDB_TRY(s.exec());
      ++counts.kernels;
    }
  }
  // Verdict ids, per doc, so attempts can point at their prediction.
  std::vector<std::vector<std::int64_t>> verdict_ids;
  for (const auto& d : docs) {
    const auto& doc = d.doc;
    auto& s = st.doc;
    s.bind(":run_id", run_id).bind(":source_id", d.source_id).bind(":source_kind", doc.source_kind);
    s.bind(":round", doc.round).bind(":stage", doc.stage).bind(":phase", doc.phase).bind(":task", doc.task);
    s.bind(":gfx", doc.gfx).bind(":peaks", doc.peaks).bind(":ranking_by_pct", doc.ranking_by_pct);
    s.bind(":ranking_by_expected_gain", doc.ranking_by_expected_gain).bind(":degraded", doc.degraded);
    s.bind(":skill_errors", doc.skill_errors).bind(":superseded", d.superseded);
    RFDB_TRY(s.exec());
    const std::int64_t doc_id = m_db->last_insert_rowid();
    verdict_ids.emplace_back();
    for (const auto& v : doc.verdicts) {
      st.verdict.bind(":doc_id", doc_id).bind(":run_id", run_id).bind(":superseded", d.superseded);
      bind_verdict(st.verdict, v);
      RFDB_TRY(st.verdict.exec());
      verdict_ids.back().push_back(m_db->last_insert_rowid());
      ++(d.superseded ? counts.verdicts_superseded : counts.verdicts);
    }
  }
  for (const auto& a : attempts) {
    std::optional<std::int64_t> pred_id;
    if (a.prediction_verdict) {
      pred_id = verdict_ids[a.prediction_verdict->doc][a.prediction_verdict->verdict];
    }
    bind_attempt(st.attempt, a);
    st.attempt.bind(":run_id", run_id).bind(":pred_verdict_id", pred_id);
    RFDB_TRY(st.attempt.exec());
    const std::int64_t attempt_id = m_db->last_insert_rowid();
    for (const auto& c : a.citations) {
      st.attempt_source.bind(":attempt_id", attempt_id).bind(":source_id", c.source_id);
      st.attempt_source.bind(":json_pointer", c.json_pointer);
      RFDB_TRY(st.attempt_source.exec());
    }
    ++counts.attempts;
  }
  // The estimator's rows, from the attempts, verdicts and run row just written.
  st.observations.bind(":run_id", run_id);
  RFDB_TRY(st.observations.exec());
  return counts;
}

Result<void> RunWriter::write_stack(const std::string& run_id, std::span<const StackRow> stack)
{
  Statement& s = m_s->stack;
  for (const auto& r : stack) {
    s.bind(":run_id", run_id).bind(":package", r.package).bind(":raw", r.raw).bind(":release", r.release);
    s.bind(":source", r.source).bind(":via", r.via);
    RFDB_TRY(s.exec());
  }
  return {};
}

Result<std::optional<std::int64_t>> RunWriter::derived_by(const std::string& run_id)
{
  Statement& s = m_s->derived_by;
  s.bind(":run_id", run_id);
  bool known = false;
  RFDB_TRY_ASSIGN(known, s.step());
  std::optional<std::int64_t> out;
  if (known) {
    out = s.get_int("derived_by");
  }
  s.reset();
  return out;
}

Result<void> RunWriter::set_derived_by(const std::string& run_id, std::int64_t version)
{
  m_s->set_derived_by.bind(":run_id", run_id).bind(":derived_by", version);
  RFDB_TRY(m_s->set_derived_by.exec());
  return {};
}

namespace {

// Bind the identity columns the copy queries filter on.
void bind_identity(Statement& s, const RunRow& run)
{
  const EnvReport& env = run.env;
  s.bind(":run_id", run.run_id).bind(":model", env.model).bind(":gfx", env.gfx).bind(":backend", env.backend);
  s.bind(":isl", env.isl).bind(":osl", env.osl).bind(":conc", env.conc);
}

// Every row's run_id column.
Result<std::vector<std::string>> run_ids(Statement& s)
{
  std::vector<std::string> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& row) { out.push_back(row.get_text("run_id")); }));
  return out;
}

} // namespace

Result<std::vector<std::string>> RunWriter::copy_candidates(const RunRow& run, const std::string& short_name,
                                                            std::optional<double> isolated_speedup,
                                                            std::optional<double> e2e_delta_pct)
{
  Statement& s = m_s->copy_candidates;
  bind_identity(s, run);
  s.bind(":short_name", short_name);
  s.bind(":isolated_speedup", isolated_speedup).bind(":e2e_delta_pct", e2e_delta_pct);
  return run_ids(s);
}

Result<std::vector<MeasuredAttemptRow>> RunWriter::measured_attempts(const std::string& run_id)
{
  Statement& s = m_s->measured;
  s.bind(":run_id", run_id);
  std::vector<MeasuredAttemptRow> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    out.push_back(MeasuredAttemptRow{row.get_text("short_name"), row.get_opt_double("isolated_speedup"),
                                     row.get_opt_double("e2e_delta_pct"), row.get_text("kind"),
                                     row.get_text("attempt_key"), row.get_opt_text("candidate"),
                                     row.get_text("lever")});
  }));
  return out;
}

Result<bool> RunWriter::has_unshared_file(const std::string& run_id)
{
  Statement& s = m_s->unshared_file;
  s.bind(":run_id", run_id);
  bool found = false;
  RFDB_TRY(for_each_row(s, [&](const Statement&) { found = true; }));
  return found;
}

Result<std::optional<std::string>> RunWriter::file_copy(const RunRow& run)
{
  bind_identity(m_s->file_copies, run);
  std::vector<std::string> ids;
  RFDB_TRY_ASSIGN(ids, run_ids(m_s->file_copies));
  return ids.empty() ? std::nullopt : std::optional(std::move(ids.front()));
}

} // namespace rfdb::store
