// Unit tests of the rendered playbook (report/playbook.hpp) on sample input.
#include "support/helpers.hpp"
#include "unit/report/sample_input.hpp"

#include "calibrate/priors_format.hpp"
#include "report/analysis.hpp"
#include "report/playbook.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace rfdb::report {
namespace {

TEST(Playbook, EmptyInputIsAShortValidPlaybook)
{
  ReportInput in;
  in.as_of = "2026-03-31";
  RFDB_EXPECT_GOLDEN("report/empty_input.md", render_playbook(in));
}

TEST(Playbook, HeadingsArePresentAndInOrder)
{
  const std::string md = render_playbook(testing::canonical_input());
  std::size_t last = 0;
  for (const auto heading : k_playbook_headings) {
    const std::size_t at = md.find("\n" + std::string(heading) + "\n");
    const std::size_t pos = heading == k_playbook_headings[0] && md.rfind(heading, 0) == 0 ? 0 : at;
    ASSERT_NE(pos, std::string::npos) << heading;
    EXPECT_GE(pos, last) << heading;
    last = pos;
  }
  // Exactly one H1, and it is the first line.
  EXPECT_EQ(md.rfind("# Backend playbook\n", 0), 0u);
  EXPECT_EQ(md.find("\n# "), std::string::npos);
}

TEST(Playbook, ProvenanceNamesRunsModelsGpusDatesAndAsOf)
{
  auto in = testing::canonical_input();
  in.imported = {testing::make_card("x.md", "gemm", "gfx942", "decode", "lever x", 2, "2026-01-01")};
  const std::string md = render_playbook(in);
  EXPECT_NE(
      md.find(
          "\nEvidence: 2 runs of 1 model (Model-A-35B) on 2 GPUs (gfx942, gfx950), 2026-01-10 to 2026-03-02; "
          "1 imported finding; as of 2026-03-31.\n"),
      std::string::npos);
  in.gfx_filter = "gfx950";
  in.since = "2026-02-01";
  EXPECT_NE(render_playbook(in).find(
                "\nEvidence: 1 run of 1 model (Model-A-35B) on 1 GPU (gfx950), 2026-03-02; 0 imported "
                "findings; as of 2026-03-31. Scope: gfx950 only, evidence since "
                "2026-02-01.\n"),
            std::string::npos);
}

TEST(Playbook, QuadrantChartForTwoHeads)
{
  const Analysis a = analyze(testing::canonical_input());
  // x: 0.88 / 0.90 = 0.978 sits above the saturated edge 0.9 (→ 0.5):
  // 0.5 + 0.5 × 0.078 / 0.1 = 0.889; 0.18 / 0.50 = 0.36 → 0.5 × 0.36 / 0.9 = 0.2.
  // y: 26.45 % → 0.5 + 0.5 × 21.45 / 45 = 0.738; 8.86 % → 0.543 (heads, top half).
  EXPECT_EQ(render_quadrant_chart(a), "```mermaid\n"
                                      "quadrantChart\n"
                                      "  title Head kernels of run run_gfx950_b\n"
                                      "  x-axis headroom left --> saturated\n"
                                      "  y-axis minor kernel --> head kernel\n"
                                      "  quadrant-1 reduce bytes\n"
                                      "  quadrant-2 tune\n"
                                      "  quadrant-3 low priority\n"
                                      "  quadrant-4 low priority\n"
                                      "  fused_moe_kernel: [0.889, 0.738]\n"
                                      "  kernel_paged_attention_2d: [0.200, 0.543]\n"
                                      "```\n");
  EXPECT_EQ(head_route(a.newest_heads[0]), "reduce bytes");
  EXPECT_EQ(head_route(a.newest_heads[1]), "tune");
}

TEST(Playbook, QuadrantCoordinatesAreClampedAndMermaidSafe)
{
  auto in = testing::canonical_input();
  in.heads[0].roofline_pct = 0.95; // 0.95 / 0.90 > 1
  in.heads[1].short_name = "title(x)";
  const std::string chart = render_quadrant_chart(analyze(in));
  EXPECT_NE(chart.find("  fused_moe_kernel: [1, 0.738]\n"), std::string::npos);
  EXPECT_NE(chart.find("  kernel title_x_: [0.200, 0.543]\n"), std::string::npos);
  in.heads[0].pct_gpu_time = 2.5;  // below the head threshold: bottom half
  in.heads[1].pct_gpu_time = 80.0; // 50 % or more: the top edge
  const std::string moved = render_quadrant_chart(analyze(in));
  EXPECT_NE(moved.find("  fused_moe_kernel: [1, 0.250]\n"), std::string::npos) << moved;
  EXPECT_NE(moved.find("  kernel title_x_: [0.200, 1]\n"), std::string::npos) << moved;
  in.heads.clear();
  EXPECT_EQ(render_quadrant_chart(analyze(in)), "");
}

TEST(Playbook, PriorsSectionShowsWhatRfdbPriorsPrints)
{
  auto in = testing::canonical_input();
  std::vector<calibrate::Observation> obs;
  for (const auto& a : in.attempts) {
    calibrate::Observation o;
    o.run_id = a.run_id;
    o.run_date = a.run_date;
    o.short_name = a.short_name;
    o.op_class = a.op_class;
    o.gfx = a.gfx;
    o.regime = a.regime;
    o.isolated_speedup = a.isolated_speedup;
    o.e2e_delta_pct = a.e2e_delta_pct;
    o.prediction.roofline_pct = a.prediction.roofline_pct;
    o.prediction.target_eff = a.prediction.target_eff;
    o.prediction.attainable_speedup = a.prediction.attainable_speedup;
    o.prediction.headroom_class = a.prediction.headroom_class;
    o.prediction.confidence = a.prediction.confidence;
    o.prediction.pct_gpu_time = a.prediction.pct_gpu_time;
    obs.push_back(o);
  }
  calibrate::PriorsParams params;
  params.as_of = in.as_of;
  auto priors = calibrate::compute_priors(obs, params);
  ASSERT_TRUE(priors.has_value());
  in.priors = *priors;
  const std::string md = render_playbook(in);
  const std::size_t section = md.find("## target_eff priors\n");
  const std::size_t next = md.find("## Calibration\n");
  ASSERT_NE(section, std::string::npos);
  ASSERT_GT(next, section);
  const std::string priors_md = md.substr(section, next - section);
  EXPECT_NE(priors_md.find(
                "| key | seed | target_eff | n | runs | measured | analytic | interval | contradictions | "
                "last_seen | source |"),
            std::string::npos);
  for (const auto& row : priors->priors) {
    EXPECT_EQ(row.measured + row.analytic, row.n) << calibrate::row_key(row);
    EXPECT_NE(priors_md.find(fmt::format("\n| {} | {} | {} | {} | {} | {} | {} |", calibrate::row_key(row),
                                         fixed(row.seed, 4), fixed(row.target_eff, 4), row.n, row.runs,
                                         row.measured, row.analytic)),
              std::string::npos)
        << calibrate::row_key(row);
  }
  // The e2e transfer rows of the same result, at 4 decimals like `rfdb priors`.
  ASSERT_FALSE(priors->e2e_transfer.empty());
  const auto& t = priors->e2e_transfer.front();
  EXPECT_NE(
      md.find(fmt::format("| {} | {} | {} | {} |", t.op_class, t.regime, t.n, fixed(t.median_ratio, 4))),
      std::string::npos);
}

TEST(Playbook, CalibrationRowsAndMisses)
{
  const std::string md = render_playbook(testing::canonical_input());
  // gemm: 1.12 and 1.08 against 1.8 → ratios 0.622 and 0.600, median 0.611.
  EXPECT_NE(md.find("| gemm | 2 | 1.800\u00d7 (n 2) | 1.100\u00d7 (n 2) | 0.611 (n 2) |\n"),
            std::string::npos);
  EXPECT_NE(md.find("| moe | 1 | 1.023\u00d7 (n 1) | 1.047\u00d7 (n 1) | 1.023 (n 1) |\n"),
            std::string::npos);
  // 1.047 against 1.023 is the prediction holding (inside the 3.4 % band), not a miss.
  EXPECT_NE(md.find("\nNo isolated win beat its predicted attainable_speedup beyond the 3.4 % noise band.\n"),
            std::string::npos);
  EXPECT_EQ(md.find("- `fused_moe_kernel` (moe"), std::string::npos);
  EXPECT_NE(
      md.find("- `kernel_paged_attention_2d` (attn \u00b7 gfx950 \u00b7 decode) in run `run_gfx950_b`: "
              "--attention-backend triton measured 1.560\u00d7 vs predicted 2.800\u00d7 (ratio 0.557)\n"),
      std::string::npos);
}

TEST(Playbook, CalibrationIgnoresPlaceholderPredictionsAndNulls)
{
  auto in = testing::canonical_input();
  const RunInfo& run = in.runs[1];
  AttemptInfo suspect = testing::make_attempt(run, "norm patch", 1.10, 0.3, "stack");
  suspect.short_name = "fused_add_rmsnorm_kernel";
  suspect.op_class = "elementwise";
  suspect.prediction.suspect = true;
  suspect.prediction.headroom_class = "unknown";
  suspect.prediction.attainable_speedup = 1.0;
  AttemptInfo null_outcome = testing::make_attempt(run, "retune", 1.03, std::nullopt);
  AttemptInfo config = testing::make_attempt(run, "config: cuda-graph", std::nullopt, 1.2);
  config.short_name = "config";
  config.op_class = "unknown";
  config.lever_kind = "config";
  config.regime = ""; // a sweep trial records no regime
  config.prediction.attainable_speedup.reset();
  in.attempts = {suspect, null_outcome, config};
  const std::string md = render_playbook(in);
  EXPECT_NE(md.find("| elementwise | 1 | - (n 0) | 1.100\u00d7 (n 1) | - (n 0) |\n"), std::string::npos)
      << md;
  EXPECT_NE(md.find("1 serving-config trial is left out"), std::string::npos);
  EXPECT_EQ(md.find("- `fused_add_rmsnorm_kernel` (elementwise"),
            std::string::npos); // no miss from a placeholder (its 1.10× at +0.3 % is a caution: no transfer)
  EXPECT_NE(md.find("on `fused_add_rmsnorm_kernel` (elementwise \u00b7 gfx950 \u00b7 decode; isl/osl/conc "
                    "1024/1024/64; model Model-A-35B): isolated 1.100\u00d7 did not transfer"),
            std::string::npos);
  EXPECT_EQ(md.find("retune measured"), std::string::npos); // 1.03× is a null
  EXPECT_NE(md.find("\n### config \u00b7 gfx950 \u00b7 both\n"), std::string::npos);
}

TEST(Playbook, RoutingQualityTable)
{
  const std::string md = render_playbook(testing::canonical_input());
  EXPECT_NE(
      md.find("disagreed on the top kernel in 1 of 1 round; the pct_gpu_time pick realized more in 0, the "
              "expected-gain pick in 1, 0 tied and 0 undecided"),
      std::string::npos);
  EXPECT_NE(md.find("| `run_gfx950_b` | 0 | `fused_moe_kernel` (26.45 % GPU, expected +0.59 %) | "
                    "`kernel_paged_attention_2d` (8.86 % GPU, expected +5.70 %) | 1.047\u00d7 isolated | "
                    "1.560\u00d7 isolated | expected-gain pick |\n"),
            std::string::npos);
}

TEST(Playbook, WhatWorksLinesAndEvictionNote)
{
  auto in = testing::canonical_input();
  auto card = testing::make_card("legacy.md", "gemm", "gfx942", "decode", "Per-shape hipBLASLt tune", 2,
                                 "2025-11-01");
  card.sources_cited = {"run legacy_2025"};
  in.imported = {card};
  const std::string md = render_playbook(in);
  EXPECT_NE(
      md.find(
          "\n### gemm \u00b7 gfx942 \u00b7 decode\n\n- \u2605\u2605\u2605 per-shape hipBLASLt tune \u2014 "
          "verified end-to-end win (Director 1.0210\u00d7); isolated 1.120\u00d7; e2e +2.10 % (beyond the "
          "fixed 0.5 % band); gate "
          "accepted; reason: accepted: +2.10% non-overlapping; confirms 2; last_seen 2026-01-10; "
          "kernels `gemm_a8w8_kernel`; attempt `run_gfx942_a#cand:cand_gemm_a8w8_kernel`; imported "
          "`legacy.md` (self-rated \u2605\u2605, 2025-11-01)\n"),
      std::string::npos)
      << md;
  // The split-K attempt lost e2e: not in What works, but in Cautions.
  const std::size_t works = md.find("## What works");
  const std::size_t cautions = md.find("## Cautions");
  EXPECT_EQ(md.substr(works, cautions - works).find("split-K"), std::string::npos);
  EXPECT_NE(md.substr(cautions).find("split-K rewrite"), std::string::npos);
  EXPECT_NE(md.find("\n0 findings evicted (cap 40).\n"), std::string::npos);
}

TEST(Playbook, SaturatedHeadsTable)
{
  const std::string md = render_playbook(testing::canonical_input());
  EXPECT_NE(
      md.find(
          "| moe | gfx950 | `run_gfx950_b` | `fused_moe_kernel` | 26.45 % | 0.880 / 0.900 | analytic | skip "
          "unrouted experts; fp8 weights | no | 1 |\n"),
      std::string::npos);
}

TEST(Playbook, DeterministicAndLintShaped)
{
  auto in = testing::canonical_input();
  in.imported = {testing::make_card("odd.md", "attn", "gfx950", "prefill", "use *x* <b>y</b>\twith | pipes",
                                    1, "2026-02-01")};
  const std::string md = render_playbook(in);
  EXPECT_EQ(md, render_playbook(in));
  EXPECT_EQ(md.find('\t'), std::string::npos);
  EXPECT_EQ(md.find(" \n"), std::string::npos);
  EXPECT_EQ(md.find("\n\n\n"), std::string::npos);
  ASSERT_GE(md.size(), 2u);
  EXPECT_EQ(md.substr(md.size() - 2), "|\n"); // table last, one final newline
  EXPECT_NE(md.find("use \\*x\\* \\<b\\>y\\</b\\> with \\| pipes"), std::string::npos);
}

TEST(Playbook, EverySectionIsCappedWhateverTheHistory)
{
  ReportInput in;
  in.as_of = "2026-12-31";
  for (int i = 0; i < 300; ++i) {
    const auto r = testing::make_run(fmt::format("run_{:03}", i),
                                     fmt::format("2026-{:02}-{:02}", i % 12 + 1, i % 28 + 1),
                                     i % 3 ? "gfx950" : "gfx942");
    in.runs.push_back(r);
    auto loss = testing::make_attempt(r, "split-K rewrite", 1.2, -1.0, "rejected");
    loss.attempt_key = "cand:loss";
    auto win = testing::make_attempt(r, fmt::format("lever {:03}", i), 1.2, 1.0, "accepted");
    win.attempt_key = "cand:win";
    in.attempts.push_back(loss);
    in.attempts.push_back(win);
    RoundRanking rank;
    rank.run_id = r.run_id;
    rank.top_by_pct = "fused_moe_kernel";
    rank.top_by_gain = "gemm_a8w8_kernel";
    in.rankings.push_back(rank);
    in.heads.push_back(testing::make_head(r, "fused_moe_kernel", "moe", 26.0, 0.88, 0.9, "saturated"));
  }
  const std::string md = render_playbook(in);
  const auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = md.find(needle); at != std::string::npos; at = md.find(needle, at + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count("\n| `run_"), 20u);       // the 20 newest routing disagreements
  EXPECT_EQ(count("\n| moe | gfx"), 2u);    // one saturated head per class × gfx
  EXPECT_EQ(count("\n- Also verify"), 20u); // the 20 newest run cautions
  EXPECT_EQ(count("\n- \u2605"), 40u);      // What works at its cap
  EXPECT_NE(md.find("280 more: `rfdb query playbook_disagreements`"), std::string::npos);
  EXPECT_NE(md.find("280 more: `rfdb query playbook_cautions`"), std::string::npos);
  EXPECT_NE(md.find("300 saturated head verdicts in all"), std::string::npos);
  EXPECT_NE(md.find("260 findings evicted (cap 40)"), std::string::npos);
  EXPECT_LT(md.size(), 40'000u);
}

TEST(Playbook, TheChartPlotsOnlyHeadsWithAVerdict)
{
  auto in = testing::canonical_input();
  // A suspect head that would sit in "reduce bytes": its table row says no verdict.
  auto suspect = testing::make_head(in.runs[1], "suspect_kernel", "gemm", 12.0, 0.95, 0.9, "unknown");
  suspect.is_newest_run = true;
  in.heads.push_back(suspect);
  const std::string md = render_playbook(in);
  EXPECT_NE(md.find("| `suspect_kernel` | 12.00 % | 0.950 / 0.900 | unknown | analytic | no verdict |"),
            std::string::npos);
  EXPECT_EQ(md.find("suspect_kernel: ["), std::string::npos);
}

TEST(Playbook, BeyondTheCeilingAndLostValidationAreSpelledOut)
{
  auto in = testing::canonical_input();
  auto warm = testing::make_attempt(in.runs[1], "warm-start tuned table", 1.9029, 19.45, "accepted");
  warm.attempt_key = "cand:cand_kentry_warmstart";
  warm.prediction.pct_gpu_time = 20.0; // ceiling 20 × (1 − 1/1.9029) = 9.49 %
  warm.deployed = true;
  warm.validation_speedup = 1.0016; // validated_no_win
  in.attempts.push_back(warm);
  const std::string md = render_playbook(in);
  EXPECT_NE(md.find("- \u2605\u2605 warm-start tuned table \u2014 one clean run; Director validation lost "
                    "(1.0016\u00d7), at most \u2605\u2605;"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("beyond the Amdahl ceiling: second-order effect or mis-measured share (e2e +19.45 % vs "
                    "ceiling +9.49 %, 2.05\u00d7, `run_gfx950_b#cand:cand_kentry_warmstart`)"),
            std::string::npos);
  EXPECT_NE(md.find("came back 1.0016\u00d7 (no_win) in run `run_gfx950_b` (2026-03-02, attempt "
                    "`cand:cand_kentry_warmstart`)."),
            std::string::npos);
}

} // namespace
} // namespace rfdb::report

namespace rfdb::report {
namespace {

// Issue 28: a measured paged-attention head at 48 % of its empirical roofline
// (0.48 / 0.50 ≥ 0.9: saturated on rfdb's band) whose own file says
// headroom_ratio 2.08 and guidance actionable is disputed: listed apart with
// both figures, never "reroute", plotted with its own label.
TEST(Playbook, ADisputedMeasuredHeadIsListedApartAndNotRerouted)
{
  auto in = testing::canonical_input();
  const RunInfo& run = in.runs[1];
  HeadVerdict paged =
      testing::make_head(run, "kernel_paged_attention_2d", "attn", 8.86, 0.48, 0.5, "saturated");
  paged.source_kind = "measured";
  paged.headroom_ratio = 2.08;
  paged.guidance = "actionable";
  paged.observed_limit = "latency_occupancy";
  paged.disputed = true;
  paged.is_newest_run = true;
  in.heads[1] = paged;
  const Analysis a = analyze(in);
  ASSERT_EQ(a.disputed.size(), 1u);
  EXPECT_EQ(a.disputed_heads, 1u);
  EXPECT_EQ(a.saturated.size(), 1u); // only the undisputed moe head is rerouted
  const std::string md = render_playbook(a);
  const std::size_t from = md.find("## Saturated heads");
  const std::string saturated = md.substr(from, md.find("## Newest run") - from);
  EXPECT_NE(
      saturated.find("| attn | gfx950 | `run_gfx950_b` | `kernel_paged_attention_2d` | 8.86 % | "
                     "0.480 / 0.500 = 0.960 | 2.080\u00d7, actionable, limit latency_occupancy | 1 |\n"),
      std::string::npos)
      << saturated;
  EXPECT_NE(saturated.find("listed under disputed with both figures and is not rerouted."),
            std::string::npos);
  // The reroute table keeps only the moe head.
  EXPECT_EQ(saturated.find("`kernel_paged_attention_2d` | 8.86 % | 0.480 / 0.500 | measured"),
            std::string::npos);
  EXPECT_NE(
      saturated.find("| moe | gfx950 | `run_gfx950_b` | `fused_moe_kernel` | 26.45 % | 0.880 / 0.900 |"),
      std::string::npos);
  // x: 0.48 / 0.50 = 0.96 → 0.5 + 0.5 × 0.06 / 0.1 = 0.8.
  EXPECT_NE(render_quadrant_chart(a).find("  kernel_paged_attention_2d disputed: [0.800, 0.543]\n"),
            std::string::npos);
  EXPECT_EQ(head_route(a.newest_heads[1]), "disputed, not rerouted");
  EXPECT_NE(
      md.find("| `kernel_paged_attention_2d` | 8.86 % | 0.480 / 0.500 | saturated | measured | disputed, "
              "not rerouted |"),
      std::string::npos);
}

} // namespace
} // namespace rfdb::report
