// Run-level, Top-N and roofline artifact parsers (attempt sources are in
// artifacts_attempts_test.cpp). Fixtures are inline JSON modelled on
// docs/artifacts.md and the canonical Qwen3.5-35B-A3B-FP8 / gfx950 run of tests/fixtures/runs/README.md,
// run 1.
#include "ingest/evaldir/artifacts.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <limits>
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

constexpr std::string_view k_topn_path = "profile/round_0/profile_topN.json";
constexpr std::string_view k_roofline_path = "profile/round_0/profile_roofline.json";

// The canonical round-0 Top-N (variant A: base_latency_ms / phase present).
constexpr std::string_view k_topn_a = R"json({
  "source": "torch-trace",
  "total_gpu_time_ms": 612173.2,
  "num_kernel_launches": 1843210,
  "num_distinct_kernels": 212,
  "top_kernels": [
    {"rank": 1, "name": "fused_moe_kernel", "short_name": "fused_moe_kernel",
     "calls": 162640, "total_ms": 161920.7, "avg_us": 995.577, "pct_gpu_time": 26.45,
     "shapes": [], "dtypes": ["c10::Float8_e4m3fn"], "classification": "triton",
     "backend_guess": "triton", "editable": true, "phase": "decode",
     "base_latency_ms": {"decode": 0.049471}, "extra_key": "kept"},
    {"rank": 2, "name": "kernel_paged_attention_2d", "calls": "20330",
     "total_ms": 54238.5, "avg_us": 2667.9, "pct_gpu_time": "8.86",
     "classification": "library_attn", "backend_guess": "ck", "editable": "false"}
  ]
})json";

// One analytic roofline entry with the numbers of tests/fixtures/runs/README.md, run 1; `entry_extra`
// (", \"key\": value, …") replaces or adds members of the entry. Merged, not
// appended: a repeated measured key would be refused as ambiguous.
std::string roofline_doc(std::string_view stage_member, std::string_view entry_extra)
{
  const std::string text = std::string(R"json({"skill": "roofline", "skill_version": "1", "gfx": "gfx950",
    "peaks": {"hbm_bw_bytes_s": 8.0e12, "flops": {"fp8": 5.0e15}},)json") +
                           std::string(stage_member) + R"json(
    "entries": [{"name": "fused_moe_kernel", "short_name": "fused_moe_kernel",
      "pct_gpu_time": 26.45, "regime": "decode", "op_class": "moe", "modeled": true,
      "t_ms": 0.049471, "launches_per_step": 80, "hbm_util": 0.88, "compute_util": 0.01,
      "arithmetic_intensity": 4.6, "ridge_point": 625.0, "bound_type": "memory",
      "roofline_pct": 0.88, "roofline_pct_raw": 0.88, "target_eff": 0.90,
      "attainable_speedup": 1.023, "expected_e2e_gain_pct": 0.59,
      "headroom_class": "saturated", "confidence": "medium", "suspect": false,
      "byte_reduction_levers": ["skip unrouted experts"]}],
    "ranking_by_pct": ["fused_moe_kernel"],
    "ranking_by_expected_gain": ["fused_moe_kernel"],
    "degraded": [], "skill_errors": []})json";
  if (entry_extra.empty()) {
    return text;
  }
  json doc = json::parse(text);
  doc["entries"][0].update(
      json::parse("{" + std::string(entry_extra.substr(entry_extra.find(',') + 1)) + "}"));
  return doc.dump();
}

RooflineDoc parse_roofline_ok(const std::string& text, std::vector<Warning>& warnings)
{
  auto r = parse_profile_roofline(doc_of(text), k_roofline_path, warnings);
  EXPECT_TRUE(r) << (r ? "" : r.error().describe());
  return r ? *r : RooflineDoc{};
}

} // namespace

