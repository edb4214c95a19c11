// Attempt sources: integrate_result, opbench_result, sweep_results and
// workflow_return (ledger + accepted/pending/flagged lists).
#include "ingest/evaldir/artifacts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace rfdb::ingest;
using rfdb::ErrorCode;

namespace {

json doc_of(std::string_view text)
{
  auto r = parse_json_text(text);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : json();
}

constexpr std::string_view k_integrate_path = "overlay/cand_fused_moe_kernel/integrate_result.json";

// The canonical MoE attempt of tests/fixtures/runs/README.md, run 1: 1.047× isolated, −0.064 % e2e.
constexpr std::string_view k_integrate = R"json({
  "short_name": "fused_moe_kernel", "provenance_ok": true, "isolated_speedup": "1.047",
  "pct_gpu_time": 26.45, "e2e_throughput_tok_s": 1580.39, "e2e_delta_pct": -0.064,
  "ref_med": 1581.4, "cand_med": 1580.39, "ab_complete": true, "output_parity": "pass",
  "parity_kind": "byte_exact", "gate": "stack", "winner_kind": "env", "backend": "aiter",
  "apply_env": "AITER_TUNED_GEMM=1", "op_kind": "moe",
  "reason": "Amdahl ceiling 1.2% at 26% GPU; delta inside noise",
  "task_dir": "kernels/fused_moe_task", "round": 0
})json";

} // namespace

TEST(ParseIntegrateResult, ParsesTheCanonicalMoeAttempt)
{
  std::vector<Warning> warnings;
  const auto r = parse_integrate_result(doc_of(k_integrate), k_integrate_path, warnings);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 1U);
  const AttemptRecord& a = r->front();
  EXPECT_EQ(a.short_name, "fused_moe_kernel");
  EXPECT_EQ(*a.candidate, "cand_fused_moe_kernel");
  EXPECT_EQ(*a.backend, "aiter");
  EXPECT_EQ(*a.winner_kind, "env");
  EXPECT_EQ(a.lever, "backend aiter (env AITER_TUNED_GEMM=1)");
  EXPECT_EQ(a.lever_kind, rfdb::domain::LeverKind::tuning);
  EXPECT_DOUBLE_EQ(*a.isolated_speedup, 1.047);
  EXPECT_DOUBLE_EQ(*a.e2e_delta_pct, -0.064);
  EXPECT_EQ(*a.gate, "stack");
  EXPECT_EQ(a.verdict, rfdb::domain::Verdict::partial); // stack without an e2e gain
  EXPECT_EQ(*a.output_parity, "pass");
  EXPECT_EQ(*a.parity_kind, "byte_exact");
  EXPECT_EQ(a.op_class, rfdb::domain::OpClass::moe);
  EXPECT_DOUBLE_EQ(*a.pct_gpu_time, 26.45);
  EXPECT_EQ(*a.round, "0");
  EXPECT_EQ(*a.task_dir, "kernels/fused_moe_task");
  EXPECT_EQ(a.json_pointer, "");
  EXPECT_EQ(a.merge_key(), "fused_moe_kernel|aiter");
  EXPECT_TRUE(warnings.empty());
}

TEST(ParseIntegrateResult, AMisspelledMeasuredKeyIsWarnedNotGuessed)
{
  std::vector<Warning> warnings;
  const auto r = parse_integrate_result(doc_of(R"json({"short_name": "fused_moe_kernel",
      "isolatedSpeedup": 1.3, "E2E-Delta-Pct": 0.8, "gate": "accepted", "winner_kind": "env",
      "outputParity": "fail",
      "backend": "aiter"})json"),
                                        k_integrate_path, warnings);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 1U);
  EXPECT_FALSE(r->front().isolated_speedup.has_value()); // a spelling docs/artifacts.md lacks is not read
  EXPECT_FALSE(r->front().e2e_delta_pct.has_value());
  EXPECT_FALSE(r->front().output_parity.has_value());
  ASSERT_EQ(warnings.size(), 3U);
  EXPECT_EQ(warnings[0].file, k_integrate_path);
  EXPECT_EQ(warnings[0].pointer, "/isolatedSpeedup");
  EXPECT_EQ(warnings[0].message, "'isolatedSpeedup' is not read: this field is spelled 'isolated_speedup'");
  EXPECT_EQ(warnings[1].pointer, "/E2E-Delta-Pct");
  EXPECT_EQ(warnings[1].message, "'E2E-Delta-Pct' is not read: this field is spelled 'e2e_delta_pct'");
  EXPECT_EQ(warnings[2].pointer, "/outputParity"); // a parity failure must not pass for a win in silence
}

