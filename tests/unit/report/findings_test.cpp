#include "unit/report/sample_input.hpp"

#include "report/findings.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace rfdb::report {
namespace {

using testing::make_attempt;
using testing::make_card;
using testing::make_run;

ReportInput one_key_input() // empty input dated 2026-03-31
{
  ReportInput in;
  in.as_of = "2026-03-31";
  return in;
}

std::vector<Finding> findings_of(const ReportInput& in)
{
  return analyze(in).findings;
}

// ---- tiers ---------------------------------------------------------------

TEST(Tier, SingleRunWithUnverifiedE2eIsOneStar)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "tile tune", 1.10, std::nullopt)};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 1);
  EXPECT_EQ(f[0].tier_reason, "single run, e2e overlapping or unverified");
}

TEST(Tier, OneCleanRunIsTwoStars)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "tile tune", 1.10, 0.8, "accepted")};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 2);
  EXPECT_EQ(f[0].tier_reason, "one clean run");
  EXPECT_EQ(f[0].clean_run_ids, std::vector<std::string>{"r1"});
}

TEST(Tier, CleanNeedsGateAcceptedAndE2eBeyondBand)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "tile tune", 1.10, 0.8, "stack")};
  EXPECT_EQ(findings_of(in)[0].stars, 1);
  in.attempts = {make_attempt(r, "tile tune", 1.10, 0.5, "accepted")}; // +0.5 % is inside the band
  EXPECT_EQ(findings_of(in)[0].stars, 1);
}

TEST(Tier, TwoRunsThatAgreeAreTwoStars)
{
  auto in = one_key_input();
  in.attempts = {make_attempt(make_run("r1", "2026-03-01", "gfx942"), "tile tune", 1.05, std::nullopt),
                 make_attempt(make_run("r2", "2026-03-05", "gfx942"), "Tile  Tune", 1.07, 0.1)};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 2);
  EXPECT_EQ(f[0].tier_reason, "2 agreeing runs");
  EXPECT_EQ(f[0].run_ids, (std::vector<std::string>{"r1", "r2"}));
  EXPECT_EQ(f[0].lever, "Tile Tune"); // smallest spelling, whitespace collapsed
}

TEST(Tier, SameRunTwiceIsStillOneSource)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "tile tune", 1.05, std::nullopt),
                 make_attempt(r, "tile tune", 1.09, std::nullopt)};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 1);
  EXPECT_EQ(f[0].confirms, 1);
  EXPECT_DOUBLE_EQ(*f[0].iso_min, 1.05);
  EXPECT_DOUBLE_EQ(*f[0].iso_max, 1.09);
}

TEST(Tier, TwoIndependentCleanRunsAreThreeStars)
{
  auto in = one_key_input();
  in.attempts = {make_attempt(make_run("r1", "2026-03-01", "gfx942"), "tile tune", 1.10, 0.8, "accepted"),
                 make_attempt(make_run("r2", "2026-03-05", "gfx942"), "tile tune", 1.12, 1.4, "accepted")};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 3);
  EXPECT_EQ(f[0].tier_reason, "2 independent clean runs");
}

TEST(Tier, VerifiedEndToEndWinIsThreeStars)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942", "win");
  in.attempts = {make_attempt(r, "tile tune", 1.05, 0.2, "accepted")};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 3);
  EXPECT_TRUE(f[0].verified_e2e);
  EXPECT_EQ(f[0].tier_reason, "verified end-to-end win");
}

TEST(Tier, AssignTierAppliesTheWrittenRule)
{
  EXPECT_EQ(assign_tier({1, 0, false, 0}).stars, 1);
  EXPECT_EQ(assign_tier({1, 1, false, 0}).stars, 2);
  EXPECT_EQ(assign_tier({2, 0, false, 0}).stars, 2);
  EXPECT_EQ(assign_tier({2, 2, false, 0}).stars, 3);
  EXPECT_EQ(assign_tier({1, 0, true, 0}).stars, 3);
  const Tier imported = assign_tier({1, 0, false, 3});
  EXPECT_EQ(imported.stars, 3);
  EXPECT_EQ(imported.reason, "imported \u2605\u2605\u2605");
  EXPECT_EQ(assign_tier({2, 1, false, 2}).reason, "one clean source");
  EXPECT_EQ(assign_tier({1, 0, false, 0}).reason, "single run, e2e overlapping or unverified");
  EXPECT_EQ(assign_tier({1, 0, false, 1}).reason, "single source, e2e overlapping or unverified");
}