TEST(ParseEnvReport, ReadsIdentityAndWorkloadFromCommentedJson)
{
  const json doc = doc_of(R"json({
    // preflight, LLM-written
    "backend": "vllm", "backend_version": "0.11.0",
    "model": "Qwen/Qwen3.5-35B-A3B-FP8", "model_arch_class": "hybrid_mamba_moe",
    "model_dtype": "fp8", "gfx": "gfx950", "device_name": "AMD Instinct MI355X",
    "gpu_ids": ["0", "1"], "serving_config": {"tp": "1"},
    "available_backends": ["aiter", "hipblaslt", "triton"],
    "workload": {"isl": 1024, "osl": "1024", "conc": 64}, "verdict": "ok"})json");
  std::vector<Warning> warnings;
  const auto r = parse_env_report(doc, "env_report.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(*r->model, "Qwen/Qwen3.5-35B-A3B-FP8");
  EXPECT_EQ(*r->model_arch_class, "hybrid_mamba_moe");
  EXPECT_EQ(*r->model_dtype, "fp8");
  EXPECT_EQ(*r->gfx, "gfx950");
  EXPECT_EQ(*r->device_name, "AMD Instinct MI355X");
  EXPECT_EQ(*r->backend, "vllm");
  EXPECT_EQ(*r->backend_version, "0.11.0");
  EXPECT_EQ(*r->tp, 1); // serving_config.tp, not the two gpu_ids
  EXPECT_EQ(*r->isl, 1024);
  EXPECT_EQ(*r->osl, 1024);
  EXPECT_EQ(*r->conc, 64);
  EXPECT_EQ(*r->available_backends, R"(["aiter","hipblaslt","triton"])");
  EXPECT_TRUE(warnings.empty());
}

TEST(ParseEnvReport, RejectsWrongTypesAndNonObjects)
{
  std::vector<Warning> warnings;
  const auto bad = parse_env_report(doc_of(R"({"workload": {"conc": "lots"}})"), "env_report.json", warnings);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(), "env_report.json: /workload/conc: expected an integer, got \"lots\"");
  EXPECT_FALSE(parse_env_report(doc_of("[1]"), "env_report.json", warnings));
}

TEST(ParseBenchSummary, FallsBackToLegacyOutputThroughput)
{
  std::vector<Warning> warnings;
  const auto r = parse_bench_summary(
      doc_of(R"({"output_throughput_tok_s_median": 1581.4, "output_throughput_tok_s_spread_pct": 1.2,
               "ttft_ms_median": 212.5, "tpot_ms_median": 38.9, "runs": 3,
               "metric_basis": "aggregate_output_tok_s", "measurement_mode": "legacy_same_server"})"),
      "baseline/bench_summary.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_DOUBLE_EQ(*r->throughput_tok_s_median, 1581.4);
  EXPECT_DOUBLE_EQ(*r->throughput_spread_pct, 1.2);
  EXPECT_DOUBLE_EQ(*r->ttft_ms_median, 212.5);
  EXPECT_DOUBLE_EQ(*r->tpot_ms_median, 38.9);
  EXPECT_EQ(*r->runs_count, 3);
  EXPECT_EQ(*r->metric_basis, "aggregate_output_tok_s");
  EXPECT_EQ(*r->measurement_mode, "legacy_same_server");
  const auto neg = parse_bench_summary(doc_of(R"({"throughput_tok_s_median": -5})"),
                                       "baseline/bench_summary.json", warnings);
  ASSERT_FALSE(neg);
  EXPECT_NE(neg.error().message.find("/throughput_tok_s_median"), std::string::npos);
}

TEST(DecideSpread, KeepsTheWiderAndWarnsWhenStatedAndSamplesDisagree)
{
  const std::vector<double> samples{1000.0, 1005.0, 1010.0}; // (1010 − 1000) / 1005 × 100 = 0.995 %
  std::vector<Warning> w;
  // Stated 0.93 %: narrower than the samples by more than the producer's rounding.
  auto kept = decide_spread(0.93, "/throughput_tok_s_spread_pct", samples, "baseline/bench_summary.json", w);
  ASSERT_TRUE(kept);
  EXPECT_NEAR(*kept, 0.995025, 1e-6);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].file, "baseline/bench_summary.json");
  EXPECT_EQ(w[0].pointer, "/throughput_tok_s_spread_pct");
  EXPECT_EQ(w[0].message, "stated spread 0.93 % disagrees with the spread of the 3 samples, 1.00 % "
                          "((max − min) / median × 100); the wider, computed 1.00 %, is kept");
  // Stated 2 %: wider, kept, with a warning that says so.
  w.clear();
  kept = decide_spread(2.0, "/output_throughput_tok_s_spread_pct", samples, "b.json", w);
  EXPECT_DOUBLE_EQ(*kept, 2.0);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].pointer, "/output_throughput_tok_s_spread_pct");
  EXPECT_NE(w[0].message.find("the wider, stated 2.00 %, is kept"), std::string::npos) << w[0].message;
  // Stated 0.99 %: the producer's 2-decimal rounding of 0.995 %, the same spread: it stands, in silence.
  w.clear();
  kept = decide_spread(0.99, "/throughput_tok_s_spread_pct", samples, "b.json", w);
  EXPECT_DOUBLE_EQ(*kept, 0.99);
  EXPECT_TRUE(w.empty());
}