TEST(ParseWorkflowReturn, AMisspelledLedgerKeyIsWarnedAtItsRow)
{
  std::vector<Warning> warnings;
  const auto r = parse_workflow_return(doc_of(R"json({"schema_version": 1, "mode": "e2e",
      "state": {"history": {"ledger": [{"direction": "gemm0:triton", "Isolated_Speedup": 1.2,
      "verdict": "confirmed", "e2e_delta_pct": 1.0}]}}})json"),
                                       "workflow_return.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->attempts.size(), 1U);
  EXPECT_FALSE(r->attempts[0].isolated_speedup.has_value());
  ASSERT_EQ(warnings.size(), 1U) << warnings[0].message;
  EXPECT_EQ(warnings[0].pointer, "/state/history/ledger/0/Isolated_Speedup");
}

TEST(ParseIntegrateResult, RejectsZeroNegativeSpeedupsAndBadPct)
{
  std::vector<Warning> warnings;
  for (const char* bad :
       {R"({"short_name": "k", "isolated_speedup": -1.2})", R"({"short_name": "k", "isolated_speedup": 0})",
        R"({"short_name": "k", "isolated_speedup": "fast"})"}) {
    const auto r = parse_integrate_result(doc_of(bad), k_integrate_path, warnings);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
    EXPECT_EQ(r.error().context.front(), k_integrate_path);
    EXPECT_NE(r.error().message.find("/isolated_speedup"), std::string::npos) << bad;
  }
  const auto pct = parse_integrate_result(doc_of(R"({"short_name": "k", "pct_gpu_time": 101})"),
                                          k_integrate_path, warnings);
  ASSERT_FALSE(pct);
  EXPECT_NE(pct.error().message.find("/pct_gpu_time"), std::string::npos);
}

TEST(ParseIntegrateResult, RecoversIdentityFromTheCandidateDirectory)
{
  std::vector<Warning> warnings;
  const auto tagged =
      parse_integrate_result(doc_of(R"({"short_name": "fused_moe_kernel", "isolated_speedup": 1.21,
               "ref_med": 1000.0, "cand_med": 1012.0, "gate": "accepted", "winner_kind": "authored"})"),
                             "overlay/cand_fused_moe_kernel_triton/integrate_result.json", warnings);
  ASSERT_TRUE(tagged) << tagged.error().describe();
  const AttemptRecord& a = tagged->front();
  EXPECT_EQ(*a.backend, "triton");
  EXPECT_NEAR(*a.e2e_delta_pct, 1.2, 1e-9); // from the medians
  EXPECT_EQ(a.verdict, rfdb::domain::Verdict::confirmed);
  EXPECT_EQ(a.lever, "authored triton kernel");
  EXPECT_EQ(a.lever_kind, rfdb::domain::LeverKind::authored);
  const auto checkpoint =
      parse_integrate_result(doc_of(R"({"ref_med": 1581.4, "gate": "incomplete", "ab_complete": false})"),
                             "overlay/cand_c0_ck/integrate_result.json", warnings);
  ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
  EXPECT_EQ(checkpoint->front().short_name, "c0_ck");
  EXPECT_EQ(checkpoint->front().verdict, rfdb::domain::Verdict::incomplete);
  const auto nameless = parse_integrate_result(doc_of("{}"), "integrate_result.json", warnings);
  EXPECT_FALSE(nameless);
}

TEST(ParseIntegrateResult, UnknownGateWarns)
{
  std::vector<Warning> warnings;
  const auto r =
      parse_integrate_result(doc_of(R"({"short_name": "k", "gate": "maybe"})"), k_integrate_path, warnings);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->front().verdict, rfdb::domain::Verdict::unknown);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].pointer, "/gate");
}

