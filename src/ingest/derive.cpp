#include "ingest/derive.hpp"

#include "ingest/normalize.hpp"

#include <algorithm>
#include <map>

namespace rfdb::ingest {

namespace {

// Parse `text` and dispatch on the artifact kind; attempts go to `attempts`.
struct Parsed {
  std::optional<EnvReport> env;
  std::optional<RunOutcome> outcome;
  std::optional<BenchSummary> bench;
  std::optional<TopN> topn;
  std::optional<RooflineDoc> doc;
  std::vector<AttemptRecord> attempts;
  bool outcome_is_director = false;
};

Result<Parsed> parse_artifact(const ArtifactKind& kind, const std::string& rel_path, const std::string& text,
                              std::vector<Warning>& warnings)
{
  auto doc = parse_json_text(text);
  if (!doc) {
    return fail(std::move(doc).error().with_context(rel_path));
  }
  Parsed p;
  const auto& k = kind.kind;
  auto take = [&](auto result, auto& slot) -> Result<void> {
    if (!result) {
      return fail(std::move(result).error());
    }
    slot = std::move(*result);
    return {};
  };
  if (k == "env_report") {
    RFDB_TRY(take(parse_env_report(*doc, rel_path, warnings), p.env));
  } else if (k == "bench_summary") {
    RFDB_TRY(take(parse_bench_summary(*doc, rel_path, warnings), p.bench));
    p.bench->role = kind.role;
    p.bench->label = kind.label;
  } else if (k == "profile_topn") {
    RFDB_TRY(take(parse_profile_topn(*doc, rel_path, warnings), p.topn));
    p.topn->round = kind.label;
    p.topn->round_order = round_order(kind.label);
  } else if (k == "profile_roofline") {
    RFDB_TRY(take(parse_profile_roofline(*doc, rel_path, warnings), p.doc));
    p.doc->round = kind.label;
    for (auto& v : p.doc->verdicts) {
      v.round = kind.label;
      v.round_order = round_order(kind.label);
    }
  } else if (k == "measured_roofline") {
    RFDB_TRY(take(parse_measured_roofline(*doc, rel_path, warnings), p.doc));
  } else if (k == "integrate_result") {
    RFDB_TRY(take(parse_integrate_result(*doc, rel_path, warnings), p.attempts));
  } else if (k == "opbench_result") {
    RFDB_TRY(take(parse_opbench_result(*doc, rel_path, warnings), p.attempts));
  } else if (k == "sweep_results") {
    RFDB_TRY(take(parse_sweep_results(*doc, rel_path, warnings), p.attempts));
  } else if (k == "workflow_return") {
    std::optional<WorkflowReturn> wr;
    RFDB_TRY(take(parse_workflow_return(*doc, rel_path, warnings), wr));
    p.outcome = std::move(wr->outcome);
    p.attempts = std::move(wr->attempts);
  } else if (k == "director_validation") {
    RFDB_TRY(take(parse_director_validation(*doc, rel_path, warnings), p.outcome));
    p.outcome_is_director = true;
  }
  return p;
}

int attempt_precedence(const std::string& kind)
{
  if (kind == "integrate_result") {
    return 0;
  }
  if (kind == "opbench_result") {
    return 1;
  }
  if (kind == "workflow_return") {
    return 2;
  }
  return 3;
}

template <typename T> void fill(std::optional<T>& into, const std::optional<T>& from)
{
  if (!into && from) {
    into = from;
  }
}

void merge_into(AttemptRecord& a, const AttemptRecord& b)
{
  fill(a.candidate, b.candidate);
  fill(a.backend, b.backend);
  fill(a.winner_kind, b.winner_kind);
  fill(a.regime, b.regime);
  fill(a.isolated_speedup, b.isolated_speedup);
  fill(a.e2e_delta_pct, b.e2e_delta_pct);
  fill(a.gate, b.gate);
  fill(a.verdict_raw, b.verdict_raw);
  fill(a.output_parity, b.output_parity);
  fill(a.parity_kind, b.parity_kind);
  fill(a.reason, b.reason);
  fill(a.round, b.round);
  fill(a.pct_gpu_time, b.pct_gpu_time);
  fill(a.task_dir, b.task_dir);
  if (a.verdict == "unknown") {
    a.verdict = b.verdict;
  }
  if (a.op_class == "unknown") {
    a.op_class = b.op_class;
  }
  if (a.lever_kind == "other") {
    a.lever_kind = b.lever_kind;
  }
  if (a.lever.empty()) {
    a.lever = b.lever;
  }
  // An integrate_result that names no backend learns it from the bake-off.
  if (a.lever == "authored kernel" && a.backend) {
    a.lever = "authored " + *a.backend + " kernel";
  } else if (a.lever == "code patch" && a.backend) {
    a.lever = "code patch (" + *a.backend + ")";
  }
}

// Merge attempt records (already in precedence order) by attempt_key.
std::vector<DerivedAttempt> merge_attempts(std::vector<std::pair<AttemptRecord, std::int64_t>> recs)
{
  std::vector<DerivedAttempt> out;
  for (auto& [rec, source_id] : recs) {
    const std::string key = rec.attempt_key();
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const DerivedAttempt& d) { return d.record.attempt_key() == key; });
    if (it == out.end() && rec.short_name != "config") {
      // A record without a backend joins the kernel's single record with one,
      // and a record with a backend adopts the kernel's backend-less record.
      std::vector<std::size_t> same;
      for (std::size_t i = 0; i < out.size(); ++i) {
        const bool other_has = out[i].record.backend.has_value();
        if (out[i].record.short_name == rec.short_name && other_has != rec.backend.has_value()) {
          same.push_back(i);
        }
      }
      if (same.size() == 1) {
        it = out.begin() + static_cast<std::ptrdiff_t>(same[0]);
      }
    }
    if (it == out.end()) {
      out.push_back(DerivedAttempt{rec, {}, {{source_id, rec.json_pointer}}});
      continue;
    }
    merge_into(it->record, rec);
    it->sources.push_back({source_id, rec.json_pointer});
  }
  return out;
}