TEST(DecideSpread, RefusesAnImplausibleStatedSpread)
{
  const std::vector<double> samples{1000.0, 1005.0, 1010.0};
  std::vector<Warning> w;
  auto kept = decide_spread(-0.4, "/throughput_tok_s_spread_pct", samples, "b.json", w);
  EXPECT_NEAR(*kept, 0.995025, 1e-6);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].pointer, "/throughput_tok_s_spread_pct");
  EXPECT_EQ(
      w[0].message,
      "implausible spread -0.4 % (expected 0–100 %); refused, the spread of the 3 samples, 1.00 %, is kept");
  w.clear();
  kept = decide_spread(140.0, "/throughput_tok_s_spread_pct", {}, "b.json", w);
  EXPECT_FALSE(kept);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_NE(w[0].message.find("refused, no spread is stored"), std::string::npos) << w[0].message;
  w.clear();
  kept =
      decide_spread(std::numeric_limits<double>::infinity(), "/throughput_tok_s_spread_pct", {}, "b.json", w);
  EXPECT_FALSE(kept);
  EXPECT_EQ(w.size(), 1U);
  // An outlier round (1e308 tok/s) spreads the samples over far more than 100 %: their spread is
  // not used, the stated one stands, and a warning says why.
  w.clear();
  const std::vector<double> outlier{2871.6, 1e308, 2880.0};
  kept = decide_spread(0.66, "/throughput_tok_s_spread_pct", outlier, "b.json", w);
  EXPECT_DOUBLE_EQ(*kept, 0.66);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].message, "the 3 samples spread over more than 100 % of their median (an outlier round?); "
                          "their spread is not used, the stated 0.66 % is kept");
  w.clear();
  const std::vector<double> dead{0.0, 2871.6, 5743.0};
  EXPECT_FALSE(decide_spread(std::nullopt, "", dead, "b.json", w));
  EXPECT_EQ(w.size(), 1U);
  // One sample: no spread to compute, the stated one stands.
  w.clear();
  const std::vector<double> one{1000.0};
  kept = decide_spread(0.7, "/throughput_tok_s_spread_pct", one, "b.json", w);
  EXPECT_DOUBLE_EQ(*kept, 0.7);
  EXPECT_TRUE(w.empty());
  // No stated spread: the samples'.
  kept = decide_spread(std::nullopt, "", samples, "b.json", w);
  EXPECT_NEAR(*kept, 0.995025, 1e-6);
}

TEST(ParseBenchSummary, SpreadIsDecidedFromAllThroughput)
{
  std::vector<Warning> w;
  const auto r =
      parse_bench_summary(doc_of(R"({"throughput_tok_s_median": 3712.4, "throughput_tok_s_spread_pct": 0.5,
                                                "all_throughput": [3727.261, 3692.364, 3712.4]})"),
                          "baseline/bench_summary.json", w);
  ASSERT_TRUE(r) << r.error().describe();
  // (3727.261 − 3692.364) / 3712.4 × 100 = 0.94 %, wider than the stated 0.5 %.
  EXPECT_NEAR(*r->throughput_spread_pct, 0.940012, 1e-6);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].pointer, "/throughput_tok_s_spread_pct");
}

TEST(ParseBenchRuns, ReadsEachRoundAndSkipsMalformedLines)
{
  std::vector<Warning> w;
  const std::string text =
      "{\"round\": 1, \"output_throughput\": 4171.441, \"total_token_throughput\": 8342.882}\n"
      "{\"round\": 2, \"output_throughput\": 4186.5\n"
      "\n"
      "{\"round\": 3, \"output_token_throughput\": 4199.9, \"total_throughput\": 8399.8}\r\n"
      "[1, 2]\n"
      "{\"round\": 5, \"median_ttft_ms\": 212.4}\n"
      "{\"round\": 6, \"output_throughput_tok_s\": \"fast\", \"total_token_throughput_tok_s\": 9000}";
  const auto r = parse_bench_runs(text, "baseline/bench_runs.jsonl", w);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 3U);
  EXPECT_EQ((*r)[0].line, 1U);
  EXPECT_DOUBLE_EQ(*(*r)[0].output_tok_s, 4171.441);
  EXPECT_DOUBLE_EQ(*(*r)[0].total_tok_s, 8342.882);
  EXPECT_EQ((*r)[1].line, 4U);
  EXPECT_DOUBLE_EQ(*(*r)[1].output_tok_s, 4199.9);
  EXPECT_DOUBLE_EQ(*(*r)[1].total_tok_s, 8399.8);
  EXPECT_EQ((*r)[2].line, 7U);
  EXPECT_FALSE((*r)[2].output_tok_s);
  EXPECT_DOUBLE_EQ(*(*r)[2].total_tok_s, 9000.0);
  ASSERT_EQ(w.size(), 4U);
  EXPECT_EQ(w[0].file, "baseline/bench_runs.jsonl:2");
  EXPECT_EQ(w[0].message, "not a JSON object (malformed line); skipped");
  EXPECT_EQ(w[1].file, "baseline/bench_runs.jsonl:5");
  EXPECT_EQ(w[2].file, "baseline/bench_runs.jsonl:6");
  EXPECT_EQ(w[3].file, "baseline/bench_runs.jsonl:7");
  EXPECT_EQ(w[3].pointer, "/output_throughput_tok_s");

  // The summary's metric_basis picks the key: output by default, total for aggregate_total_token_tok_s.
  EXPECT_EQ(bench_round_samples(*r, std::nullopt), (std::vector<double>{4171.441, 4199.9}));
  EXPECT_EQ(bench_round_samples(*r, std::string("aggregate_output_tok_s")),
            (std::vector<double>{4171.441, 4199.9}));
  EXPECT_EQ(bench_round_samples(*r, std::string("aggregate_total_token_tok_s")),
            (std::vector<double>{8342.882, 8399.8, 9000.0}));
}