TEST(ParseOpbenchResult, SkipsNoWinnerAndUnmeasured)
{
  std::vector<Warning> warnings;
  const auto none =
      parse_opbench_result(doc_of(R"({"task": "gemm_task", "winner_kind": "none", "winner_ms": null})"),
                           "kernels/gemm_task/opbench_result.json", warnings);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  const auto attn =
      parse_opbench_result(doc_of(R"({"measured": "false", "winner": "none", "harness_suspect": false})"),
                           "kernels/attn_task/opbench_result.json", warnings);
  ASSERT_TRUE(attn);
  EXPECT_TRUE(attn->empty());
  EXPECT_TRUE(warnings.empty());
}

TEST(ParseOpbenchResult, ReadsAWinner)
{
  std::vector<Warning> warnings;
  const auto r = parse_opbench_result(
      doc_of(R"({"task": "gemm_a8w8_task", "winner_backend": "hipblaslt", "winner_kind": "env",
               "isolated_speedup": 1.18, "winner_editable": false, "gate": "have_winner",
               "apply_env": ["HIPBLASLT_TUNING_FILE=/t.csv"], "op_kind": "dense_gemm"})"),
      "kernels/gemm_a8w8_task/opbench_result.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 1U);
  const AttemptRecord& a = r->front();
  EXPECT_EQ(a.short_name, "gemm_a8w8");
  EXPECT_EQ(*a.backend, "hipblaslt");
  EXPECT_DOUBLE_EQ(*a.isolated_speedup, 1.18);
  EXPECT_EQ(a.verdict, rfdb::domain::Verdict::incomplete);
  EXPECT_EQ(*a.verdict_raw, "have_winner");
  // The lever keeps the file name, not the run's path (findings merge across runs).
  EXPECT_EQ(a.lever, "backend hipblaslt (env HIPBLASLT_TUNING_FILE=t.csv)");
  EXPECT_EQ(a.lever_kind, rfdb::domain::LeverKind::tuning);
  EXPECT_EQ(a.op_class, rfdb::domain::OpClass::gemm);
  EXPECT_EQ(a.merge_key(), "gemm_a8w8|hipblaslt");
  const auto neg = parse_opbench_result(
      doc_of(R"({"task": "t_task", "winner_backend": "ck", "winner_kind": "env", "isolated_speedup": -2})"),
      "kernels/t_task/opbench_result.json", warnings);
  ASSERT_FALSE(neg);
  EXPECT_NE(neg.error().message.find("/isolated_speedup"), std::string::npos);
}

TEST(ParseSweepResults, ReadsObjectAndBareArrayForms)
{
  std::vector<Warning> warnings;
  const auto r = parse_sweep_results(doc_of(R"({"trials": [
      {"id": "cfg1", "axis": "attention-backend", "change": "--attention-backend aiter",
       "throughput_tok_s": 1650.2, "delta_pct": 4.35, "parity": "pass", "kept": true},
      {"id": "cfg2", "axis": "cuda-graph", "change": "--cuda-graph-max-bs 256",
       "delta_pct": "-0.4", "kept": false, "note": "within noise"}],
      "accepted_flags": ["--attention-backend aiter"]})"),
                                     "config/sweep_results.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 2U);
  EXPECT_EQ((*r)[0].merge_key(), "config|--attention-backend aiter");
  EXPECT_EQ((*r)[0].short_name, "config");
  EXPECT_EQ((*r)[0].lever, "config: --attention-backend aiter");
  EXPECT_EQ((*r)[0].lever_kind, rfdb::domain::LeverKind::config);
  EXPECT_EQ((*r)[0].verdict, rfdb::domain::Verdict::confirmed);
  EXPECT_DOUBLE_EQ(*(*r)[0].e2e_delta_pct, 4.35);
  EXPECT_EQ(*(*r)[0].candidate, "cfg1");
  EXPECT_EQ((*r)[0].json_pointer, "/trials/0");
  EXPECT_EQ((*r)[1].verdict, rfdb::domain::Verdict::dead_end);
  EXPECT_EQ(*(*r)[1].reason, "within noise");
  const auto bare = parse_sweep_results(doc_of(R"([{"id": "cfg0", "axis": "quant", "kept": true}])"),
                                        "config/sweep_results.json", warnings);
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->at(0).merge_key(), "config|quant");
  EXPECT_EQ(bare->at(0).verdict, rfdb::domain::Verdict::partial);
  EXPECT_EQ(bare->at(0).json_pointer, "/0");
  EXPECT_TRUE(warnings.empty());
}