std::string strip_suffix(std::string s, std::string_view suffix)
{
  if (s.size() > suffix.size() && s.ends_with(suffix)) {
    s.resize(s.size() - suffix.size());
  }
  return s;
}

// Names an attempt may use for its kernel: short_name, task dir, candidate.
std::vector<std::string> kernel_ids(const AttemptRecord& a)
{
  std::vector<std::string> ids{a.short_name};
  if (a.task_dir) {
    auto base = *a.task_dir;
    if (auto slash = base.find_last_of('/'); slash != std::string::npos) {
      base = base.substr(slash + 1);
    }
    ids.push_back(strip_suffix(base, "_task"));
  }
  if (a.candidate && a.candidate->starts_with("cand_")) {
    ids.push_back(a.candidate->substr(5));
  }
  return ids;
}

bool matches(const Verdict& v, const std::optional<std::string>& task, const std::vector<std::string>& ids)
{
  for (const auto& id : ids) {
    if (id == v.short_name || (v.name && id == *v.name) ||
        (task && (id == *task || id == strip_suffix(*task, "_task")))) {
      return true;
    }
  }
  return false;
}

Snapshot snapshot_from(const Verdict& v, VerdictRef ref)
{
  Snapshot s;
  s.verdict = ref;
  s.source_kind = v.source_kind;
  s.stage = v.stage;
  s.headroom_class = v.headroom_class;
  s.bound_type = v.bound_type;
  s.confidence = v.confidence;
  s.roofline_pct = v.roofline_pct;
  s.target_eff = v.target_eff;
  s.attainable_speedup = v.attainable_speedup;
  s.expected_e2e_gain_pct = v.expected_e2e_gain_pct;
  s.pct_gpu_time = v.pct_gpu_time;
  s.suspect = v.suspect;
  s.round = v.round;
  return s;
}

const KernelSample* find_sample(const std::vector<std::pair<std::int64_t, TopN>>& rounds,
                                const std::vector<std::string>& ids, const std::optional<std::string>& round)
{
  const KernelSample* best = nullptr;
  int best_order = 0;
  for (const auto& [sid, topn] : rounds) {
    if (round && topn.round != *round) {
      continue;
    }
    for (const auto& row : topn.rows) {
      const bool hit = std::find(ids.begin(), ids.end(), row.short_name) != ids.end() ||
                       std::find(ids.begin(), ids.end(), row.name) != ids.end();
      if (hit && (best == nullptr || topn.round_order < best_order)) {
        best = &row;
        best_order = topn.round_order;
      }
    }
  }
  return best;
}