// ---- positive findings only ----------------------------------------------

TEST(Findings, NoiseBandsDecideWhatIsPositive)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "at band", 1.034, std::nullopt),     // not beyond 3.4 %
                 make_attempt(r, "beyond band", 1.035, std::nullopt), // a win
                 make_attempt(r, "lost e2e", 1.20, -0.5),             // loss at the band edge
                 make_attempt(r, "flat e2e", 1.20, -0.49),            // within e2e noise
                 make_attempt(r, "e2e only", std::nullopt, 0.9),      // config lever, e2e win
                 make_attempt(r, "dead end", 1.20, std::nullopt)};
  in.attempts.back().verdict = "dead_end";
  std::vector<std::string> levers;
  for (const auto& f : findings_of(in)) {
    levers.push_back(f.lever);
  }
  std::sort(levers.begin(), levers.end());
  EXPECT_EQ(levers, (std::vector<std::string>{"beyond band", "e2e only", "flat e2e"}));
}

TEST(Findings, OneLinePerLeverWithinAKey)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "GFX942");
  auto prefill = make_attempt(r, "tile tune", 1.10, std::nullopt);
  prefill.regime = "prefill";
  auto moe = make_attempt(r, "tile tune", 1.10, std::nullopt);
  moe.op_class = "moe";
  in.attempts = {make_attempt(r, "tile tune", 1.10, std::nullopt),
                 make_attempt(r, "split-k", 1.2, std::nullopt), prefill, moe};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].key.text(), "gemm \u00b7 gfx942 \u00b7 decode");
  EXPECT_EQ(f[1].key.text(), "gemm \u00b7 gfx942 \u00b7 decode");
  EXPECT_EQ(f[2].key.text(), "gemm \u00b7 gfx942 \u00b7 prefill");
  EXPECT_EQ(f[3].key.text(), "moe \u00b7 gfx942 \u00b7 decode");
  // Same stars and rank: ordered by lever.
  EXPECT_EQ(f[0].lever, "split-k");
  EXPECT_EQ(f[1].lever, "tile tune");
}

TEST(Findings, NormalizersFoldSpellings)
{
  EXPECT_EQ(normalize_gfx(" GFX950 "), "gfx950");
  EXPECT_EQ(normalize_gfx(""), "unknown");
  EXPECT_EQ(normalize_regime("prefill+decode"), "both");
  EXPECT_EQ(normalize_regime("Mixed"), "both");
  EXPECT_EQ(normalize_regime("decode-heavy"), "decode");
  EXPECT_EQ(normalize_regime(""), "unknown");
  EXPECT_EQ(lever_match_key("  Per-Shape\tTune "), "per-shape tune");
  EXPECT_EQ(lever_match_key(md_text("a_b_ *c* http://x.y")), lever_match_key("a_b_ *c* http://x.y"));
}

// ---- freshness and the line cap -------------------------------------------

TEST(Freshness, FallsLinearlyOver365Days)
{
  EXPECT_DOUBLE_EQ(freshness("2026-03-31", "2026-03-31"), 1.0);
  EXPECT_DOUBLE_EQ(freshness("2026-03-31", "2025-10-01"), 1.0 - 181.0 / 365.0);
  EXPECT_DOUBLE_EQ(freshness("2026-03-31", "2025-03-31"), 0.0); // exactly 365 days
  EXPECT_DOUBLE_EQ(freshness("2026-03-31", "2024-01-01"), 0.0);
  EXPECT_DOUBLE_EQ(freshness("2026-03-31", "2026-04-10"), 1.0); // after as_of: clamped
  EXPECT_DOUBLE_EQ(freshness("2026-03-31", ""), 0.0);
  EXPECT_DOUBLE_EQ(eviction_rank(2, 0.5), 1.25);
  EXPECT_DOUBLE_EQ(eviction_rank(3, 0.0), 0.75);
  EXPECT_DOUBLE_EQ(eviction_rank(1, 1.0), 1.0);
}

