// Unit tests of the playbook findings (report/findings.hpp) on hand-built attempts and cards.
#include "unit/report/sample_input.hpp"

#include "domain/normalize.hpp"
#include "report/analysis.hpp"
#include "report/digest.hpp"
#include "report/findings.hpp"
#include "report/lines.hpp"
#include "report/playbook.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

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

// ---- what qualifies ---------------------------------------------------------

// The run's Director validation won (1.05×) and the final overlay deployed it.
AttemptInfo verified(AttemptInfo a, double speedup = 1.05)
{
  a.run_validation_class = "win";
  a.validation_speedup = speedup;
  a.deployed = true;
  return a;
}

// A run's measured spread wider than the fixed band is its e2e band
// (docs/playbook.md, "Noise measured per run"): +0.94 % on a run whose
// baseline spread is 0.94 % is no win; +1.36 % is, and its line says which
// band decided. The same figure on a quiet run passes the fixed band.
TEST(WhatWorks, TheRunsMeasuredSpreadDecidesWhenWiderThanTheFixedBand)
{
  auto noisy = make_run("noisy", "2026-03-01", "gfx950");
  noisy.measured_spread_pct = 0.94;
  auto trial = make_attempt(noisy, "--async-scheduling", std::nullopt, 0.94);
  trial.kind = "config";
  trial.short_name = "config";
  trial.op_class = "unknown";
  trial.lever_kind = "config";
  trial.e2e_band = domain::run_e2e_band(noisy.measured_spread_pct);
  EXPECT_EQ(what_works_exclusion(trial), "e2e inside the run's measured spread");
  auto quiet = trial;
  quiet.e2e_band = domain::run_e2e_band(std::nullopt);
  EXPECT_EQ(what_works_exclusion(quiet), "");

  ReportInput in = one_key_input();
  in.runs = {noisy};
  in.attempts = {trial};
  EXPECT_TRUE(findings_of(in).empty());
  in.attempts[0].e2e_delta_pct = 1.36;
  const auto found = findings_of(in);
  ASSERT_EQ(found.size(), 1U);
  ASSERT_TRUE(found[0].e2e_band);
  EXPECT_DOUBLE_EQ(found[0].e2e_band->pct, 0.94);
  EXPECT_EQ(found[0].e2e_band->source, domain::BandSource::measured);
  const std::string md = render_playbook(in);
  EXPECT_NE(md.find("e2e +1.36 % (beyond the run's measured spread 0.94 %)"), std::string::npos) << md;
  in.attempts = {quiet};
  const auto fixed_band = findings_of(in);
  ASSERT_EQ(fixed_band.size(), 1U);
  const std::string quiet_md = render_playbook(in);
  EXPECT_NE(quiet_md.find("e2e +0.94 % (beyond the fixed 0.5 % band)"), std::string::npos) << quiet_md;
}

TEST(WhatWorks, OnlyPositiveMeasuredFindingsQualify)
{
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  const auto good = make_attempt(r, "tile tune", 1.10, 0.8, "accepted");
  EXPECT_EQ(what_works_exclusion(good), "");
  auto rejected = good;
  rejected.gate = "rejected"; // "oracle speedup did not transfer", e2e +0.18 %
  rejected.e2e_delta_pct = 0.18;
  EXPECT_EQ(what_works_exclusion(rejected), "e2e inside the noise band or a loss");
  rejected.e2e_delta_pct = 0.8;
  EXPECT_EQ(what_works_exclusion(rejected), "gate rejected");
  auto in_noise = good;
  in_noise.e2e_delta_pct = 0.5; // +0.5 % is inside the band
  EXPECT_EQ(what_works_exclusion(in_noise), "e2e inside the noise band or a loss");
  auto iso_noise = good;
  iso_noise.isolated_speedup = 1.034;
  EXPECT_EQ(what_works_exclusion(iso_noise), "isolated speedup inside the noise band");
  auto parity = good; // accepted gate, parity failed
  parity.output_parity = "fail";
  EXPECT_EQ(what_works_exclusion(parity), "output parity failed");
  auto unengaged = good;
  unengaged.reject_reason = "no_engagement";
  EXPECT_EQ(what_works_exclusion(unengaged), "engagement refused");
  auto unmeasured = good;
  unmeasured.measured = false;
  EXPECT_EQ(what_works_exclusion(unmeasured), "not measured");
  auto stacked = good;
  stacked.gate = "stack";
  EXPECT_EQ(what_works_exclusion(stacked), "stacked without a Director win");
  EXPECT_EQ(what_works_exclusion(verified(stacked)), "");
  EXPECT_EQ(what_works_exclusion(verified(stacked, 0.96)), "stacked without a Director win");
  auto config = make_attempt(r, "config: --async-scheduling", std::nullopt, 1.1);
  config.kind = "config";
  EXPECT_EQ(what_works_exclusion(config), "");
  config.verdict = "dead_end"; // trial not kept
  EXPECT_EQ(what_works_exclusion(config), "trial not kept");

  auto in = one_key_input();
  in.attempts = {good, rejected, in_noise, iso_noise, parity, unengaged, unmeasured, stacked};
  in.attempts[0].lever = "kept lever";
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].lever, "kept lever");
}

TEST(Tier, OneCleanRunIsTwoStars)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "tile tune", 1.10, 0.8, "accepted")};
  in.attempts[0].attempt_key = "cand:cand_tile";
  in.attempts[0].reason = "accepted: +0.80% non-overlapping; Amdahl ceiling +3.3%. Second sentence.";
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 2);
  EXPECT_EQ(f[0].tier_reason, "one clean run");
  EXPECT_EQ(f[0].clean_run_ids, std::vector<std::string>{"r1"});
  EXPECT_EQ(f[0].gates, std::vector<std::string>{"accepted"});
  EXPECT_EQ(f[0].reason, "accepted: +0.80% non-overlapping");
  ASSERT_EQ(f[0].refs.size(), 1u);
  EXPECT_EQ(f[0].refs[0].text(), "r1#cand:cand_tile");
}