TEST(ParseProfileTopN, ParsesVariantARows)
{
  std::vector<Warning> warnings;
  const auto r = parse_profile_topn(doc_of(k_topn_a), k_topn_path, warnings);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->variant, "A");
  EXPECT_EQ(*r->parser_source, "torch-trace");
  EXPECT_DOUBLE_EQ(*r->total_gpu_time_ms, 612173.2);
  EXPECT_EQ(*r->num_kernel_launches, 1843210);
  EXPECT_EQ(*r->num_distinct_kernels, 212);
  ASSERT_EQ(r->rows.size(), 2U);
  const KernelSample& moe = r->rows[0];
  EXPECT_EQ(*moe.rank, 1);
  EXPECT_EQ(moe.name, "fused_moe_kernel");
  EXPECT_EQ(moe.short_name, "fused_moe_kernel");
  EXPECT_DOUBLE_EQ(moe.pct_gpu_time, 26.45);
  EXPECT_EQ(*moe.calls, 162640);
  EXPECT_DOUBLE_EQ(*moe.total_ms, 161920.7);
  EXPECT_EQ(*moe.classification, "triton");
  EXPECT_TRUE(*moe.editable);
  EXPECT_EQ(*moe.phase, "decode");
  EXPECT_EQ(*moe.base_latency_ms, R"({"decode":0.049471})");
  EXPECT_EQ(*moe.shapes, "[]");
  EXPECT_EQ(*moe.dtypes, R"(["c10::Float8_e4m3fn"])");
  EXPECT_EQ(moe.json_pointer, "/top_kernels/0");
  const KernelSample& attn = r->rows[1];
  EXPECT_EQ(attn.short_name, "kernel_paged_attention_2d"); // derived from name
  EXPECT_DOUBLE_EQ(attn.pct_gpu_time, 8.86);               // "8.86" string
  EXPECT_EQ(*attn.calls, 20330);
  EXPECT_FALSE(*attn.editable);
  EXPECT_FALSE(attn.phase.has_value());
  EXPECT_TRUE(warnings.empty());
}

TEST(ParseProfileTopN, DetectsParserVariants)
{
  std::vector<Warning> warnings;
  const auto b =
      parse_profile_topn(doc_of(R"json({"source": "torch-trace", "tracelens": true, "top_kernels": [
      {"name": "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
       "pct_gpu_time": 1.5, "per_call": {"n": 10, "median_us": 3.2}}]})json"),
                         k_topn_path, warnings);
  ASSERT_TRUE(b) << b.error().describe();
  EXPECT_EQ(b->variant, "B");
  EXPECT_EQ(b->rows[0].short_name, "vectorized_elementwise_kernel");
  const auto t = parse_profile_topn(doc_of(R"({"source": "tracelens+trace", "top_kernels": []})"),
                                    k_topn_path, warnings);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->variant, "tracelens");
  const auto merged =
      parse_profile_topn(doc_of(R"({"source": "merged", "top_kernels": []})"), k_topn_path, warnings);
  EXPECT_EQ(merged->variant, "A");
}