Finding capped(std::string lever, int stars, std::string last_seen, std::string gfx = "gfx942")
{
  Finding f;
  f.key = {"gemm", std::move(gfx), "decode"};
  f.lever = lever;
  f.lever_key = lever_match_key(lever);
  f.stars = stars;
  f.last_seen = last_seen;
  f.freshness = freshness("2026-03-31", last_seen);
  f.rank = eviction_rank(stars, f.freshness);
  return f;
}

TEST(Eviction, LowestRankGoesFirstAndThreeStarsStay)
{
  std::vector<Finding> v;
  for (int i = 0; i < 38; ++i) {
    v.push_back(capped(fmt::format("fresh {:02}", i), 2, "2026-03-31")); // rank 2.0
  }
  v.push_back(capped("stale three", 3, "2020-01-01")); // rank 0.75, exempt
  v.push_back(capped("stale one", 1, "2020-01-01"));   // rank 0.25
  v.push_back(capped("half two", 2, "2025-09-30"));  // 182 days: rank 2 × (0.25 + 0.75 × 183/365) ≈ 1.25
  v.push_back(capped("fresh one", 1, "2026-03-31")); // rank 1.0
  v.push_back(capped("stale two", 2, "2020-01-01")); // rank 0.5
  v.push_back(capped("stale two b", 2, "2020-01-01", "gfx950")); // rank 0.5, later key
  ASSERT_EQ(v.size(), 44u);
  const auto evicted = apply_line_cap(v, 40);
  ASSERT_EQ(evicted.size(), 4u);
  EXPECT_EQ(evicted[0].lever, "stale one");
  EXPECT_EQ(evicted[1].lever, "stale two"); // tie at 0.5: gfx942 key before gfx950
  EXPECT_EQ(evicted[2].lever, "stale two b");
  EXPECT_EQ(evicted[3].lever, "fresh one"); // rank 1.0 goes although ★★★ at 0.75 is lower
  EXPECT_EQ(v.size(), 40u);
  EXPECT_TRUE(std::any_of(v.begin(), v.end(), [](const Finding& f) { return f.lever == "stale three"; }));
  EXPECT_TRUE(std::any_of(v.begin(), v.end(), [](const Finding& f) { return f.lever == "half two"; }));
}

TEST(Eviction, TiesBreakOnOlderLastSeen)
{
  std::vector<Finding> v{capped("newer", 1, "2019-06-01"), capped("older", 1, "2018-06-01"),
                         capped("keep", 2, "2026-03-31")};
  EXPECT_DOUBLE_EQ(v[0].rank, v[1].rank); // both 0.25
  const auto evicted = apply_line_cap(v, 2);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].lever, "older");
}

TEST(Eviction, ThreeStarsAreNeverEvictedEvenOverTheCap)
{
  std::vector<Finding> v;
  for (int i = 0; i < 42; ++i) {
    v.push_back(capped(fmt::format("verified {:02}", i), 3, "2020-01-01"));
  }
  v.push_back(capped("fresh two", 2, "2026-03-31"));
  const auto evicted = apply_line_cap(v, 40);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].lever, "fresh two");
  EXPECT_EQ(v.size(), 42u);
}

TEST(Eviction, AnalyzeCapsWhatWorksAt40)
{
  auto in = one_key_input();
  for (int i = 0; i < 42; ++i) {
    const auto r = make_run(fmt::format("r{:02}", i), fmt::format("2026-01-{:02}", i % 28 + 1), "gfx942");
    in.attempts.push_back(make_attempt(r, fmt::format("lever {:02}", i), 1.10, std::nullopt));
  }
  const Analysis a = analyze(in);
  EXPECT_EQ(a.findings.size(), 40u);
  ASSERT_EQ(a.evicted.size(), 2u);
  // Lowest freshness first: 2026-01-01 (i = 0 and i = 28), then by lever.
  EXPECT_EQ(a.evicted[0].lever, "lever 00");
  EXPECT_EQ(a.evicted[1].lever, "lever 28");
}

// ---- imported findings ---------------------------------------------------