TEST(Tier, TwoIndependentCleanRunsAreThreeStars)
{
  auto in = one_key_input();
  in.attempts = {make_attempt(make_run("r1", "2026-03-01", "gfx942"), "tile tune", 1.10, 0.8, "accepted"),
                 make_attempt(make_run("r2", "2026-03-05", "gfx942"), "Tile  Tune", 1.12, 1.4, "accepted")};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 3);
  EXPECT_EQ(f[0].tier_reason, "2 independent clean runs");
  EXPECT_EQ(f[0].run_ids, (std::vector<std::string>{"r1", "r2"}));
  EXPECT_EQ(f[0].lever, "Tile Tune"); // the newest attempt's spelling, whitespace collapsed
  EXPECT_EQ(f[0].spellings, (std::vector<std::string>{"Tile Tune", "tile tune"}));
  EXPECT_EQ(f[0].refs[0].run_id, "r2"); // newest first
}

TEST(Findings, KeepsTheThreeStrongestReferencesAndCountsThemAll)
{
  auto in = one_key_input();
  for (int i = 1; i <= 5; ++i) {
    auto a = make_attempt(make_run(fmt::format("r{}", i), fmt::format("2026-03-0{}", i), "gfx942"),
                          "tile tune", 1.10, 0.8, "accepted");
    a.attempt_key = fmt::format("cand:k{}", i);
    in.attempts.push_back(a);
  }
  std::reverse(in.attempts.begin(), in.attempts.end()); // arrival order does not matter
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].ref_count, 5u);
  ASSERT_EQ(f[0].refs.size(), k_refs_shown);
  EXPECT_EQ(f[0].refs[0].text(), "r5#cand:k5"); // newest first
  EXPECT_EQ(f[0].refs[1].text(), "r4#cand:k4");
  EXPECT_EQ(f[0].refs[2].text(), "r3#cand:k3");
  EXPECT_NE(render_playbook(in).find(
                "attempts `r5#cand:k5`, `r4#cand:k4`, `r3#cand:k3` and 2 more (`rfdb export`)"),
            std::string::npos);
}

TEST(Tier, VerifiedNeedsADirectorWinAboveOneThatIncludesTheLever)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {verified(make_attempt(r, "tile tune", 1.10, 0.8, "accepted"))};
  auto f = findings_of(in);
  EXPECT_EQ(f[0].stars, 3);
  EXPECT_TRUE(f[0].verified_e2e);
  EXPECT_EQ(f[0].tier_reason, "verified end-to-end win");
  EXPECT_DOUBLE_EQ(*f[0].verified_speedup, 1.05);
  in.attempts[0].deployed = false; // validated without this lever: one clean run
  f = findings_of(in);
  EXPECT_EQ(f[0].stars, 2);
  EXPECT_FALSE(f[0].verified_e2e);
  EXPECT_FALSE(f[0].lost_validation.has_value());
}

TEST(Tier, ALostValidationCapsAtTwoStarsAndAddsACaution)
{
  auto in = one_key_input();
  // validated_win at 0.96×: lost, whatever its class says.
  auto lost = verified(
      make_attempt(make_run("r1", "2026-03-01", "gfx942"), "tile tune", 1.10, 0.8, "accepted"), 0.96);
  lost.attempt_key = "cand:a";
  in.attempts = {lost,
                 make_attempt(make_run("r2", "2026-03-05", "gfx942"), "tile tune", 1.12, 1.4, "accepted")};
  const Analysis a = analyze(in);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].stars, 2); // two clean runs would be ★★★
  EXPECT_EQ(a.findings[0].tier_reason,
            "2 independent clean runs; Director validation lost (0.9600\u00d7), at most \u2605\u2605");
  ASSERT_TRUE(a.findings[0].lost_validation.has_value());
  EXPECT_EQ(a.findings[0].lost_validation->ref.text(), "r1#cand:a");
  const auto c = std::find_if(a.cautions.begin(), a.cautions.end(),
                              [](const Caution& x) { return x.kind == CautionKind::lost_validation; });
  ASSERT_NE(c, a.cautions.end());
  EXPECT_NE(c->text.find("came back 0.9600\u00d7 (win) in run `r1`"), std::string::npos) << c->text;
  // validated_no_win at 1.0016×: lost too.
  in.attempts[0].run_validation_class = "no_win";
  in.attempts[0].validation_speedup = 1.0016;
  EXPECT_EQ(findings_of(in)[0].stars, 2);
}

TEST(Tier, AKeptConfigTrialIsOneStarUntilVerified)
{
  auto in = one_key_input();
  auto config =
      make_attempt(make_run("r1", "2026-03-01", "gfx942"), "config: --async-scheduling", std::nullopt, 1.1);
  config.kind = "config";
  in.attempts = {config};
  auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key.text(), "config \u00b7 gfx942 \u00b7 decode");
  EXPECT_EQ(f[0].stars, 1);
  EXPECT_EQ(f[0].tier_reason, "single run, not verified end to end");
  EXPECT_EQ(f[0].gates, std::vector<std::string>{"kept"});
  in.attempts[0].run_validation_class = "win"; // a kept trial is in the final config
  in.attempts[0].validation_speedup = 1.15;
  EXPECT_EQ(findings_of(in)[0].stars, 3);
}