TEST(ParseProfileTopN, AnEmptyShortNameIsTheDemangledFunctionsOwnNameAndTheRawNameIsKept)
{
  std::vector<Warning> warnings;
  const std::string raw =
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
      "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
  const auto r = parse_profile_topn(
      doc_of(fmt::format(R"({{"top_kernels": [{{"name": "{}", "short_name": "", "pct_gpu_time": 2.5}}]}})",
                         raw)),
      k_topn_path, warnings);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->rows.size(), 1U);
  EXPECT_EQ(r->rows[0].short_name, "cunn_SoftMaxForward");
  EXPECT_EQ(r->rows[0].name, raw);
}

TEST(ParseProfileTopN, RejectsPctOutsideZeroToHundred)
{
  std::vector<Warning> warnings;
  const auto r =
      parse_profile_topn(doc_of(R"({"top_kernels": [{"name": "fused_moe_kernel", "pct_gpu_time": 150}]})"),
                         k_topn_path, warnings);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(r.error().context, std::vector<std::string>{std::string(k_topn_path)});
  EXPECT_NE(r.error().message.find("/top_kernels/0/pct_gpu_time"), std::string::npos);
  EXPECT_NE(r.error().message.find("150"), std::string::npos);
  const auto neg = parse_profile_topn(
      doc_of(R"({"top_kernels": [{"name": "a", "pct_gpu_time": 1}, {"name": "b", "pct_gpu_time": -0.5}]})"),
      k_topn_path, warnings);
  ASSERT_FALSE(neg);
  EXPECT_NE(neg.error().message.find("/top_kernels/1/pct_gpu_time"), std::string::npos);
}

TEST(ParseProfileTopN, RejectsMissingPctNameAndWrongTypes)
{
  std::vector<Warning> warnings;
  const auto no_pct =
      parse_profile_topn(doc_of(R"({"top_kernels": [{"name": "x"}]})"), k_topn_path, warnings);
  ASSERT_FALSE(no_pct);
  EXPECT_NE(no_pct.error().message.find("/top_kernels/0/pct_gpu_time: pct_gpu_time is missing"),
            std::string::npos);
  const auto no_name =
      parse_profile_topn(doc_of(R"({"top_kernels": [{"pct_gpu_time": 3}]})"), k_topn_path, warnings);
  ASSERT_FALSE(no_name);
  EXPECT_EQ(no_name.error().message, "/top_kernels/0: row has neither name nor short_name");
  const auto bad_pct = parse_profile_topn(
      doc_of(R"({"top_kernels": [{"name": "x", "pct_gpu_time": "abc"}]})"), k_topn_path, warnings);
  ASSERT_FALSE(bad_pct);
  EXPECT_EQ(bad_pct.error().message, "/top_kernels/0/pct_gpu_time: expected a number, got \"abc\"");
  EXPECT_FALSE(parse_profile_topn(doc_of(R"({"top_kernels": {"a": 1}})"), k_topn_path, warnings));
}