TEST(Merge, ImportedCardCombinesTierAndSources)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "Per-shape tune", 1.10, 0.8, "accepted")}; // ★★ alone
  auto card =
      make_card("per-shape-tune-gfx942.md", "gemm", "gfx942", "decode", "per-shape TUNE", 2, "2025-12-01");
  card.sources_cited = {"run legacy_2025_x, 2025-12-01 - fresh-server A/B"};
  card.confirms = 3;
  card.iso_min = 1.06;
  card.iso_max = 1.25;
  in.imported = {card};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 3); // a clean run and an independent ★★ card
  EXPECT_EQ(f[0].tier_reason, "2 independent clean sources");
  EXPECT_EQ(f[0].run_ids, std::vector<std::string>{"r1"});
  EXPECT_EQ(f[0].imported_identities, std::vector<std::string>{"per-shape-tune-gfx942.md"});
  EXPECT_EQ(f[0].imported_sources,
            std::vector<std::string>{"run legacy_2025_x, 2025-12-01 - fresh-server A/B"});
  EXPECT_EQ(f[0].confirms, 4);
  EXPECT_DOUBLE_EQ(*f[0].iso_min, 1.06);
  EXPECT_DOUBLE_EQ(*f[0].iso_max, 1.25);
  EXPECT_EQ(f[0].last_seen, "2026-03-01");
}

TEST(Merge, ImportedStarsAreAFloor)
{
  auto in = one_key_input();
  in.attempts = {make_attempt(make_run("r1", "2026-03-01", "gfx942"), "tile tune", 1.10, std::nullopt)};
  in.imported = {make_card("tile.md", "gemm", "gfx942", "decode", "tile tune", 3, "2025-12-01")};
  EXPECT_EQ(findings_of(in)[0].stars, 3);
}

TEST(Merge, ImportedMatchesAnAttemptBackend)
{
  auto in = one_key_input();
  in.attempts = {make_attempt(make_run("r1", "2026-03-01", "gfx942"), "", 1.10, std::nullopt)};
  in.attempts[0].backend = "aiter";
  in.imported = {make_card("aiter.md", "gemm", "gfx942", "decode", "AITER", 1, "2025-12-01")};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].lever, "aiter");
  EXPECT_EQ(f[0].stars, 2); // two agreeing sources
  EXPECT_EQ(f[0].imported_sources, std::vector<std::string>{"card aiter.md"});
}

TEST(Merge, ArchivedImportedIsNotShownAndUnmatchedFormsItsOwnLine)
{
  auto in = one_key_input();
  auto archived = make_card("old.md", "attn", "gfx950", "decode", "old lever", 3, "2026-01-01");
  archived.lifecycle = "archived";
  in.imported = {archived, make_card("new.md", "attn", "gfx950", "both", "new lever", 2, "2026-01-01")};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].lever, "new lever");
  EXPECT_EQ(f[0].key.text(), "attn \u00b7 gfx950 \u00b7 both");
  EXPECT_EQ(f[0].stars, 2);
  EXPECT_TRUE(f[0].run_ids.empty());
}

TEST(Merge, ImportedCitingOnlyTheLineRunsAddsNothing)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "tile tune", 1.10, std::nullopt)};
  const auto before = findings_of(in);
  auto card = make_card("tile.md", "gemm", "gfx942", "decode", "Tile tune", 3, "2026-03-01");
  card.sources_cited = {"r1", "run r1, 2026-03-01 - orchestrator arm"};
  in.imported = {card};
  const auto after = findings_of(in);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].stars, before[0].stars);
  EXPECT_EQ(after[0].confirms, 1);
  EXPECT_TRUE(after[0].imported_identities.empty());
  // One source beyond the line makes it independent.
  in.imported[0].sources_cited.push_back("run r9");
  EXPECT_EQ(findings_of(in)[0].stars, 3);
}

// ---- cautions ------------------------------------------------------------

