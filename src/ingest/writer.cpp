// The transactional writer of one derived run (runs, sources, verdicts, attempts).
#include "ingest/writer.hpp"

#include "rfdb_sql.hpp"

namespace rfdb::ingest {

using store::Statement;

struct RunWriter::Statements {
  Statement run_upsert, clear_attempts, clear_verdicts, clear_rounds, clear_bench;
  Statement bench, round, sample, doc, verdict, attempt, attempt_source;
};

RunWriter::RunWriter(store::Database& db, std::unique_ptr<Statements> s) : m_db(&db), m_s(std::move(s)) {}
RunWriter::RunWriter(RunWriter&&) noexcept = default;
RunWriter& RunWriter::operator=(RunWriter&&) noexcept = default;
RunWriter::~RunWriter() = default;

Result<RunWriter> RunWriter::create(store::Database& db)
{
  auto s = std::make_unique<Statements>();
  RFDB_TRY_ASSIGN(s->run_upsert, db.prepare(sql::k_run_upsert, "run_upsert"));
  RFDB_TRY_ASSIGN(s->clear_attempts, db.prepare(sql::k_run_clear_attempts, "run_clear_attempts"));
  RFDB_TRY_ASSIGN(s->clear_verdicts, db.prepare(sql::k_run_clear_verdicts, "run_clear_verdicts"));
  RFDB_TRY_ASSIGN(s->clear_rounds, db.prepare(sql::k_run_clear_rounds, "run_clear_rounds"));
  RFDB_TRY_ASSIGN(s->clear_bench, db.prepare(sql::k_run_clear_bench, "run_clear_bench"));
  RFDB_TRY_ASSIGN(s->bench, db.prepare(sql::k_bench_insert, "bench_insert"));
  RFDB_TRY_ASSIGN(s->round, db.prepare(sql::k_round_insert, "round_insert"));
  RFDB_TRY_ASSIGN(s->sample, db.prepare(sql::k_sample_insert, "sample_insert"));
  RFDB_TRY_ASSIGN(s->doc, db.prepare(sql::k_roofline_doc_insert, "roofline_doc_insert"));
  RFDB_TRY_ASSIGN(s->verdict, db.prepare(sql::k_verdict_insert, "verdict_insert"));
  RFDB_TRY_ASSIGN(s->attempt, db.prepare(sql::k_attempt_insert, "attempt_insert"));
  RFDB_TRY_ASSIGN(s->attempt_source, db.prepare(sql::k_attempt_source_insert, "attempt_source_insert"));
  return RunWriter(db, std::move(s));
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
  return {};
}

Result<void> RunWriter::clear_derived(const std::string& run_id)
{
  for (Statement* s : {&m_s->clear_attempts, &m_s->clear_verdicts, &m_s->clear_rounds, &m_s->clear_bench}) {
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
  s.bind(":raw", v.raw);
}

void bind_attempt(Statement& s, const DerivedAttempt& d, std::optional<std::int64_t> pred_verdict_id)
{
  const auto& a = d.record;
  const auto& p = d.prediction;
  s.bind(":attempt_key", d.key).bind(":short_name", a.short_name).bind(":candidate", a.candidate);
  s.bind(":kind", d.kind).bind(":candidate_short_name", d.candidate_short_name).bind(":task", d.task);
  s.bind(":measured", d.measured).bind(":deployed", d.deployed).bind(":post_measured", d.post_measured);
  s.bind(":reject_reason", a.reject_reason).bind(":validation_class", d.validation_class);
  s.bind(":validation_speedup", d.validation_speedup);
  s.bind(":lever", a.lever).bind(":lever_kind", a.lever_kind).bind(":backend", a.backend);
  s.bind(":winner_kind", a.winner_kind).bind(":op_class", a.op_class).bind(":regime", a.regime);
  s.bind(":isolated_speedup", a.isolated_speedup).bind(":e2e_delta_pct", a.e2e_delta_pct);
  s.bind(":gate", a.gate).bind(":verdict", a.verdict).bind(":verdict_raw", a.verdict_raw);
  s.bind(":output_parity", a.output_parity).bind(":parity_kind", a.parity_kind).bind(":reason", a.reason);
  s.bind(":round", a.round).bind(":pred_verdict_id", pred_verdict_id);
  s.bind(":pred_source_kind", p.source_kind).bind(":pred_stage", p.stage);
  s.bind(":pred_roofline_pct", p.roofline_pct).bind(":pred_target_eff", p.target_eff);
  s.bind(":pred_attainable_speedup", p.attainable_speedup);
  s.bind(":pred_expected_e2e_gain_pct", p.expected_e2e_gain_pct);
  s.bind(":pred_headroom_class", p.headroom_class).bind(":pred_bound_type", p.bound_type);
  s.bind(":pred_confidence", p.confidence).bind(":pred_suspect", p.suspect);
  s.bind(":pred_pct_gpu_time", p.pct_gpu_time).bind(":post_efficiency", d.post_efficiency);
}

} // namespace

Result<WriteCounts> RunWriter::write_derived(const DerivedRun& run)
{
  WriteCounts counts;
  const std::string& run_id = run.run.run_id;
  auto& st = *m_s;
  for (const auto& [source_id, b] : run.bench) {
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
  }
  for (const auto& [source_id, t] : run.rounds) {
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
      s.bind(":shapes", k.shapes)
          .bind(":dtypes", k.dtypes)
          .bind(":json_pointer", k.json_pointer)
          .bind(":raw", k.raw);
      RFDB_TRY(s.exec());
      ++counts.kernels;
    }
  }
  // Verdict ids, per doc, so attempts can point at their prediction.
  std::vector<std::vector<std::int64_t>> verdict_ids;
  for (const auto& d : run.docs) {
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
  for (const auto& a : run.attempts) {
    std::optional<std::int64_t> pred_id;
    if (a.prediction_verdict) {
      pred_id = verdict_ids[a.prediction_verdict->doc][a.prediction_verdict->verdict];
    }
    st.attempt.bind(":run_id", run_id);
    bind_attempt(st.attempt, a, pred_id);
    RFDB_TRY(st.attempt.exec());
    const std::int64_t attempt_id = m_db->last_insert_rowid();
    for (const auto& c : a.sources) {
      st.attempt_source.bind(":attempt_id", attempt_id).bind(":source_id", c.source_id);
      st.attempt_source.bind(":json_pointer", c.json_pointer);
      RFDB_TRY(st.attempt_source.exec());
    }
    ++counts.attempts;
  }
  return counts;
}

} // namespace rfdb::ingest