TEST(Tier, AssignTierAppliesTheWrittenRule)
{
  const auto runs = [](int agreeing, int clean, bool verified) {
    TierEvidence e;
    e.agreeing_sources = agreeing;
    e.clean_sources = clean;
    e.clean_runs = clean;
    e.verified_e2e = verified;
    e.run_evidence = true;
    return e;
  };
  EXPECT_EQ(assign_tier(runs(1, 0, false)).stars, 1);
  EXPECT_EQ(assign_tier(runs(1, 1, false)).stars, 2);
  EXPECT_EQ(assign_tier(runs(2, 0, false)).stars, 2);
  EXPECT_EQ(assign_tier(runs(2, 2, false)).stars, 3);
  EXPECT_EQ(assign_tier(runs(1, 0, true)).stars, 3);
  TierEvidence imported;
  imported.agreeing_sources = 1;
  imported.clean_sources = 1;
  imported.imported_stars = 3;
  const Tier alone = assign_tier(imported);
  EXPECT_EQ(alone.stars, 2);
  EXPECT_EQ(alone.reason,
            "imported, self-rated \u2605\u2605\u2605, capped at \u2605\u2605 until a run confirms it");
  imported.imported_stars = 1;
  EXPECT_EQ(assign_tier(imported).stars, 1);
  TierEvidence mixed = runs(2, 1, false); // a kept config trial and an imported ★★ card
  mixed.clean_runs = 0;
  mixed.imported_stars = 2;
  EXPECT_EQ(assign_tier(mixed).reason, "one clean source");
}

// ---- one line per lever ----------------------------------------------------

TEST(Findings, OneLinePerLeverKeyWithinAReuseKey)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "GFX942");
  auto prefill = make_attempt(r, "tile tune", 1.10, 0.8, "accepted");
  prefill.regime = "prefill";
  auto moe = make_attempt(r, "tile tune", 1.10, 0.8, "accepted");
  moe.op_class = "moe";
  // split-k / split_k / splitk in three runs are one lever.
  in.attempts = {make_attempt(r, "tile tune", 1.10, 0.8, "accepted"),
                 make_attempt(make_run("r2", "2026-03-02", "gfx942"), "split-k", 1.2, 0.9, "accepted"),
                 make_attempt(make_run("r3", "2026-03-03", "gfx942"), "Split_K", 1.2, 0.9, "accepted"),
                 make_attempt(make_run("r4", "2026-03-04", "gfx942"), "splitk", 1.2, 0.9, "accepted"),
                 prefill,
                 moe};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].key.text(), "gemm \u00b7 gfx942 \u00b7 decode");
  EXPECT_EQ(f[0].lever, "splitk"); // ★★★ first, then the newest spelling
  EXPECT_EQ(f[0].lever_key, "splitk");
  EXPECT_EQ(f[0].spellings, (std::vector<std::string>{"Split_K", "split-k", "splitk"}));
  EXPECT_EQ(f[0].run_ids.size(), 3u);
  EXPECT_EQ(f[1].lever, "tile tune");
  EXPECT_EQ(f[2].key.text(), "gemm \u00b7 gfx942 \u00b7 prefill");
  EXPECT_EQ(f[3].key.text(), "moe \u00b7 gfx942 \u00b7 decode");
}

TEST(Findings, AnE2eGainBeyondTwiceTheAmdahlCeilingIsAnnotated)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  auto a = make_attempt(r, "tile tune", 1.25, 4.5, "accepted"); // c = 20 × (1 − 1/1.25) = 4 %
  a.prediction.pct_gpu_time = 10.0;                             // c = 2 %: 4.5 > 2 × 2
  a.attempt_key = "cand:x";
  in.attempts = {a};
  auto f = findings_of(in);
  ASSERT_TRUE(f[0].beyond_ceiling.has_value());
  EXPECT_DOUBLE_EQ(f[0].beyond_ceiling->ceiling_pct, 2.0);
  EXPECT_EQ(f[0].beyond_ceiling->ref.text(), "r1#cand:x");
  in.attempts[0].e2e_delta_pct = 3.9; // within 2× the ceiling
  EXPECT_FALSE(findings_of(in)[0].beyond_ceiling.has_value());
}

TEST(Findings, NormalizersFoldSpellings)
{
  EXPECT_EQ(domain::gfx_key(" GFX950 "), "gfx950");
  EXPECT_EQ(domain::gfx_key(""), "unknown");
  EXPECT_EQ(first_sentence("one. two", 80), "one.");
  EXPECT_EQ(first_sentence("a; b. c", 80), "a");
  EXPECT_EQ(first_sentence("  many\n words  ", 80), "many words");
  EXPECT_EQ(source_key(md_text("a_b_ *c* http://x.y")), source_key("a_b_ *c* http://x.y"));
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
  f.lever_key = domain::lever_key(lever);
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
    in.attempts.push_back(make_attempt(r, fmt::format("lever {:02}", i), 1.10, 0.8, "accepted"));
  }
  const Analysis a = analyze(in);
  EXPECT_EQ(a.findings.size(), 40u);
  ASSERT_EQ(a.evicted.size(), 2u);
  // Lowest freshness first: 2026-01-01 (i = 0 and i = 28), then by lever.
  EXPECT_EQ(a.evicted[0].lever, "lever 00");
  EXPECT_EQ(a.evicted[1].lever, "lever 28");
}

// ---- imported findings ---------------------------------------------------

TEST(Merge, ImportedCardJoinsTheRunsIdenticalFindingAsOneSource)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  auto trial = make_attempt(r, "config: --attention-backend triton", std::nullopt, 4.15);
  trial.kind = "config";
  trial.regime = "";
  in.attempts = {trial};
  // The same lever written down twice in legacy knowledge: a card filed under
  // the attention class and the playbook line it came from.
  auto card = make_card("attn-backend-triton-gfx942.md", "attn", "gfx942", "prefill",
                        "Switch the server to the Triton attention backend; a flag, no source edit.", 3,
                        "2026-02-01");
  card.sources_cited = {"legacy run 2026-01-20"};
  card.confirms = 2;
  ImportedFinding line;
  line.origin = "playbook";
  line.identity = "backend_playbook.md#2026-01-20|m|dense|gfx942|attn prefill|mixed";
  line.name = "`--attention-backend triton` pays on hybrid models";
  line.op_class = "attn";
  line.gfx = "gfx942";
  line.regime = "both";
  line.stars = 2;
  line.last_seen = "2026-01-20";
  line.kind = domain::KnowledgeKind::positive_measured;
  in.imported = {line, card};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u) << f.size();
  EXPECT_EQ(f[0].key.text(), "config \u00b7 gfx942 \u00b7 both");
  EXPECT_EQ(f[0].lever_key, "attention_backend=triton");
  EXPECT_EQ(f[0].imported_identities.size(), 2u);
  EXPECT_EQ(f[0].imported_stars, 3);
  EXPECT_EQ(f[0].confirms, 3); // the run, plus the card's 2 (the line restates them)
  // One kept trial (not clean) + the imported source (clean): ★★, never ★★★
  // from the duplicate pair alone.
  EXPECT_EQ(f[0].stars, 2);
  EXPECT_EQ(f[0].tier_reason, "one clean source");
}