bool has_prohibition(const std::string& text)
{
  std::string lower;
  for (const char c : text) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const char* banned : {"do not use", "never", "avoid", "blocklist", "don't"}) {
    if (lower.find(banned) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(Cautions, IsolatedWinThatLostEndToEndNamesConditionAndRun)
{
  const auto r = make_run("run_b", "2026-03-02", "gfx950");
  const auto cautions = build_cautions({make_attempt(r, "split-K rewrite", 1.08, -0.9, "rejected"),
                                        make_attempt(r, "small loss", 1.08, -0.4, "rejected"),
                                        make_attempt(r, "no iso win", 1.03, -3.0, "rejected")});
  ASSERT_EQ(cautions.size(), 1u);
  EXPECT_EQ(cautions[0].kind, CautionKind::e2e_loss);
  EXPECT_EQ(
      cautions[0].text,
      "Also verify the end-to-end delta before reusing split-K rewrite on `gemm_a8w8_kernel` (gemm \u00b7 "
      "gfx950 \u00b7 decode; isl/osl/conc 1024/1024/64; model Model-A-35B): isolated 1.080\u00d7 but e2e "
      "-0.90 % in run `run_b` (2026-03-02).");
  EXPECT_FALSE(has_prohibition(cautions[0].text));
}

TEST(Cautions, ModelContradictionBeyondTheNoiseBand)
{
  const auto r = make_run("run_b", "2026-03-02", "gfx950");
  auto beat = make_attempt(r, "lever a", 1.56, std::nullopt);
  beat.pred_attainable_speedup = 1.2;
  auto within = make_attempt(r, "lever b", 1.24, std::nullopt); // 1.2 × 1.034 = 1.2408
  within.pred_attainable_speedup = 1.2;
  auto suspect = make_attempt(r, "lever c", 2.0, std::nullopt);
  suspect.pred_attainable_speedup = 1.2;
  suspect.pred_suspect = true;
  const auto cautions = build_cautions({beat, within, suspect});
  ASSERT_EQ(cautions.size(), 1u);
  EXPECT_EQ(cautions[0].kind, CautionKind::model_contradiction);
  EXPECT_EQ(
      cautions[0].text,
      "Also verify the roofline model for `gemm_a8w8_kernel` (gemm \u00b7 gfx950 \u00b7 decode; "
      "isl/osl/conc 1024/1024/64; model Model-A-35B): lever a measured isolated 1.560\u00d7, beyond the "
      "predicted attainable 1.200\u00d7 (roofline_pct 0.500, target_eff 0.900) in run `run_b` (2026-03-02); "
      "re-check the byte/FLOP counts and target_eff before routing on the prediction.");
  EXPECT_FALSE(has_prohibition(cautions[0].text));
}

TEST(Cautions, NewestRunFirstAndDeduplicated)
{
  const auto old_run = make_run("run_a", "2026-01-01", "gfx942");
  const auto new_run = make_run("run_b", "2026-03-02", "gfx942");
  const auto cautions =
      build_cautions({make_attempt(old_run, "x", 1.1, -1.0), make_attempt(new_run, "x", 1.1, -1.0),
                      make_attempt(new_run, "x", 1.2, -2.0)});
  ASSERT_EQ(cautions.size(), 2u);
  EXPECT_EQ(cautions[0].run_id, "run_b");
  EXPECT_EQ(cautions[1].run_id, "run_a");
}

// ---- saturated heads, routing, scope ---------------------------------------

TEST(SaturatedHeads, LatestVerdictAndFivePercentDecide)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx950");
  in.runs = {r};
  auto moved = testing::make_head(r, "k_moved", "moe", 30.0, 0.88, 0.9, "saturated");
  auto moved_later = testing::make_head(r, "k_moved", "moe", 30.0, 0.6, 0.9, "moderate");
  moved_later.round = 1;
  auto small = testing::make_head(r, "k_small", "gemm", 4.99, 0.88, 0.9, "saturated");
  auto head = testing::make_head(r, "k_head", "gemm", 5.0, 0.88, 0.9, "saturated");
  head.byte_reduction_levers = {"fuse the quant prologue"};
  head.followed_by_byte_reduction = true;
  in.heads = {moved, moved_later, small, head};
  const auto a = analyze(in);
  ASSERT_EQ(a.saturated_heads.size(), 1u);
  EXPECT_EQ(a.saturated_heads[0].short_name, "k_head");
  EXPECT_TRUE(a.saturated_heads[0].followed_by_byte_reduction);
}

TEST(Routing, DisagreementJudgedByE2eWhenBothHaveIt)
{
  auto in = testing::canonical_input();
  auto a = analyze(in);
  ASSERT_EQ(a.routing.rounds, 1);
  ASSERT_EQ(a.routing.disagreements.size(), 1u);
  EXPECT_EQ(a.routing.disagreements[0].basis, "isolated"); // the attention pick has no e2e
  EXPECT_EQ(a.routing.disagreements[0].winner, "gain");
  in.attempts[2].e2e_delta_pct = -1.0; // attention now measured e2e, below MoE's -0.064
  a = analyze(in);
  EXPECT_EQ(a.routing.disagreements[0].basis, "e2e");
  EXPECT_EQ(a.routing.disagreements[0].winner, "pct");
}

TEST(Scope, GfxFilterSinceAndAsOf)
{
  auto in = testing::canonical_input();
  in.gfx_filter = "GFX950";
  auto a = analyze(in);
  ASSERT_EQ(a.scoped.runs.size(), 1u);
  EXPECT_EQ(a.scoped.runs[0].run_id, "run_gfx950_b");
  EXPECT_EQ(a.scoped.attempts.size(), 3u);
  in.gfx_filter.reset();
  in.since = "2026-02-01";
  EXPECT_EQ(analyze(in).scoped.runs.size(), 1u);
  in.since.reset();
  in.as_of = "2026-02-01"; // the gfx950 run is not yet known
  a = analyze(in);
  EXPECT_EQ(a.scoped.runs.size(), 1u);
  EXPECT_EQ(a.newest_run_id, "run_gfx942_a");
  EXPECT_TRUE(a.newest_heads.empty());
}

TEST(Analyze, InputOrderDoesNotMatter)
{
  auto in = testing::canonical_input();
  in.imported = {make_card("b.md", "moe", "gfx950", "decode", "fused MoE config tune", 2, "2026-01-01"),
                 make_card("a.md", "moe", "gfx950", "decode", "Fused MoE config tune", 1, "2026-02-01")};
  const auto a = analyze(in);
  std::reverse(in.attempts.begin(), in.attempts.end());
  std::reverse(in.imported.begin(), in.imported.end());
  std::reverse(in.heads.begin(), in.heads.end());
  std::reverse(in.runs.begin(), in.runs.end());
  const auto b = analyze(in);
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (std::size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].lever, b.findings[i].lever);
    EXPECT_EQ(a.findings[i].stars, b.findings[i].stars);
    EXPECT_EQ(a.findings[i].imported_sources, b.findings[i].imported_sources);
  }
  EXPECT_EQ(a.newest_heads.front().short_name, b.newest_heads.front().short_name);
}