// Measured roofline verdicts (roofline-v1) of the attempt's kernel.
struct MeasuredRefs {
  std::optional<VerdictRef> baseline, post;
};

MeasuredRefs find_measured(const DerivedRun& run, const std::vector<std::string>& ids)
{
  MeasuredRefs m;
  for (std::size_t d = 0; d < run.docs.size(); ++d) {
    const auto& doc = run.docs[d];
    if (doc.superseded || doc.doc.source_kind != "measured") {
      continue;
    }
    for (std::size_t i = 0; i < doc.doc.verdicts.size(); ++i) {
      if (matches(doc.doc.verdicts[i], doc.doc.task, ids)) {
        auto& slot = doc.doc.phase == std::optional<std::string>("post") ? m.post : m.baseline;
        slot = slot ? slot : VerdictRef{d, i};
      }
    }
  }
  return m;
}

// The analytic profile_roofline verdict for the kernel: latest at or before
// the attempt's stated round, else the earliest round with a verdict.
std::optional<VerdictRef> find_analytic(const DerivedRun& run, const std::vector<std::string>& ids,
                                        const std::optional<std::string>& round)
{
  std::optional<VerdictRef> best;
  int best_order = 0;
  const int limit = round ? round_order(*round) : 1 << 30;
  for (std::size_t d = 0; d < run.docs.size(); ++d) {
    const auto& doc = run.docs[d];
    if (doc.superseded || doc.doc.source_kind != "analytic") {
      continue;
    }
    for (std::size_t i = 0; i < doc.doc.verdicts.size(); ++i) {
      const auto& v = doc.doc.verdicts[i];
      const int order = v.round_order.value_or(0);
      if (!matches(v, doc.doc.task, ids) || order > limit) {
        continue;
      }
      if (!best || (round ? order > best_order : order < best_order)) {
        best = VerdictRef{d, i};
        best_order = order;
      }
    }
  }
  return best;
}

void join_prediction(DerivedRun& run, DerivedAttempt& att)
{
  auto ids = kernel_ids(att.record);
  auto verdict_at = [&](VerdictRef r) -> const Verdict& { return run.docs[r.doc].doc.verdicts[r.verdict]; };
  const MeasuredRefs measured = find_measured(run, ids);
  // The measured file names the device kernel it matched: that links a task
  // (decode_attention_task) to the profiled symbol.
  if (measured.baseline) {
    if (const auto& name = verdict_at(*measured.baseline).name) {
      ids.push_back(*name);
    }
  }
  const auto analytic = find_analytic(run, ids, att.record.round);
  Snapshot s;
  // Precedence: a stage-C entry that is itself measured (what the pipeline
  // routed on), then a measured baseline roofline, then the analytic verdict.
  if (analytic && verdict_at(*analytic).source_kind == "measured") {
    s = snapshot_from(verdict_at(*analytic), *analytic);
  } else if (measured.baseline) {
    s = snapshot_from(verdict_at(*measured.baseline), *measured.baseline);
    if (analytic) {
      s.pct_gpu_time = verdict_at(*analytic).pct_gpu_time;
      s.round = verdict_at(*analytic).round;
    }
  } else if (analytic) {
    s = snapshot_from(verdict_at(*analytic), *analytic);
  }
  if (!s.pct_gpu_time) {
    const auto* row = find_sample(run.rounds, ids, s.round);
    s.pct_gpu_time = row != nullptr ? std::optional(row->pct_gpu_time) : att.record.pct_gpu_time;
  }
  if (s.verdict && !s.expected_e2e_gain_pct && s.pct_gpu_time && s.attainable_speedup &&
      *s.attainable_speedup > 0) {
    s.expected_e2e_gain_pct = *s.pct_gpu_time * (1.0 - 1.0 / *s.attainable_speedup);
  }
  if (measured.post) {
    if (auto eff = verdict_at(*measured.post).roofline_efficiency_pct) {
      s.post_efficiency = *eff / 100.0;
    }
  }
  // op_class and regime follow the verdict; else the Top-N row's class.
  const Verdict* v =
      analytic ? &verdict_at(*analytic) : (measured.baseline ? &verdict_at(*measured.baseline) : nullptr);
  if (v != nullptr && v->op_class != "unknown") {
    att.record.op_class = v->op_class;
  } else if (att.record.op_class == "unknown") {
    if (const auto* row = find_sample(run.rounds, ids, std::nullopt)) {
      att.record.op_class =
          std::string(op_class_from_top_n(row->classification.value_or(""), row->name).value);
    }
  }
  if (v != nullptr && v->regime && !att.record.regime) {
    att.record.regime = v->regime;
  }
  if (!att.record.round) {
    att.record.round = s.round;
  }
  att.prediction = std::move(s);
}

} // namespace