TEST(Merge, ImportedAloneIsCappedAtTwoStarsAndCanBeEvicted)
{
  auto in = one_key_input();
  in.imported = {make_card("tile.md", "gemm", "gfx942", "decode", "tile tune", 3, "2025-12-01")};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 2);
  EXPECT_TRUE(f[0].run_ids.empty());
  // Forty fresh run lines push the stale imported one out.
  for (int i = 0; i < 40; ++i) {
    const auto r = make_run(fmt::format("r{:02}", i), "2026-03-30", "gfx942");
    in.attempts.push_back(make_attempt(r, fmt::format("lever {:02}", i), 1.10, 0.8, "accepted"));
  }
  const Analysis a = analyze(in);
  ASSERT_EQ(a.evicted.size(), 1u);
  EXPECT_EQ(a.evicted[0].lever, "tile tune");
}

TEST(Merge, ADrainedProposalAndTheCardItBecameAreOneFinding)
{
  auto in = one_key_input();
  auto card = make_card("let-a-table-pick-the-blas-dense-gemm-gfx1151-decode.md", "gemm", "gfx1151", "decode",
                        "Let a per-shape table race the two BLAS libraries and keep the winner per shape.", 3,
                        "2026-03-20");
  card.key_raw = "dense bf16 Linear shapes at decode on an iGPU (gfx1151), two BLAS libraries";
  card.sources_cited = {"run e2e_igpu_blas_20260301, 2026-03-01 - revalidate arm"};
  auto proposal = card;
  proposal.origin = "proposal";
  proposal.identity = "e2e-igpu-blas-20260301.json#/cards/0";
  proposal.name = "per-shape-blas-selection-dense-gemm-gfx1151-decode";
  proposal.lever = "Race the two BLAS libraries per shape with a tuning table.";
  proposal.stars = 2;
  proposal.last_seen = "2026-03-01";
  in.imported = {proposal, card};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].stars, 2); // one source, capped: not ★★★ from two copies of itself
  EXPECT_EQ(f[0].imported_identities.size(), 2u);
  EXPECT_EQ(f[0].imported_sources, card.sources_cited);
  EXPECT_EQ(f[0].lever, card.lever); // the card names the line
}

TEST(Merge, ImportedMatchesAnAttemptBackend)
{
  auto in = one_key_input();
  in.attempts = {make_attempt(make_run("r1", "2026-03-01", "gfx942"), "", 1.10, 0.8, "accepted")};
  in.attempts[0].backend = "aiter";
  in.imported = {make_card("aiter.md", "gemm", "gfx942", "decode", "AITER", 1, "2025-12-01")};
  const auto f = findings_of(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].lever, "aiter");
  EXPECT_EQ(f[0].stars, 2);
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

TEST(Merge, OurOwnCardCitingOnlyTheLineRunsAddsNothing)
{
  auto in = one_key_input();
  const auto r = make_run("r1", "2026-03-01", "gfx942");
  in.attempts = {make_attempt(r, "tile tune", 1.10, 0.8, "accepted")};
  const auto before = findings_of(in);
  auto card = make_card("tile.md", "gemm", "gfx942", "decode", "Tile tune", 3, "2026-03-01");
  card.generator = "rfdb";
  card.sources_cited = {"r1", "run r1, 2026-03-01 - orchestrator arm"};
  in.imported = {card};
  const auto after = findings_of(in);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].stars, before[0].stars);
  EXPECT_EQ(after[0].confirms, 1);
  EXPECT_TRUE(after[0].imported_identities.empty());
  // One source beyond the line makes it evidence.
  in.imported[0].sources_cited.push_back("run r9");
  EXPECT_EQ(findings_of(in)[0].stars, 3);
}

TEST(Merge, ImportedLinesNeverShowAFileNameOrAHeading)
{
  ImportedFinding f;
  f.origin = "card";
  f.identity = "legacy-gemm-tune-gfx942.md";
  f.name = "legacy-gemm-tune-gfx942"; // a slug: no words to show
  f.text = "# Retune the per-shape table first\n- source: x";
  EXPECT_EQ(detail::imported_display(f), "Retune the per-shape table first");
  f.origin = "playbook";
  f.name = "ROUTING / MECHANISM (seam facts for the next push):";
  f.text = "**ROUTING / MECHANISM (seam facts for the next push):** the live path binds at import. More.";
  EXPECT_EQ(detail::imported_display(f),
            "ROUTING / MECHANISM (seam facts for the next push): the live path binds at import.");
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

std::vector<Caution> cautions_of(std::vector<AttemptInfo> attempts,
                                 std::vector<ImportedFinding> imported = {})
{
  ReportInput in;
  in.attempts = std::move(attempts);
  in.imported = std::move(imported);
  return build_cautions(in);
}

TEST(Cautions, TheShownOnesAloneMatchEveryCautionSortedAndCounted)
{
  // 30 runs, each with duplicate cautions (same kernel and lever, another
  // attempt key) and a second kernel; fed in a scrambled order.
  std::vector<AttemptInfo> attempts;
  for (int i = 0; i < 30; ++i) {
    const auto r = make_run(fmt::format("run_{:02}", (i * 7) % 30),
                            fmt::format("2026-03-{:02}", 1 + (i * 7) % 9), "gfx950");
    for (const char* key : {"cand:b", "cand:a"}) {
      auto a = make_attempt(r, "tile tune", 1.10 + 0.01 * i, -1.0, "rejected");
      a.attempt_key = key;
      attempts.push_back(a);
    }
    auto other = make_attempt(r, "split-k", 1.20, -2.0, "rejected");
    other.short_name = "gemm_other_kernel";
    other.attempt_key = "cand:c";
    attempts.push_back(other);
  }
  ReportInput in;
  in.attempts = attempts;
  const auto every = build_cautions(in);
  ASSERT_EQ(every.size(), 60u);
  AttemptDigest d;
  d.keep_all_cautions = false;
  for (const auto& a : attempts) {
    d.add(a);
  }
  EXPECT_EQ(d.distinct_run_cautions, every.size());
  ReportInput none;
  const auto shown = detail::finish_cautions(d.cautions, none);
  ASSERT_EQ(shown.size(), k_run_cautions);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    EXPECT_EQ(shown[i].text, every[i].text) << i;
  }
}