TEST(Text, FixedPrecisionAndRanges)
{
  EXPECT_EQ(fixed(-0.0001, 2), "0.00");
  EXPECT_EQ(fixed(1.0465, 3), "1.047");
  EXPECT_EQ(iso_range_text(1.047, 1.047), "1.047\u00d7");
  EXPECT_EQ(iso_range_text(1.047, 1.12), "1.047\u20131.120\u00d7");
  EXPECT_EQ(e2e_range_text(-0.064, 2.1), "-0.06 % to +2.10 %");
  EXPECT_EQ(e2e_range_text(std::nullopt, std::nullopt), "not measured");
  EXPECT_EQ(workload_text(1024, std::nullopt, 64), "isl/osl/conc 1024/?/64");
  EXPECT_EQ(truncate_utf8("\u2605\u2605\u2605abc", 4), "\u2605\u2605\u2605\u2026");
  EXPECT_EQ(truncate_utf8("abc", 3), "abc");
  EXPECT_EQ(md_text("a_b _c_ *d* <e> [f] x|y #1"), "a_b \\_c\\_ \\*d\\* \\<e\\> \\[f\\] x\\|y #1");
  EXPECT_EQ(md_text("#1 see https://example.com/x and a@b.c"),
            "\\#1 see <https://example.com/x> and a\\@b.c");
  EXPECT_EQ(md_code("fused_moe_kernel"), "`fused_moe_kernel`");
  EXPECT_EQ(md_code(""), "-");
}

} // namespace
} // namespace rfdb::report