Result<void> validate_artifact(const ArtifactKind& kind, const std::string& rel_path, const std::string& text,
                               std::vector<Warning>& warnings)
{
  auto parsed = parse_artifact(kind, rel_path, text, warnings);
  if (!parsed) {
    return fail(std::move(parsed).error());
  }
  return {};
}

Result<DerivedRun> derive_run(const std::string& run_id, const std::string& dir_basename,
                              const std::vector<StoredSource>& sources)
{
  DerivedRun run;
  run.run.run_id = run_id;
  run.run.run_date = run_date_from_dir_name(run_id);
  if (!run.run.run_date) {
    run.run.run_date = run_date_from_dir_name(dir_basename);
  }
  std::optional<RunOutcome> workflow_outcome, director_outcome;
  std::vector<std::pair<AttemptRecord, std::int64_t>> records;
  std::vector<int> precedence;
  for (const auto& src : sources) {
    auto parsed = parse_artifact(src.kind, src.rel_path, src.raw, run.warnings);
    if (!parsed) {
      return fail(std::move(parsed).error());
    }
    auto& p = *parsed;
    if (src.superseded && src.kind.kind != "profile_roofline") {
      continue; // only the current version of other kinds is derived
    }
    if (p.env) {
      run.run.env = std::move(*p.env);
    }
    if (p.outcome) {
      (p.outcome_is_director ? director_outcome : workflow_outcome) = std::move(*p.outcome);
    }
    if (p.bench) {
      run.bench.emplace_back(src.source_id, std::move(*p.bench));
    }
    if (p.topn) {
      run.rounds.emplace_back(src.source_id, std::move(*p.topn));
    }
    if (p.doc) {
      run.docs.push_back(DerivedDoc{src.source_id, std::move(*p.doc), src.superseded});
    }
    for (auto& a : p.attempts) {
      records.emplace_back(std::move(a), src.source_id);
      precedence.push_back(attempt_precedence(src.kind.kind));
    }
  }
  // Precedence order (stable, so file order breaks ties).
  std::vector<std::size_t> order(records.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return precedence[a] < precedence[b]; });
  std::vector<std::pair<AttemptRecord, std::int64_t>> sorted;
  for (auto i : order) {
    sorted.push_back(std::move(records[i]));
  }
  run.attempts = merge_attempts(std::move(sorted));
  for (auto& att : run.attempts) {
    join_prediction(run, att);
  }
  RunOutcome outcome = workflow_outcome.value_or(RunOutcome{});
  if (director_outcome) {
    outcome = overlay_outcome(std::move(outcome), *director_outcome);
  }
  for (const auto& [sid, b] : run.bench) {
    if (b.role == "baseline" && !outcome.baseline_throughput_tok_s) {
      outcome.baseline_throughput_tok_s = b.throughput_tok_s_median;
    }
    if (b.role == "validation_final" && !outcome.final_throughput_tok_s) {
      outcome.final_throughput_tok_s = b.throughput_tok_s_median;
    }
  }
  if (!run.run.env.model && outcome.model) {
    run.run.env.model = outcome.model;
  }
  run.run.outcome = std::move(outcome);
  return run;
}

} // namespace rfdb::ingest