TEST(ParseProfileRoofline, ParsesTheCanonicalFusedMoeVerdict)
{
  std::vector<Warning> warnings;
  const RooflineDoc d = parse_roofline_ok(roofline_doc(R"("stage": "B",)", ""), warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(d.source_kind, "analytic");
  EXPECT_EQ(d.stage, "B");
  EXPECT_EQ(*d.gfx, "gfx950");
  const json peaks = json::parse(*d.peaks);
  EXPECT_DOUBLE_EQ(peaks.at("hbm_bw_bytes_s").get<double>(), 8.0e12);
  EXPECT_DOUBLE_EQ(peaks.at("flops").at("fp8").get<double>(), 5.0e15);
  EXPECT_EQ(*d.ranking_by_pct, R"(["fused_moe_kernel"])");
  EXPECT_EQ(*d.degraded, "[]");
  ASSERT_EQ(d.verdicts.size(), 1U);
  const Verdict& v = d.verdicts[0];
  EXPECT_EQ(v.short_name, "fused_moe_kernel");
  EXPECT_DOUBLE_EQ(*v.pct_gpu_time, 26.45);
  EXPECT_DOUBLE_EQ(*v.roofline_pct, 0.88);
  EXPECT_DOUBLE_EQ(*v.roofline_pct_raw, 0.88);
  EXPECT_DOUBLE_EQ(*v.target_eff, 0.90);
  EXPECT_DOUBLE_EQ(*v.attainable_speedup, 1.023);
  EXPECT_DOUBLE_EQ(*v.expected_e2e_gain_pct, 0.59);
  EXPECT_EQ(v.headroom_class, "saturated");
  EXPECT_EQ(v.bound_type, "memory");
  EXPECT_EQ(v.confidence, "medium");
  EXPECT_EQ(v.op_class, "moe");
  EXPECT_EQ(*v.op_class_raw, "moe");
  EXPECT_EQ(*v.regime, "decode");
  EXPECT_DOUBLE_EQ(*v.t_ms, 0.049471);
  EXPECT_DOUBLE_EQ(*v.launches_per_step, 80.0);
  EXPECT_DOUBLE_EQ(*v.ridge_point, 625.0);
  EXPECT_EQ(v.stage, "B");
  EXPECT_EQ(v.source_kind, "analytic");
  EXPECT_FALSE(v.suspect);
  EXPECT_FALSE(v.dispatch_bound);
  EXPECT_TRUE(*v.modeled);
  EXPECT_EQ(*v.byte_reduction_levers, R"(["skip unrouted experts"])");
  EXPECT_EQ(v.json_pointer, "/entries/0");
}

TEST(ParseProfileRoofline, InfeasibleRawRatioIsSuspectWithUnknownHeadroom)
{
  std::vector<Warning> warnings;
  const RooflineDoc d =
      parse_roofline_ok(roofline_doc(R"("stage": "A",)", R"(, "roofline_pct_raw": 1.35)"), warnings);
  const Verdict& v = d.verdicts.at(0);
  EXPECT_DOUBLE_EQ(*v.roofline_pct_raw, 1.35);
  EXPECT_TRUE(v.suspect);
  EXPECT_EQ(v.headroom_class, "unknown");
  EXPECT_EQ(*v.headroom_class_raw, "saturated");
  const RooflineDoc tiny =
      parse_roofline_ok(roofline_doc(R"("stage": "A",)", R"(, "roofline_pct_raw": 0.0005)"), warnings);
  EXPECT_TRUE(tiny.verdicts.at(0).suspect);
}

TEST(ParseProfileRoofline, OutOfSetBoundTypeBecomesUnknownWithOneWarning)
{
  std::vector<Warning> warnings;
  const RooflineDoc d =
      parse_roofline_ok(roofline_doc(R"("stage": "B",)", R"(, "bound_type": "dispatch")"), warnings);
  EXPECT_EQ(d.verdicts.at(0).bound_type, "unknown");
  EXPECT_EQ(*d.verdicts.at(0).bound_type_raw, "dispatch");
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].file, k_roofline_path);
  EXPECT_EQ(warnings[0].pointer, "/entries/0/bound_type");
  EXPECT_NE(warnings[0].message.find("'dispatch'"), std::string::npos);
}

TEST(ParseProfileRoofline, OutOfSetHeadroomAndOpClassWarnEach)
{
  std::vector<Warning> warnings;
  const RooflineDoc d = parse_roofline_ok(
      roofline_doc(R"("stage": "B",)", R"(, "headroom_class": "great", "op_class": "conv")"), warnings);
  const Verdict& v = d.verdicts.at(0);
  EXPECT_EQ(v.headroom_class, "unknown");
  EXPECT_EQ(*v.headroom_class_raw, "great");
  EXPECT_EQ(v.op_class, "unknown");
  EXPECT_EQ(*v.op_class_raw, "conv");
  ASSERT_EQ(warnings.size(), 2U);
  EXPECT_EQ(warnings[0].pointer, "/entries/0/op_class");
  EXPECT_EQ(warnings[1].pointer, "/entries/0/headroom_class");
}

TEST(ParseProfileRoofline, RejectsNonNumericRooflinePctRaw)
{
  std::vector<Warning> warnings;
  const auto r =
      parse_profile_roofline(doc_of(roofline_doc(R"("stage": "B",)", R"(, "roofline_pct_raw": "about one")")),
                             k_roofline_path, warnings);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().describe(), std::string(k_roofline_path) +
                                      ": /entries/0/roofline_pct_raw: expected a number, got "
                                      "\"about one\"");
  const auto zero = parse_profile_roofline(
      doc_of(roofline_doc(R"("stage": "B",)", R"(, "attainable_speedup": 0)")), k_roofline_path, warnings);
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("/entries/0/attainable_speedup"), std::string::npos);
}

TEST(ParseProfileRoofline, MissingStageIsAWithWarningAndConfidenceFollowsStage)
{
  std::vector<Warning> warnings;
  const RooflineDoc a = parse_roofline_ok(roofline_doc("", R"(, "confidence": null)"), warnings);
  EXPECT_EQ(a.stage, "A");
  EXPECT_EQ(a.verdicts.at(0).confidence, "low");
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].pointer, "/stage");
  warnings.clear();
  const RooflineDoc c =
      parse_roofline_ok(roofline_doc(R"("stage": "C",)", R"(, "confidence": null)"), warnings);
  EXPECT_EQ(c.verdicts.at(0).confidence, "high");
  const RooflineDoc aliased = parse_roofline_ok(
      roofline_doc(R"("stage": "A",)", R"(, "confidence": null, "roofline_confidence": "high",
                 "roofline_source": "measured")"),
      warnings);
  EXPECT_EQ(aliased.verdicts.at(0).confidence, "high");
  EXPECT_EQ(aliased.verdicts.at(0).source_kind, "measured");
  EXPECT_TRUE(warnings.empty());
}

