#include "unit/report/sample_input.hpp"

#include "calibrate/priors_format.hpp"
#include "report/playbook.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace rfdb::report {
namespace {

const char* const k_empty_playbook =
    "# Backend playbook\n"
    "\n"
    "Evidence: none yet (no runs, no imported findings); as of 2026-03-31.\n"
    "\n"
    "No evidence yet: ingest a run with `rfdb ingest EVAL_DIR` (or legacy cards and playbook lines) and "
    "regenerate this playbook.\n"
    "\n"
    "## target_eff priors\n"
    "\n"
    "No calibrated priors yet; the seeds apply: gemm 0.900, moe 0.900, elementwise 0.875, attn 0.500.\n"
    "\n"
    "## Calibration\n"
    "\n"
    "No attempts yet: nothing to compare predictions with.\n"
    "\n"
    "## Routing quality\n"
    "\n"
    "No ranked rounds yet.\n"
    "\n"
    "## What works\n"
    "\n"
    "Tiers: \u2605 a single run with an overlapping or unverified e2e result; \u2605\u2605 one clean run "
    "(isolated > 1.034\u00d7 and e2e > +0.5 % with the A/B gate accepted) or \u2265 2 runs that agree; "
    "\u2605\u2605\u2605 \u2265 2 independent clean runs or a verified end-to-end win. Positive findings "
    "only, at "
    "most 40 lines: the lowest stars \u00d7 (0.25 + 0.75 \u00d7 freshness) is evicted first (freshness falls "
    "from "
    "1 to 0 over 365 days), \u2605\u2605\u2605 stays.\n"
    "\n"
    "No positive findings yet.\n"
    "\n"
    "0 findings evicted (cap 40).\n"
    "\n"
    "## Cautions\n"
    "\n"
    "Conditioned notes from surprising negatives: each adds a check under the condition it names (op class, "
    "gfx, "
    "regime, workload, run); none removes a candidate.\n"
    "\n"
    "No surprising negatives yet.\n"
    "\n"
    "## Saturated heads\n"
    "\n"
    "Heads (pct_gpu_time \u2265 5) whose latest verdict is saturated are rerouted to byte reduction: fuse a "
    "neighbour away, stop reading unused experts, change the layout, or lower the precision.\n"
    "\n"
    "No saturated heads yet.\n"
    "\n"
    "## Newest run at a glance\n"
    "\n"
    "No head verdicts yet.\n";

TEST(Playbook, EmptyInputIsAShortValidPlaybook)
{
  ReportInput in;
  in.as_of = "2026-03-31";
  EXPECT_EQ(render_playbook(in), k_empty_playbook);
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
  EXPECT_NE(md.find("\nEvidence: 2 runs of 1 model on 2 GPUs (gfx942, gfx950), 2026-01-10 to 2026-03-02; "
                    "1 imported finding; as of 2026-03-31.\n"),
            std::string::npos);
  in.gfx_filter = "gfx950";
  in.since = "2026-02-01";
  EXPECT_NE(render_playbook(in).find("\nEvidence: 1 run of 1 model on 1 GPU (gfx950), 2026-03-02; 0 imported "
                                     "findings; as of 2026-03-31. Scope: gfx950 only, evidence since "
                                     "2026-02-01.\n"),
            std::string::npos);
}

TEST(Playbook, QuadrantChartForTwoHeads)
{
  const Analysis a = analyze(testing::canonical_input());
  EXPECT_EQ(render_quadrant_chart(a), "```mermaid\n"
                                      "quadrantChart\n"
                                      "  title Head kernels of run run_gfx950_b\n"
                                      "  x-axis far from target_eff --> at target_eff\n"
                                      "  y-axis small share of GPU time --> large share of GPU time\n"
                                      "  quadrant-1 reduce bytes\n"
                                      "  quadrant-2 tune\n"
                                      "  quadrant-3 low priority, tune\n"
                                      "  quadrant-4 low priority, reduce bytes\n"
                                      "  fused_moe_kernel: [0.978, 0.265]\n"
                                      "  kernel_paged_attention_2d: [0.360, 0.089]\n"
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
  EXPECT_NE(chart.find("  fused_moe_kernel: [1, 0.265]\n"), std::string::npos);
  EXPECT_NE(chart.find("  kernel title_x_: [0.360, 0.089]\n"), std::string::npos);
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
    o.pred_roofline_pct = a.pred_roofline_pct;
    o.pred_target_eff = a.pred_target_eff;
    o.pred_attainable_speedup = a.pred_attainable_speedup;
    o.pred_headroom_class = a.pred_headroom_class;
    o.pred_confidence = a.pred_confidence;
    o.pred_pct_gpu_time = a.pred_pct_gpu_time;
    obs.push_back(o);
  }
  calibrate::PriorsParams params;
  params.as_of = in.as_of;
  auto priors = calibrate::compute_priors(obs, params);
  ASSERT_TRUE(priors.has_value());
  in.priors = *priors;
  const std::string md = render_playbook(in);
  const std::string table = calibrate::render_priors_md(*priors);
  const std::size_t at = md.find(table);
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(at, md.find("## target_eff priors\n"));
  EXPECT_LT(at, md.find("## Calibration\n"));
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
  EXPECT_NE(md.find("| gemm | 2 | 1.800\u00d7 (n 2) | 1.100\u00d7 (n 2) | 0.611 |\n"), std::string::npos);
  EXPECT_NE(md.find("| moe | 1 | 1.023\u00d7 (n 1) | 1.047\u00d7 (n 1) | 1.023 |\n"), std::string::npos);
  EXPECT_NE(md.find("- `fused_moe_kernel` (moe \u00b7 gfx950 \u00b7 decode) in run `run_gfx950_b`: measured "
                    "1.047\u00d7 vs predicted 1.023\u00d7 (ratio 1.023)\n"),
            std::string::npos);
  EXPECT_NE(md.find("- `kernel_paged_attention_2d` (attn \u00b7 gfx950 \u00b7 decode) in run `run_gfx950_b`: "
                    "measured 1.560\u00d7 vs predicted 2.800\u00d7 (ratio 0.557)\n"),
            std::string::npos);
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
          "verified end-to-end win; isolated 1.120\u00d7; e2e +2.10 %; confirms 2; last_seen 2026-01-10; "
          "kernels `gemm_a8w8_kernel`; runs `run_gfx942_a`; imported `legacy.md`\n"),
      std::string::npos);
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
      md.find("| `run_gfx950_b` | `fused_moe_kernel` | gfx950 | 26.45 % | 0.880 / 0.900 | skip unrouted "
              "experts; fp8 weights | no |\n"),
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

} // namespace
} // namespace rfdb::report