TEST(Cautions, IsolatedWinThatLostEndToEndNamesConditionAndRun)
{
  const auto r = make_run("run_b", "2026-03-02", "gfx950");
  auto loss = make_attempt(r, "split-K rewrite", 1.08, -0.9, "rejected");
  loss.attempt_key = "cand:k";
  const auto cautions = cautions_of({loss, make_attempt(r, "small loss", 1.08, -0.4, "rejected"),
                                     make_attempt(r, "no iso win", 1.03, -3.0, "rejected")});
  // −0.4 % is inside the band: that one did not transfer, it did not lose.
  ASSERT_EQ(cautions.size(), 2u);
  EXPECT_EQ(cautions[0].kind, CautionKind::e2e_loss);
  EXPECT_EQ(cautions[1].kind, CautionKind::no_transfer);
  EXPECT_NE(cautions[1].text.find("reusing small loss on"), std::string::npos) << cautions[1].text;
  EXPECT_EQ(
      cautions[0].text,
      "Also verify the end-to-end delta before reusing split-K rewrite on `gemm_a8w8_kernel` (gemm \u00b7 "
      "gfx950 \u00b7 decode; isl/osl/conc 1024/1024/64; model Model-A-35B): isolated 1.080\u00d7 but e2e "
      "-0.90 % in run `run_b` (2026-03-02, attempt `cand:k`).");
  EXPECT_FALSE(has_prohibition(cautions[0].text));
}

TEST(Cautions, ModelContradictionBeyondTheNoiseBand)
{
  const auto r = make_run("run_b", "2026-03-02", "gfx950");
  auto beat = make_attempt(r, "lever a", 1.56, std::nullopt);
  beat.prediction.attainable_speedup = 1.2;
  beat.attempt_key = "cand:a";
  auto within = make_attempt(r, "lever b", 1.24, std::nullopt); // 1.2 × 1.034 = 1.2408
  within.prediction.attainable_speedup = 1.2;
  auto suspect = make_attempt(r, "lever c", 2.0, std::nullopt);
  suspect.prediction.attainable_speedup = 1.2;
  suspect.prediction.suspect = true;
  const auto cautions = cautions_of({beat, within, suspect});
  ASSERT_EQ(cautions.size(), 1u);
  EXPECT_EQ(cautions[0].kind, CautionKind::model_contradiction);
  EXPECT_EQ(
      cautions[0].text,
      "Also verify the roofline model for `gemm_a8w8_kernel` (gemm \u00b7 gfx950 \u00b7 decode; "
      "isl/osl/conc 1024/1024/64; model Model-A-35B): lever a measured isolated 1.560\u00d7, beyond the "
      "predicted attainable 1.200\u00d7 (roofline_pct 0.500, target_eff 0.900) in run `run_b` (2026-03-02, "
      "attempt `cand:a`); re-check the byte/FLOP counts and target_eff before routing on the prediction.");
  EXPECT_FALSE(has_prohibition(cautions[0].text));
}

// The gemma dev run's aggressive split-KV rewrite: rejected on parity at
// isolated 2.347× and e2e +38.05 %; the caution quotes what broke.
AttemptInfo gemma_parity_failure(const RunInfo& r)
{
  auto a =
      make_attempt(r, "aggressive authored rewrite (exp2, bf16 P.V accumulation)", 2.347, 38.05, "rejected");
  a.short_name = "_fwd_grouped_kernel_stage1";
  a.op_class = "attn";
  a.lever_kind = "authored";
  a.backend = "triton";
  a.attempt_key = "cand:cand__fwd_grouped_kernel_stage1_rewrite_aggr";
  a.verdict = "dead_end";
  a.output_parity = "fail";
  a.reject_reason = "parity_regression";
  a.reason =
      "parity_regression: exp2 + bf16 P.V accumulation reorders the split-KV reduction; greedy outputs "
      "diverge on 9/16 prompts, gsm8k 5-shot n=200 0.885 -> 0.850";
  a.prediction.roofline_pct = 0.432;
  a.prediction.target_eff = 0.5;
  a.prediction.attainable_speedup = 1.157;
  a.prediction.headroom_class = "moderate";
  a.prediction.pct_gpu_time = 22.8;
  return a;
}