TEST(ParseWorkflowReturn, ReadsLedgerListsAndOutcome)
{
  std::vector<Warning> warnings;
  const auto r = parse_workflow_return(doc_of(R"json({
    "schema_version": 1, "mode": "e2e", "model_name": "Qwen3.5-35B-A3B-FP8",
    "baseline_throughput_tok_s": 1581.4, "final_throughput_tok_s": 1618.0,
    "throughput_speedup": 1.0231, "validation_status": "validated_win", "output_parity": "pass",
    "accepted_heads": [{"short_name": "kernel_paged_attention_2d", "op_kind": "attention",
                        "backend": "triton", "kind": "authored", "e2e_delta_pct": 2.31, "isolated": 1.56}],
    "pending_integrations": [{"short_name": "rms_norm_kernel", "track": "milestone", "isolated": 1.3,
                              "pct_gpu_time": 4.1, "partial": {"gate": "incomplete", "ref_med": 1600.0,
                              "cand_med": 1608.0, "reason": "cand leg timed out"}}],
    "flagged_heads": [{"short_name": "all_reduce", "pct_gpu_time": 31.0, "stage": "extract",
                       "gate": "harness_error", "reason": "no standalone harness"}],
    "state": {"history": {"ledger": [
      {"direction": "fused_moe_kernel:aiter", "isolated_speedup": 1.047, "e2e_delta_pct": -0.064,
       "verdict": "dead_end", "lesson": "env aiter: 1580.4 tok/s (-0.06%)"},
      {"direction": "kernel_paged_attention_2d:triton", "isolated_speedup": "1.56",
       "e2e_delta_pct": 2.31, "verdict": "confirmed"},
      {"direction": "gemm0", "isolated_speedup": 0, "e2e_delta_pct": 0, "verdict": "dead_end",
       "lesson": "op extraction failed (no callable)"},
      {"direction": "rms_norm_kernel:triton", "verdict": "candidate_passed"}]}}
  })json"),
                                       "workflow_return.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(*r->outcome.model, "Qwen3.5-35B-A3B-FP8");
  EXPECT_DOUBLE_EQ(*r->outcome.baseline_throughput_tok_s, 1581.4);
  EXPECT_DOUBLE_EQ(*r->outcome.throughput_speedup, 1.0231);
  EXPECT_EQ(r->outcome.validation_class, "win");
  ASSERT_EQ(r->attempts.size(), 7U);
  const AttemptRecord& moe = r->attempts[0];
  EXPECT_EQ(moe.short_name, "fused_moe_kernel");
  EXPECT_EQ(*moe.backend, "aiter");
  EXPECT_EQ(moe.merge_key(), "fused_moe_kernel|aiter");
  EXPECT_EQ(*moe.winner_kind, "env");
  EXPECT_EQ(moe.lever_kind, rfdb::domain::LeverKind::tuning);
  EXPECT_EQ(moe.verdict, rfdb::domain::Verdict::dead_end);
  EXPECT_DOUBLE_EQ(*moe.e2e_delta_pct, -0.064);
  EXPECT_EQ(moe.json_pointer, "/state/history/ledger/0");
  EXPECT_DOUBLE_EQ(*r->attempts[1].isolated_speedup, 1.56);
  EXPECT_EQ(r->attempts[1].lever_kind, rfdb::domain::LeverKind::backend);
  const AttemptRecord& failed = r->attempts[2];
  EXPECT_EQ(failed.merge_key(), "gemm0|");
  EXPECT_FALSE(failed.isolated_speedup.has_value()); // 0 = failed
  EXPECT_FALSE(failed.e2e_delta_pct.has_value());    // 0 = not measured
  EXPECT_EQ(failed.lever, "direction gemm0");
  EXPECT_EQ(r->attempts[3].verdict, rfdb::domain::Verdict::confirmed);
  EXPECT_EQ(*r->attempts[3].verdict_raw, "candidate_passed");
  const AttemptRecord& head = r->attempts[4];
  EXPECT_EQ(head.merge_key(), "kernel_paged_attention_2d|triton");
  EXPECT_EQ(head.verdict, rfdb::domain::Verdict::confirmed);
  EXPECT_EQ(head.op_class, rfdb::domain::OpClass::attn);
  EXPECT_EQ(head.lever_kind, rfdb::domain::LeverKind::authored);
  EXPECT_EQ(head.json_pointer, "/accepted_heads/0");
  const AttemptRecord& pending = r->attempts[5];
  EXPECT_EQ(pending.verdict, rfdb::domain::Verdict::incomplete);
  EXPECT_NEAR(*pending.e2e_delta_pct, 0.5, 1e-9);
  EXPECT_EQ(*pending.gate, "incomplete");
  const AttemptRecord& flagged = r->attempts[6];
  EXPECT_EQ(flagged.verdict, rfdb::domain::Verdict::flagged);
  EXPECT_EQ(flagged.lever, "flagged head (stage extract)");
  EXPECT_DOUBLE_EQ(*flagged.pct_gpu_time, 31.0);
  EXPECT_TRUE(warnings.empty());
}