TEST(ParseProfileRoofline, DetectsDispatchBoundLaunches)
{
  std::vector<Warning> warnings;
  const RooflineDoc by_note = parse_roofline_ok(
      roofline_doc(R"("stage": "B",)", R"(, "note": "Dispatch-bound: t <= 2x5us")"), warnings);
  EXPECT_TRUE(by_note.verdicts.at(0).dispatch_bound);
  EXPECT_EQ(by_note.verdicts.at(0).headroom_class, "unknown");
  const RooflineDoc by_time = parse_roofline_ok(
      roofline_doc(R"("stage": "B",)", R"(, "t_ms": 0.006, "bound_type": "latency")"), warnings);
  EXPECT_TRUE(by_time.verdicts.at(0).dispatch_bound);
  const RooflineDoc slow_latency = parse_roofline_ok(
      roofline_doc(R"("stage": "B",)", R"(, "t_ms": 0.141, "bound_type": "latency")"), warnings);
  EXPECT_FALSE(slow_latency.verdicts.at(0).dispatch_bound);
}

TEST(ParseProfileRoofline, MissingOpClassAndHeadroomAreDerived)
{
  std::vector<Warning> warnings;
  const auto r = parse_profile_roofline(doc_of(R"({"stage": "B", "entries": [
      {"name": "kernel_paged_attention_2d", "pct_gpu_time": 8.86, "roofline_pct": 0.18,
       "roofline_pct_raw": 0.18, "target_eff": 0.5, "bound_type": "latency", "t_ms": 0.141}]})"),
                                        k_roofline_path, warnings);
  ASSERT_TRUE(r) << r.error().describe();
  const Verdict& v = r->verdicts.at(0);
  EXPECT_EQ(v.short_name, "kernel_paged_attention_2d");
  EXPECT_EQ(v.op_class, "attn");
  EXPECT_FALSE(v.op_class_raw.has_value());
  EXPECT_EQ(v.headroom_class, "underperforming");
  EXPECT_FALSE(v.headroom_class_raw.has_value());
  EXPECT_TRUE(warnings.empty());
}

TEST(ParseDirectorValidation, ReadsOutcomeAndOverridesWorkflowReturn)
{
  std::vector<Warning> warnings;
  const auto r = parse_director_validation(
      doc_of(R"({"model_name": "Qwen3.5-35B-A3B-FP8", "baseline_throughput_tok_s": 1581.4,
               "director_verified_throughput_tok_s": "2058.8", "validation_status": "accepted",
               "output_parity": "pass", "applied_to_original": "true"})"),
      "director_e2e_validation.json", warnings);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_DOUBLE_EQ(*r->baseline_throughput_tok_s, 1581.4);
  EXPECT_DOUBLE_EQ(*r->final_throughput_tok_s, 2058.8);
  EXPECT_NEAR(*r->throughput_speedup, 2058.8 / 1581.4, 1e-12); // derived
  EXPECT_EQ(*r->validation_status, "accepted");
  EXPECT_EQ(r->validation_class, "win");
  EXPECT_EQ(*r->output_parity, "pass");
  RunOutcome from_return;
  from_return.model = "Qwen3.5-35B-A3B-FP8";
  from_return.final_throughput_tok_s = 2001.0;
  from_return.validation_status = "unknown";
  from_return.output_parity = "n/a";
  const RunOutcome merged = overlay_outcome(from_return, *r);
  EXPECT_DOUBLE_EQ(*merged.final_throughput_tok_s, 2058.8);
  EXPECT_EQ(merged.validation_class, "win");
  EXPECT_EQ(*merged.output_parity, "pass");
  const auto bad = parse_director_validation(doc_of(R"({"throughput_speedup": -1.3})"),
                                             "director_e2e_validation.json", warnings);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("/throughput_speedup"), std::string::npos);
}

