// Hand-made report inputs shared by the report/ unit tests (no database).
// The numbers follow the canonical example of tests/fixtures/runs/README.md, run 1 where they can; the
// names of runs and models are invented.
#pragma once

#include "report/model.hpp"

#include <string>

namespace rfdb::report::testing {

inline RunInfo make_run(std::string id, std::string date, std::string gfx, std::string validation = "unknown")
{
  RunInfo r;
  r.run_id = std::move(id);
  r.run_date = std::move(date);
  r.model = "Model-A-35B";
  r.gfx = std::move(gfx);
  r.backend = "vllm";
  r.isl = 1024;
  r.osl = 1024;
  r.conc = 64;
  r.validation_class = std::move(validation);
  return r;
}

// An attempt of `lever` on a gemm kernel at decode; outcome set by the caller.
inline AttemptInfo make_attempt(const RunInfo& run, std::string lever, std::optional<double> iso,
                                std::optional<double> e2e, std::string gate = "")
{
  AttemptInfo a;
  a.run_id = run.run_id;
  a.run_date = run.run_date;
  a.gfx = run.gfx;
  a.model = run.model;
  a.isl = run.isl;
  a.osl = run.osl;
  a.conc = run.conc;
  a.short_name = "gemm_a8w8_kernel";
  a.op_class = "gemm";
  a.regime = "decode";
  a.lever = std::move(lever);
  a.lever_kind = "tuning";
  a.backend = "hipblaslt";
  a.isolated_speedup = iso;
  a.e2e_delta_pct = e2e;
  a.gate = std::move(gate);
  a.verdict = "confirmed";
  a.run_validation_class = run.validation_class;
  a.prediction.roofline_pct = 0.5;
  a.prediction.target_eff = 0.9;
  a.prediction.attainable_speedup = 1.8;
  a.prediction.headroom_class = "underperforming";
  a.prediction.confidence = "medium";
  a.prediction.suspect = false;
  a.prediction.pct_gpu_time = 20.0;
  return a;
}

inline HeadVerdict make_head(const RunInfo& run, std::string kernel, std::string op_class, double pct,
                             double roofline_pct, double target_eff, std::string headroom)
{
  HeadVerdict h;
  h.run_id = run.run_id;
  h.run_date = run.run_date;
  h.gfx = run.gfx;
  h.round = 0;
  h.short_name = std::move(kernel);
  h.op_class = std::move(op_class);
  h.pct_gpu_time = pct;
  h.roofline_pct = roofline_pct;
  h.target_eff = target_eff;
  h.attainable_speedup = std::max(1.0, target_eff / roofline_pct);
  h.expected_e2e_gain_pct = pct * (1.0 - 1.0 / *h.attainable_speedup);
  h.headroom_class = std::move(headroom);
  return h;
}

inline ImportedFinding make_card(std::string identity, std::string op_class, std::string gfx,
                                 std::string regime, std::string lever, int stars, std::string last_seen)
{
  ImportedFinding f;
  f.origin = "card";
  f.identity = std::move(identity);
  f.name = f.identity.substr(0, f.identity.size() - 3);
  f.op_class = std::move(op_class);
  f.gfx = std::move(gfx);
  f.regime = std::move(regime);
  f.lever = std::move(lever);
  f.effect = "iso 1.10x, +1.5% e2e";
  f.kind = domain::KnowledgeKind::positive_measured; // what classify_knowledge reads in that effect
  f.stars = stars;
  f.last_seen = std::move(last_seen);
  return f;
}

// The canonical two-head run (tests/fixtures/runs/README.md, run 1) plus an older gfx942 run.
inline ReportInput canonical_input()
{
  ReportInput in;
  in.as_of = "2026-03-31";
  const RunInfo old_run = make_run("run_gfx942_a", "2026-01-10", "gfx942", "win");
  const RunInfo new_run = make_run("run_gfx950_b", "2026-03-02", "gfx950", "no_win");
  in.runs = {old_run, new_run};

  AttemptInfo tune = make_attempt(old_run, "per-shape hipBLASLt tune", 1.12, 2.1, "accepted");
  tune.attempt_key = "cand:cand_gemm_a8w8_kernel";
  tune.reason = "accepted: +2.10% non-overlapping; ceiling +2.14%";
  tune.deployed = true; // the Director validated the final overlay that carries it
  tune.validation_speedup = 1.021;
  AttemptInfo moe = make_attempt(new_run, "fused MoE config tune", 1.047, -0.064, "rejected");
  moe.short_name = "fused_moe_kernel";
  moe.op_class = "moe";
  moe.prediction.roofline_pct = 0.88;
  moe.prediction.attainable_speedup = 1.023;
  moe.prediction.pct_gpu_time = 26.45;
  moe.prediction.headroom_class = "saturated";
  moe.attempt_key = "cand:cand_fused_moe_kernel";
  moe.validation_speedup = 0.998;
  AttemptInfo attn = make_attempt(new_run, "--attention-backend triton", 1.56, std::nullopt, "");
  attn.short_name = "kernel_paged_attention_2d";
  attn.op_class = "attn";
  attn.lever_kind = "config";
  attn.backend = "triton";
  attn.prediction.roofline_pct = 0.18;
  attn.prediction.target_eff = 0.5;
  attn.prediction.attainable_speedup = 2.8;
  attn.prediction.pct_gpu_time = 8.86;
  attn.attempt_key = "cand:cand_kernel_paged_attention_2d";
  AttemptInfo loss = make_attempt(new_run, "split-K rewrite", 1.08, -0.9, "rejected");
  loss.attempt_key = "cand:cand_gemm_splitk";
  in.attempts = {tune, moe, attn, loss};

  RoundRanking rank;
  rank.run_id = new_run.run_id;
  rank.round = 0;
  rank.top_by_pct = "fused_moe_kernel";
  rank.top_by_gain = "kernel_paged_attention_2d";
  rank.top_by_pct_pct_gpu_time = 26.45;
  rank.top_by_pct_expected_gain_pct = 0.59;
  rank.top_by_gain_pct_gpu_time = 8.86;
  rank.top_by_gain_expected_gain_pct = 5.7;
  in.rankings = {rank};

  HeadVerdict moe_head = make_head(new_run, "fused_moe_kernel", "moe", 26.45, 0.88, 0.9, "saturated");
  moe_head.byte_reduction_levers = {"skip unrouted experts", "fp8 weights"};
  moe_head.is_newest_run = true;
  HeadVerdict attn_head =
      make_head(new_run, "kernel_paged_attention_2d", "attn", 8.86, 0.18, 0.5, "underperforming");
  attn_head.is_newest_run = true;
  in.heads = {moe_head, attn_head};
  return in;
}

} // namespace rfdb::report::testing