TEST(Cautions, AParityFailureNamesWhatBroke)
{
  const auto r = make_run("e2e_gemma", "2026-08-24", "gfx950");
  const auto cautions = cautions_of({gemma_parity_failure(r)});
  // Its 2.347× beats the predicted 1.157×, but wrong output contradicts no
  // model, and +38.05 % is no loss: the parity failure alone.
  ASSERT_EQ(cautions.size(), 1u);
  EXPECT_EQ(cautions[0].kind, CautionKind::parity_failure);
  EXPECT_EQ(
      cautions[0].text,
      "Also verify output parity before reusing aggressive authored rewrite (exp2, bf16 P.V accumulation) "
      "on `_fwd_grouped_kernel_stage1` (attn \u00b7 gfx950 \u00b7 decode; isl/osl/conc 1024/1024/64; "
      "model Model-A-35B): its output failed parity (reject reason parity_regression) in "
      "run `e2e_gemma` (2026-08-24, attempt `cand:cand__fwd_grouped_kernel_stage1_rewrite_aggr`), with "
      "isolated 2.347\u00d7, e2e +38.05 %, gate rejected; what broke: parity_regression: exp2 + bf16 P.V "
      "accumulation reorders the split-KV reduction; greedy outputs diverge on 9/16 prompts, gsm8k 5-shot "
      "n=200 0.885 -\\> 0.850.");
  EXPECT_FALSE(has_prohibition(cautions[0].text));
}

TEST(Cautions, AParityFailureIsRecognizedByEitherFieldAndQuotesABoundedReason)
{
  const auto r = make_run("run_p", "2026-08-24", "gfx950");
  // output_parity FAIL alone (any case), without a reason or a measurement.
  auto bare = make_attempt(r, "lever a", std::nullopt, std::nullopt);
  bare.output_parity = "FAIL";
  bare.attempt_key = "cand:a";
  // A reject reason alone: accuracy_regression, with a long reason cut at a word.
  auto accuracy = make_attempt(r, "lever b", 1.2, 0.3, "rejected");
  accuracy.short_name = "other_kernel";
  accuracy.reject_reason = "accuracy_regression";
  accuracy.reason = "accuracy_regression: " + std::string(60, 'x') + " " + std::string(200, 'y') + " tail";
  // Parity passed: no parity caution (its 1.2× at +0.3 % did not transfer).
  auto passed = make_attempt(r, "lever c", 1.2, 0.3, "rejected");
  passed.short_name = "third_kernel";
  passed.output_parity = "pass";
  const auto cautions = cautions_of({bare, accuracy, passed});
  ASSERT_EQ(cautions.size(), 3u);
  EXPECT_EQ(cautions[0].kind, CautionKind::parity_failure);
  EXPECT_EQ(cautions[0].short_name, "gemm_a8w8_kernel");
  EXPECT_NE(cautions[0].text.find("its output failed parity in run `run_p` (2026-08-24, attempt `cand:a`); "
                                  "what broke: no reason recorded."),
            std::string::npos)
      << cautions[0].text;
  EXPECT_EQ(cautions[1].kind, CautionKind::parity_failure);
  EXPECT_EQ(cautions[1].short_name, "other_kernel");
  EXPECT_NE(cautions[1].text.find("(reject reason accuracy_regression)"), std::string::npos)
      << cautions[1].text;
  // 240 code points at most: the 200 y's would cross it, so the cut falls
  // before them, at the space after the x's.
  EXPECT_NE(cautions[1].text.find("what broke: accuracy_regression: " + std::string(60, 'x') + "\u2026."),
            std::string::npos)
      << cautions[1].text;
  EXPECT_EQ(cautions[2].kind, CautionKind::no_transfer);
  EXPECT_EQ(cautions[2].short_name, "third_kernel");
}

TEST(Cautions, AnIsolatedWinInsideTheE2eBandDidNotTransfer)
{
  // The gemma dev run's launcher overlay on the 22.8 % split-KV decode kernel:
  // isolated 1.10× (Amdahl ceiling +2.07 %) measured +0.19 % end to end.
  const auto r = make_run("e2e_gemma", "2026-08-24", "gfx950");
  auto launcher = make_attempt(r, "launcher overlay (num_kv_splits 16, BLOCK_N 32)", 1.10, 0.19, "stack");
  launcher.short_name = "_fwd_grouped_kernel_stage1";
  launcher.op_class = "attn";
  launcher.attempt_key = "cand:cand__fwd_grouped_kernel_stage1";
  launcher.prediction.pct_gpu_time = 22.8;
  launcher.prediction.attainable_speedup = 1.157;
  const auto cautions = cautions_of({launcher});
  ASSERT_EQ(cautions.size(), 1u);
  EXPECT_EQ(cautions[0].kind, CautionKind::no_transfer);
  EXPECT_EQ(
      cautions[0].text,
      "Also verify the end-to-end transfer before reusing launcher overlay (num_kv_splits 16, BLOCK_N "
      "32) on `_fwd_grouped_kernel_stage1` (attn \u00b7 gfx950 \u00b7 decode; isl/osl/conc 1024/1024/64; "
      "model Model-A-35B): isolated 1.100\u00d7 did not transfer, e2e +0.19 % stayed inside the \u00b10.5 % "
      "noise band (Amdahl ceiling +2.07 %) in run `e2e_gemma` (2026-08-24, attempt "
      "`cand:cand__fwd_grouped_kernel_stage1`).");
  EXPECT_FALSE(has_prohibition(cautions[0].text));
}