TEST(RunDateFromDirName, ParsesTheTimestampSegment)
{
  EXPECT_EQ(*run_date_from_dir_name("e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260607_193315_4242_k3x9"), "2026-06-07");
  EXPECT_EQ(*run_date_from_dir_name("e2e_llama_20240229_000000"), "2024-02-29");
  EXPECT_FALSE(run_date_from_dir_name("e2e_llama_20230229_000000_1").has_value()); // no Feb 29
  EXPECT_FALSE(run_date_from_dir_name("e2e_model_20261332_120000_1").has_value());
  EXPECT_FALSE(run_date_from_dir_name("e2e_model_20260101_250000_1").has_value());
  EXPECT_FALSE(run_date_from_dir_name("my_custom_eval_dir").has_value());
  EXPECT_FALSE(run_date_from_dir_name("e2e_20260101_1200001_x").has_value());
}

TEST(DeriveShortName, FollowsTheTopNRule)
{
  EXPECT_EQ(derive_short_name("fused_moe_kernel"), "fused_moe_kernel");
  EXPECT_EQ(derive_short_name("void vllm::rms_norm_kernel<c10::BFloat16, 8>(float*)"), "rms_norm_kernel");
  EXPECT_EQ(derive_short_name("ck::kernel_gemm_xdl<...>"), "kernel_gemm_xdl");
  EXPECT_EQ(derive_short_name(std::string(80, 'k')), std::string(60, 'k'));
}

TEST(DeriveShortName, TakesTheFunctionsOwnNameFromADemangledName)
{
  // The issue's case: a namespace was taken for the name.
  EXPECT_EQ(derive_short_name("void at::native::(anonymous namespace)::cunn_SoftMaxForward<…>(…)"),
            "cunn_SoftMaxForward");
  EXPECT_EQ(
      derive_short_name("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
                        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, "
                        "int)"),
      "cunn_SoftMaxForward");
  EXPECT_EQ(
      derive_short_name("void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, float, 10, false>("
                        "c10::BFloat16*, c10::BFloat16 const*, int, int, int)"),
      "softmax_warp_forward");
  // Nested template argument lists, "> >" and a cast in the arguments.
  EXPECT_EQ(derive_short_name("void at::native::vectorized_elementwise_kernel<4, "
                              "at::native::FillFunctor<c10::BFloat16>, std::array<char*, 1ul> >(int, "
                              "at::native::FillFunctor<c10::BFloat16>, std::array<char*, 1ul>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(
      derive_short_name("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<"
                        "ck::tensor_layout::gemm::RowMajor, ck::tensor_layout::gemm::ColumnMajor>, true, "
                        "(ck::InMemoryDataOperationEnum)0, 2, (ck::TailNumber)1>(ck::GridwiseGemm_xdl_"
                        "cshuffle_v3<ck::tensor_layout::gemm::RowMajor>::Argument)"),
      "kernel_gemm_xdl_cshuffle_v3");
  // Lambdas inside the template arguments and the parameters.
  EXPECT_EQ(derive_short_name("void at::native::elementwise_kernel_manual_unroll<128, 8, "
                              "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda("
                              "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::"
                              "operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "
                              "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::"
                              "operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, "
                              "at::native::gpu_kernel_impl_nocast<>::{lambda(int)#1})"),
            "elementwise_kernel_manual_unroll");
  // operator() of a lambda: the function that holds it; of a functor: its class.
  EXPECT_EQ(
      derive_short_name("at::native::(anonymous namespace)::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
                        "::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const"),
      "direct_copy_kernel_cuda");
  EXPECT_EQ(derive_short_name("void vllm::RmsNormFunctor<float>::operator()(float*, int) const"),
            "RmsNormFunctor");
  // A return type other than void, and a C name with a parameter list.
  EXPECT_EQ(derive_short_name("std::enable_if<true, void>::type aiter::fmoe_kernel<float>(float*)"),
            "fmoe_kernel");
  EXPECT_EQ(derive_short_name("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"),
            "ncclDevKernel_Generic");
  EXPECT_EQ(derive_short_name("void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>(int, int, int, "
                              "__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, int, int)"),
            "wvSplitK_hf_sml_");
  // Plain names: C, Triton, HIP code objects, Tensile kernels (cut at 60).
  EXPECT_EQ(derive_short_name("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"),
            "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0");
  EXPECT_EQ(derive_short_name("__amd_rocclr_fillBufferAligned.kd"), "__amd_rocclr_fillBufferAligned");
  const std::string tensile =
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_LDSB1_AFC1";
  EXPECT_EQ(derive_short_name(tensile), tensile.substr(0, 60));
  EXPECT_EQ(derive_short_name("  _fwd_kernel_stage1 "), "_fwd_kernel_stage1");
  // Prose of several words: its first word; nothing to name: the text itself.
  EXPECT_EQ(derive_short_name("Memcpy HtoD (Device -> Host)"), "Memcpy");
  EXPECT_EQ(derive_short_name("<unknown>"), "<unknown>");
}