TEST(ParseWorkflowReturn, FallsBackToTopLevelHistoryAndRejectsNegativeSpeedup)
{
  std::vector<Warning> warnings;
  const auto r =
      parse_workflow_return(doc_of(R"({"history": {"ledger": [{"direction": "k:ck", "verdict": "so-so"}]}})"),
                            "workflow_return.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->attempts.size(), 1U);
  EXPECT_EQ(r->attempts[0].json_pointer, "/history/ledger/0");
  EXPECT_EQ(r->attempts[0].verdict, rfdb::domain::Verdict::unknown);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].pointer, "/history/ledger/0/verdict");
  const auto neg = parse_workflow_return(doc_of(R"({"state": {"history": {"ledger": [
      {"direction": "k:ck", "verdict": "confirmed", "isolated_speedup": -1.1}]}}})"),
                                         "workflow_return.json", warnings);
  ASSERT_FALSE(neg);
  EXPECT_NE(neg.error().message.find("/state/history/ledger/0/isolated_speedup"), std::string::npos);
}

TEST(ParseWorkflowReturn, ReadsZeroesAsNotMeasured)
{
  std::vector<Warning> warnings;
  const auto r = parse_workflow_return(doc_of(R"({
    "baseline_throughput_tok_s": 0, "throughput_speedup": 0, "validation_status": "phase_partial",
    "state": {"baseline_throughput_tok_s": 1581.4},
    "accepted_kernels": [{"short_name": "a", "backend": "ck", "e2e_delta_pct": 0, "isolated": 0},
                         {"short_name": "b", "backend": "ck", "e2e_delta_pct": -0.2, "isolated": 1.1,
                          "corrective": true}]})"),
                                       "workflow_return.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_DOUBLE_EQ(*r->outcome.baseline_throughput_tok_s, 1581.4); // from state
  EXPECT_FALSE(r->outcome.throughput_speedup.has_value());
  EXPECT_EQ(r->outcome.validation_class, "unknown");
  ASSERT_EQ(r->attempts.size(), 2U);
  EXPECT_FALSE(r->attempts[0].e2e_delta_pct.has_value());
  EXPECT_FALSE(r->attempts[0].isolated_speedup.has_value());
  EXPECT_EQ(r->attempts[0].verdict, rfdb::domain::Verdict::confirmed);
  EXPECT_EQ(r->attempts[0].json_pointer, "/accepted_kernels/0");
  EXPECT_EQ(r->attempts[1].verdict, rfdb::domain::Verdict::partial);
  EXPECT_EQ(*r->attempts[1].verdict_raw, "confirmed_corrective");
  // phase_partial is no outcome: kept raw, classed unknown, and said so.
  EXPECT_EQ(*r->outcome.validation_status, "phase_partial");
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].pointer, "/validation_status");
  EXPECT_NE(warnings[0].message.find("'phase_partial'"), std::string::npos);
}