TEST(Cautions, DidNotTransferHoldsOnlyInsideBothBands)
{
  const auto r = make_run("run_t", "2026-03-02", "gfx950");
  const auto kinds_of = [&](std::optional<double> iso, std::optional<double> e2e,
                            const std::function<void(AttemptInfo&)>& edit = {}) {
    auto a = make_attempt(r, "tile tune", iso, e2e, "rejected");
    a.prediction.attainable_speedup = 3.0; // no model contradiction below 3.102×
    if (edit) {
      edit(a);
    }
    std::vector<CautionKind> kinds;
    for (const auto& c : cautions_of({a})) {
      kinds.push_back(c.kind);
    }
    return kinds;
  };
  using K = std::vector<CautionKind>;
  // The example: isolated 2.577×, +0.18 % end to end.
  EXPECT_EQ(kinds_of(2.577, 0.18), K{CautionKind::no_transfer});
  EXPECT_EQ(kinds_of(1.035, 0.5), K{CautionKind::no_transfer}); // both edges inside
  EXPECT_EQ(kinds_of(1.035, -0.49), K{CautionKind::no_transfer});
  EXPECT_EQ(kinds_of(1.034, 0.18), K{});                    // isolated inside its band
  EXPECT_EQ(kinds_of(1.2, 0.51), K{});                      // transferred
  EXPECT_EQ(kinds_of(1.2, -0.5), K{CautionKind::e2e_loss}); // a loss, not a null
  EXPECT_EQ(kinds_of(1.2, std::nullopt), K{});              // e2e not measured
  EXPECT_EQ(kinds_of(1.2, 0.18, [](AttemptInfo& a) { a.measured = false; }), K{});
  EXPECT_EQ(kinds_of(1.2, 0.18, [](AttemptInfo& a) { a.reject_reason = "no_engagement"; }), K{});
  EXPECT_EQ(kinds_of(1.2, 0.18, [](AttemptInfo& a) { a.output_parity = "fail"; }),
            K{CautionKind::parity_failure});
  // Beyond the prediction too: both lessons.
  EXPECT_EQ(kinds_of(3.2, 0.18), (K{CautionKind::model_contradiction, CautionKind::no_transfer}));
}

TEST(Cautions, TheNewKindsAreCountedAndCappedByTheBoundedDigest)
{
  // 25 runs, each with a parity failure and a null that did not transfer
  // (50 run cautions, plus a duplicate of each in another attempt key).
  std::vector<AttemptInfo> attempts;
  for (int i = 0; i < 25; ++i) {
    const auto r = make_run(fmt::format("run_{:02}", i), fmt::format("2026-04-{:02}", 1 + i), "gfx950");
    for (const char* key : {"cand:b", "cand:a"}) {
      auto parity = gemma_parity_failure(r);
      parity.attempt_key = key;
      attempts.push_back(parity);
      auto null = make_attempt(r, "tile tune", 2.577, 0.18, "rejected");
      null.attempt_key = std::string(key) + "_null";
      null.prediction.attainable_speedup = 3.0; // no model contradiction
      attempts.push_back(null);
    }
  }
  std::reverse(attempts.begin(), attempts.end());
  ReportInput in;
  in.attempts = attempts;
  const auto every = build_cautions(in);
  ASSERT_EQ(every.size(), 50u);
  EXPECT_EQ(every[0].run_id, "run_24");
  EXPECT_EQ(every[0].kind, CautionKind::parity_failure);
  EXPECT_EQ(every[1].kind, CautionKind::no_transfer);
  AttemptDigest d;
  d.keep_all_cautions = false;
  for (const auto& a : attempts) {
    d.add(a);
  }
  EXPECT_EQ(d.distinct_run_cautions, 50u);
  ReportInput none;
  const auto shown = detail::finish_cautions(d.cautions, none);
  ASSERT_EQ(shown.size(), k_run_cautions);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    EXPECT_EQ(shown[i].text, every[i].text) << i;
  }
  // The playbook, from every caution or from the bounded digest, is the
  // same and says how many it left out.
  in.as_of = "2026-04-25";
  const std::string md = render_playbook(analyze(in));
  EXPECT_NE(md.find("The 20 newest run cautions and 0 newest imported ones are shown; 30 more: "
                    "`rfdb query playbook_cautions`"),
            std::string::npos)
      << md;
  auto bounded = std::make_shared<AttemptDigest>();
  bounded->keep_all_cautions = false;
  in.attempt_digest = bounded;
  EXPECT_EQ(render_playbook(analyze(in)), md);
}

TEST(Cautions, NewestRunFirstAndDeduplicated)
{
  const auto old_run = make_run("run_a", "2026-01-01", "gfx942");
  const auto new_run = make_run("run_b", "2026-03-02", "gfx942");
  const auto cautions =
      cautions_of({make_attempt(old_run, "x", 1.1, -1.0), make_attempt(new_run, "x", 1.1, -1.0),
                   make_attempt(new_run, "x", 1.2, -2.0)});
  ASSERT_EQ(cautions.size(), 2u);
  EXPECT_EQ(cautions[0].run_id, "run_b");
  EXPECT_EQ(cautions[1].run_id, "run_a");
}

TEST(Cautions, ImportedNegativesBecomeCautions)
{
  auto anti = make_card("a-wait-is-not-a-stall-moe-gfx950.md", "moe", "gfx950", "unknown",
                        "Read the dependency wait as occupancy, not a stall.", 2, "2026-02-10");
  anti.type = "anti-pattern";
  anti.effect = "0.85x overall after the rewrite; the wait was not the bottleneck.";
  anti.kind = domain::KnowledgeKind::negative;
  auto card =
      make_card("tuned-table-gfx942.md", "gemm", "gfx942", "prefill", "Retune the table.", 3, "2026-02-11");
  card.dead_ends = {"the framework-level tuning hook is bypassed by this dispatcher, so it never engages."};
  const auto cautions = cautions_of({}, {anti, card});
  ASSERT_EQ(cautions.size(), 2u);
  for (const auto& c : cautions) {
    EXPECT_EQ(c.kind, CautionKind::imported_negative);
    EXPECT_EQ(c.text.rfind("Also verify", 0), 0u) << c.text;
  }
  // A finding's own negative result first, then the dead ends of others.
  EXPECT_NE(cautions[0].text.find("type anti-pattern) records 0.85x overall after the rewrite"),
            std::string::npos)
      << cautions[0].text;
  EXPECT_NE(cautions[1].text.find("dead end recorded with Retune the table (gemm"), std::string::npos)
      << cautions[1].text;
  // A negative is never What works.
  ReportInput in = one_key_input();
  in.imported = {anti};
  EXPECT_TRUE(findings_of(in).empty());
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
  ASSERT_EQ(a.saturated.size(), 1u);
  EXPECT_EQ(a.saturated_heads, 1u);
  EXPECT_EQ(a.saturated[0].newest.short_name, "k_head");
  EXPECT_TRUE(a.saturated[0].newest.followed_by_byte_reduction);
}

TEST(SaturatedHeads, TheNewestPerKernelClassAndGfxIsShown)
{
  auto in = one_key_input();
  std::vector<HeadVerdict> heads;
  for (int i = 0; i < 30; ++i) {
    const auto r =
        make_run(fmt::format("r{:02}", i), fmt::format("2026-01-{:02}", i + 1), i % 2 ? "gfx950" : "gfx942");
    in.runs.push_back(r);
    heads.push_back(testing::make_head(r, "fused_moe_kernel", "moe", 26.0, 0.88, 0.9, "saturated"));
    heads.push_back(testing::make_head(r, "gemm_kernel", "gemm", 12.0, 0.86, 0.9, "saturated"));
  }
  in.heads = heads;
  const auto a = analyze(in);
  EXPECT_EQ(a.saturated_heads, 60u);
  ASSERT_EQ(a.saturated.size(), 4u); // gemm and moe × gfx942 and gfx950
  EXPECT_EQ(a.saturated[0].newest.op_class, "gemm");
  EXPECT_EQ(a.saturated[0].newest.gfx, "gfx942");
  EXPECT_EQ(a.saturated[0].newest.run_id, "r28");
  EXPECT_EQ(a.saturated[0].runs, 15u);
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

// The digest keeps every (run, kernel) routing quality may pick; with
// thousands of them arriving out of order, its table is compacted while
// attempts come in, and the best values must survive it.
TEST(Routing, RealizedGainsOfThousandsOfInterleavedPicksSurviveCompaction)
{
  AttemptDigest digest;
  digest.keep_all_cautions = false;
  std::map<std::pair<int, int>, std::pair<std::optional<double>, std::optional<double>>> expected;
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 0; i < 2000; ++i) {
      const RunInfo run = testing::make_run(fmt::format("run{:04d}", i), "2026-05-01", "gfx942");
      for (int k = 0; k < 3; ++k) {
        const double iso = 1.0 + ((i * 7 + k * 3 + pass * 5) % 11) / 10.0;
        const std::optional<double> e2e =
            (i + pass) % 4 == 0 ? std::nullopt : std::optional<double>(((i * 3 + k + pass * 2) % 9) - 4.0);
        auto a = testing::make_attempt(run, "lever", iso, e2e);
        a.short_name = fmt::format("kernel{}", k);
        a.attempt_key = fmt::format("{}|{}", a.short_name, pass);
        digest.add(a);
        auto& [best_e2e, best_iso] = expected[{i, k}];
        best_iso = std::max(best_iso.value_or(iso), iso);
        if (e2e) {
          best_e2e = std::max(best_e2e.value_or(*e2e), *e2e);
        }
      }
    }
  }
  digest.seal();
  for (const auto& [key, best] : expected) {
    const auto p = digest.realized(fmt::format("run{:04d}", key.first), fmt::format("kernel{}", key.second));
    ASSERT_EQ(p.best_isolated, best.second) << key.first << " " << key.second;
    ASSERT_EQ(p.best_e2e_pct, best.first) << key.first << " " << key.second;
  }
  // Spot values: run0007's kernel2 measured 1.0, 1.5 and 2.0× isolated and
  // +1.0 %, none and -4.0 % e2e in the three passes.
  EXPECT_EQ(digest.realized("run0007", "kernel2").best_isolated, 2.0);
  EXPECT_EQ(digest.realized("run0007", "kernel2").best_e2e_pct, 1.0);
  EXPECT_FALSE(digest.realized("run9999", "kernel0").best_isolated); // no such run
  EXPECT_FALSE(digest.realized("run0007", "kernel9").best_e2e_pct);  // no such kernel
  EXPECT_EQ(digest.realized("run0007", "kernel9").short_name, "kernel9");
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

TEST(Scope, ImportedKnowledgeNeverMovesTheDefaultAsOf)
{
  auto in = testing::canonical_input();
  in.as_of = "";
  in.imported = {make_card("late.md", "gemm", "gfx942", "decode", "late lever", 2, "2026-05-01")};
  auto a = analyze(in);
  EXPECT_EQ(a.as_of, "2026-03-02"); // the newest run, not the card
  const auto late = std::find_if(a.findings.begin(), a.findings.end(),
                                 [](const Finding& f) { return f.lever == "late lever"; });
  ASSERT_NE(late, a.findings.end());
  EXPECT_EQ(late->imported_last_seen, "2026-05-01"); // shown with its own date
  in.as_of = "2026-03-02";                           // an explicit --as-of leaves it out
  in.as_of_given = true;
  a = analyze(in);
  EXPECT_TRUE(std::none_of(a.findings.begin(), a.findings.end(),
                           [](const Finding& f) { return f.lever == "late lever"; }));
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
  EXPECT_EQ(md_text("a_b _c_ *d* <e> [f] x|y #1"), "a_b \\_c\\_ \\*d\\* \\<e\\> \\[f\\] x\\|y #1");
  EXPECT_EQ(md_text("#1 see https://example.com/x and a@b.c"),
            "\\#1 see <https://example.com/x> and a\\@b.c");
  EXPECT_EQ(md_code("fused_moe_kernel"), "`fused_moe_kernel`");
  EXPECT_EQ(md_code(""), "-");
  // Control characters and ill-formed UTF-8 from stored text never reach the
  // markdown raw: tabs and newlines fold to spaces, the rest become \xHH.
  EXPECT_EQ(one_line("a\tb\n c\x1b[0m\xff"), "a b c\\x1B[0m\\xFF");
  EXPECT_EQ(md_text("lever\x07 x"), "lever\\\\x07 x");
  EXPECT_EQ(md_code("k\x01"), "`k\\x01`");
}

} // namespace
} // namespace rfdb::report
