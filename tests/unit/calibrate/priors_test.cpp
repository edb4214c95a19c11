// Unit tests of the target_eff estimator and the e2e transfer (calibrate/priors.hpp).
#include "unit/calibrate/canonical.hpp"

#include "calibrate/observation_table.hpp"
#include "calibrate/priors.hpp"
#include "calibrate/priors_format.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>

namespace rfdb::calibrate {
namespace {

using test::canonical;
using test::canonical_attn;
using test::canonical_moe;

// A usable observation with e = roofline_pct × s (s well above the noise band).
Observation obs(std::string op_class, std::string gfx, std::string regime, double roofline_pct, double s,
                std::string confidence = "high", std::string date = "2025-05-01")
{
  Observation o = canonical_moe();
  o.run_id = "run_" + date;
  o.run_date = std::move(date);
  o.op_class = std::move(op_class);
  o.gfx = std::move(gfx);
  o.regime = std::move(regime);
  o.prediction.roofline_pct = roofline_pct;
  o.isolated_speedup = s;
  o.prediction.attainable_speedup = 10.0;
  o.prediction.confidence = std::move(confidence);
  o.e2e_delta_pct.reset();
  return o;
}

PriorsResult compute(const std::vector<Observation>& in, PriorsParams p = {})
{
  auto r = compute_priors(in, p);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().describe());
  return *r;
}

const PriorRow& row(const PriorsResult& r, std::string_view key)
{
  for (const PriorRow& x : r.priors) {
    if (row_key(x) == key) {
      return x;
    }
  }
  ADD_FAILURE() << "no row " << key;
  return r.priors.front();
}

// A varied history over all classes, two GPUs, two regimes and three dates.
std::vector<Observation> varied_history()
{
  std::vector<Observation> out;
  const std::array<std::string, 4> classes = {"gemm", "moe", "elementwise", "attn"};
  const std::array<std::string, 3> conf = {"high", "medium", "low"};
  const std::array<std::string, 3> dates = {"2025-01-10", "2025-03-02", "2025-05-20"};
  for (int i = 0; i < 48; ++i) {
    const auto u = static_cast<std::size_t>(i);
    Observation o = obs(classes[u % 4], i % 3 == 0 ? "gfx942" : "gfx950", i % 5 < 2 ? "prefill" : "decode",
                        0.2 + 0.013 * (i % 50), 1.05 + 0.07 * (i % 9), conf[u % 3], dates[u % 3]);
    o.run_id = "run_" + std::to_string(i % 7);
    o.round = std::to_string(i % 4);
    o.prediction.attainable_speedup = 1.0 + 0.1 * (i % 6);
    o.e2e_delta_pct = (i % 4 == 0) ? std::optional<double>(-1.0 + 0.3 * (i % 11)) : std::nullopt;
    out.push_back(o);
  }
  return out;
}

TEST(EvaluateAttempt, CanonicalMoeObservation)
{
  PriorsParams p;
  p.as_of = "2025-05-20";
  const auto ev = evaluate_attempt(canonical_moe(), p);
  EXPECT_FALSE(ev.excluded.has_value());
  EXPECT_NEAR(ev.e, 0.92136, 1e-12); // 0.88 × 1.047
  EXPECT_DOUBLE_EQ(ev.weight, 0.6);  // medium
  // 1.047 ≤ 1.023 × 1.034 = 1.057782: within the noise band of the prediction.
  EXPECT_FALSE(ev.contradiction);
}

TEST(EvaluateAttempt, CanonicalAttnObservationIsNotAContradiction)
{
  PriorsParams p;
  p.as_of = "2025-05-20";
  const auto ev = evaluate_attempt(canonical_attn(), p);
  EXPECT_FALSE(ev.excluded.has_value());
  EXPECT_NEAR(ev.e, 0.2808, 1e-12); // 0.18 × 1.56
  EXPECT_FALSE(ev.contradiction);   // 1.56 < 2.778
}

TEST(EvaluateAttempt, BeatingThePredictionBeyondNoiseIsAContradiction)
{
  PriorsParams p;
  p.as_of = "2025-05-20";
  Observation o = canonical_moe();
  o.isolated_speedup = 1.06; // > 1.023 × 1.034 = 1.057782
  EXPECT_TRUE(evaluate_attempt(o, p).contradiction);
}

TEST(EvaluateAttempt, MeasuredPostEfficiencyWins)
{
  PriorsParams p;
  p.as_of = "2025-05-20";
  Observation o = canonical_moe();
  o.post_efficiency = 0.83;
  const auto ev = evaluate_attempt(o, p);
  EXPECT_DOUBLE_EQ(ev.e, 0.83);
  EXPECT_TRUE(ev.e_from_post);
}

TEST(EvaluateAttempt, EfficiencyJustAboveOneIsClampedNotInfeasible)
{
  PriorsParams p;
  p.as_of = "2025-05-20";
  const auto ev = evaluate_attempt(obs("gemm", "gfx950", "decode", 0.98, 1.06), p); // 1.0388
  EXPECT_FALSE(ev.excluded.has_value());
  EXPECT_DOUBLE_EQ(ev.e, 1.0);
}

TEST(EvaluateAttempt, HalfLifeHalvesWeightPerHalfLife)
{
  PriorsParams p;
  p.as_of = "2025-05-31";
  p.half_life_days = 30.0;
  EXPECT_DOUBLE_EQ(evaluate_attempt(obs("gemm", "g", "r", 0.5, 1.5, "medium", "2025-05-31"), p).weight, 0.6);
  EXPECT_DOUBLE_EQ(evaluate_attempt(obs("gemm", "g", "r", 0.5, 1.5, "medium", "2025-05-01"), p).weight, 0.3);
  EXPECT_DOUBLE_EQ(evaluate_attempt(obs("gemm", "g", "r", 0.5, 1.5, "high", "2025-05-01"), p).weight, 0.5);
  EXPECT_DOUBLE_EQ(evaluate_attempt(obs("gemm", "g", "r", 0.5, 1.5, "low", "2025-04-01"), p).weight, 0.0625);
}

TEST(EvaluateAttempt, ExclusionReasonsInOrder)
{
  PriorsParams p;
  p.as_of = "2025-05-20";
  p.since = "2025-01-01";
  auto reason = [&](Observation o) { return evaluate_attempt(o, p).excluded; };
  Observation o = canonical_moe();
  o.run_date = "2025-5-20";
  EXPECT_EQ(reason(o), ExclusionReason::bad_run_date);
  o = canonical_moe();
  o.run_date = "2024-12-31";
  EXPECT_EQ(reason(o), ExclusionReason::before_since);
  o.run_date = "2025-05-21";
  EXPECT_EQ(reason(o), ExclusionReason::after_as_of);
  o = canonical_moe();
  o.op_class = "unknown";
  EXPECT_EQ(reason(o), ExclusionReason::unknown_class);
  o = canonical_moe();
  o.isolated_speedup.reset();
  EXPECT_EQ(reason(o), ExclusionReason::no_speedup);
  o.isolated_speedup = 1.034;  // exactly on the band edge: not a win
  o.prediction.suspect = true; // below_noise is reported first
  EXPECT_EQ(reason(o), ExclusionReason::below_noise);
  o.isolated_speedup = 1.2;
  EXPECT_EQ(reason(o), ExclusionReason::suspect);
  o.prediction.suspect = false;
  o.prediction.dispatch_bound = true;
  EXPECT_EQ(reason(o), ExclusionReason::dispatch_bound);
  o.prediction.dispatch_bound = false;
  o.prediction.headroom_class = "unknown";
  EXPECT_EQ(reason(o), ExclusionReason::unknown_headroom);
  o.prediction.headroom_class = "moderate";
  o.prediction.roofline_pct = 1.2;
  EXPECT_EQ(reason(o), ExclusionReason::bad_roofline_pct);
  o.prediction.roofline_pct = 0.5;
  o.post_efficiency = 0.0;
  EXPECT_EQ(reason(o), ExclusionReason::bad_post_efficiency);
  o.post_efficiency.reset();
  o.prediction.confidence = "stage-b";
  EXPECT_EQ(reason(o), ExclusionReason::unknown_confidence);
  o.prediction.confidence = "low";
  o.prediction.roofline_pct = 0.9; // e = 1.08 > 1.05
  EXPECT_EQ(reason(o), ExclusionReason::infeasible);
  EXPECT_TRUE(evaluate_attempt(o, p).contradiction);
  o.prediction.roofline_pct = 0.5;
  p.confidence_weights.low = 0.0;
  EXPECT_EQ(reason(o), ExclusionReason::zero_weight);
}

TEST(ComputePriors, CanonicalRunClassValues)
{
  const auto r = compute(canonical());
  ASSERT_EQ(r.priors.size(), 4U);
  EXPECT_EQ(r.as_of, "2025-05-20");
  const PriorRow& moe = row(r, "moe");
  EXPECT_EQ(moe.n, 1);
  EXPECT_DOUBLE_EQ(moe.weight, 0.6);
  EXPECT_NEAR(*moe.statistic, 0.92136, 1e-12);
  EXPECT_NEAR(moe.target_eff, 0.9049292308, 1e-9); // (2·0.90 + 0.6·0.92136) / 2.6
  EXPECT_EQ(moe.source, PriorSource::calibrated);
  EXPECT_EQ(moe.contradictions, 0);
  EXPECT_EQ(moe.last_seen, "2025-05-20");
  // One run: no interval (its observations say nothing about the next run).
  EXPECT_FALSE(moe.interval.has_value());
  EXPECT_EQ(moe.interval_reason, "one run");
  EXPECT_EQ(moe.runs, 1);
  const PriorRow& attn = row(r, "attn");
  EXPECT_NEAR(attn.target_eff, 0.4494154, 1e-7); // (2·0.50 + 0.6·0.2808) / 2.6
  EXPECT_LT(attn.target_eff, 0.50);
  EXPECT_EQ(attn.contradictions, 0);
  const PriorRow& gemm = row(r, "gemm");
  EXPECT_DOUBLE_EQ(gemm.target_eff, 0.90);
  EXPECT_EQ(gemm.n, 0);
  EXPECT_EQ(gemm.source, PriorSource::seed);
  EXPECT_FALSE(gemm.statistic.has_value());
  EXPECT_FALSE(gemm.interval.has_value());
  EXPECT_EQ(gemm.interval_reason, "no observations");
  EXPECT_DOUBLE_EQ(row(r, "elementwise").target_eff, 0.875);
  // Class order is fixed.
  EXPECT_EQ(r.priors[0].op_class, "gemm");
  EXPECT_EQ(r.priors[1].op_class, "moe");
  EXPECT_EQ(r.priors[2].op_class, "elementwise");
  EXPECT_EQ(r.priors[3].op_class, "attn");
}

TEST(ComputePriors, EmptyInputGivesTheSeeds)
{
  const auto r = compute({});
  EXPECT_FALSE(r.as_of.has_value());
  ASSERT_EQ(r.priors.size(), 4U);
  const std::array<double, 4> seeds = {0.90, 0.90, 0.875, 0.50};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.priors[i].n, 0);
    EXPECT_DOUBLE_EQ(r.priors[i].target_eff, seeds[i]);
    EXPECT_EQ(r.priors[i].source, PriorSource::seed);
    EXPECT_FALSE(r.priors[i].last_seen.has_value());
  }
  EXPECT_TRUE(r.e2e_transfer.empty());
  EXPECT_TRUE(r.excluded.empty());
}

TEST(ComputePriors, InfeasibleIsNoObservationButCountsTwice)
{
  auto in = canonical();
  in.push_back(obs("moe", "gfx950", "decode", 0.9, 1.2)); // e = 1.08 before clamping
  const auto r = compute(in);
  const PriorRow& moe = row(r, "moe");
  EXPECT_EQ(moe.n, 1);
  EXPECT_EQ(moe.infeasible, 1);
  EXPECT_EQ(moe.contradictions, 1);
  EXPECT_NEAR(moe.target_eff, 0.9049292308, 1e-9); // unchanged by it
  ASSERT_EQ(r.excluded.size(), 1U);
  EXPECT_EQ(r.excluded[0].reason, ExclusionReason::infeasible);
}

TEST(ComputePriors, UnusableAttemptsChangeNothing)
{
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx_regime;
  const std::string before = render_priors_json(compute(canonical(), p));
  auto in = canonical();
  Observation suspect = obs("moe", "gfx942", "prefill", 0.4, 2.0);
  suspect.prediction.suspect = true;
  Observation unknown = obs("attn", "gfx942", "decode", 0.3, 2.0);
  unknown.prediction.headroom_class = "unknown";
  Observation below = obs("moe", "gfx950", "decode", 0.99, 1.03);
  Observation dispatch = obs("gemm", "gfx90a", "decode", 0.1, 3.0);
  dispatch.prediction.dispatch_bound = true;
  Observation other = obs("unknown", "gfx950", "decode", 0.5, 1.5);
  in.insert(in.end(), {suspect, unknown, below, dispatch, other});
  const auto after = compute(in, p);
  EXPECT_EQ(render_priors_json(after), before);
  EXPECT_EQ(after.attempts, 7);
  EXPECT_EQ(after.observations, 2);
  ASSERT_EQ(after.excluded.size(), 5U); // one of each reason, in enum order
  EXPECT_EQ(after.excluded[0].reason, ExclusionReason::unknown_class);
  EXPECT_EQ(after.excluded[1].reason, ExclusionReason::below_noise);
  EXPECT_EQ(after.excluded[2].reason, ExclusionReason::suspect);
  EXPECT_EQ(after.excluded[3].reason, ExclusionReason::dispatch_bound);
  EXPECT_EQ(after.excluded[4].reason, ExclusionReason::unknown_headroom);
}

TEST(ComputePriors, InputOrderDoesNotChangeOutput)
{
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx_regime;
  p.half_life_days = 45.0;
  auto in = varied_history();
  const std::string expected = render_priors_json(compute(in, p));
  std::mt19937 shuffler(2025);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(in.begin(), in.end(), shuffler);
    EXPECT_EQ(render_priors_json(compute(in, p)), expected);
  }
  std::reverse(in.begin(), in.end());
  EXPECT_EQ(render_priors_json(compute(in, p)), expected);
}

TEST(ComputePriors, SameInputsGiveByteIdenticalJson)
{
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx;
  const auto in = varied_history();
  const std::string a = render_priors_json(compute(in, p));
  EXPECT_EQ(render_priors_json(compute(in, p)), a);
  // A different seed moves the intervals, so the seed is what fixes them.
  p.seed = 99;
  EXPECT_NE(render_priors_json(compute(in, p)), a);
}

TEST(ComputePriors, EveryTargetEffInUnitInterval)
{
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx_regime;
  p.prior_strength = 0.0; // no shrinkage: the raw quantile must still be in range
  auto in = varied_history();
  for (int i = 0; i < 10; ++i) {
    in.push_back(obs("gemm", "gfx950", "decode", 1.0, 1.05));  // e clamps to 1
    in.push_back(obs("attn", "gfx950", "decode", 0.001, 1.5)); // e = 0.0015
  }
  for (const auto& r : compute(in, p).priors) {
    EXPECT_GT(r.target_eff, 0.0) << row_key(r);
    EXPECT_LE(r.target_eff, 1.0) << row_key(r);
    if (r.interval) {
      EXPECT_GT(r.interval->lo, 0.0);
      EXPECT_LE(r.interval->lo, r.interval->hi);
      EXPECT_LE(r.interval->hi, 1.0);
    }
  }
}

TEST(ComputePriors, RaisingAnObservationNeverLowersTheValue)
{
  // t is monotone in every e_j: the quantile cannot fall and W is unchanged.
  // (Raised up to 1.0 only: past 1.05 it would become infeasible, not higher.)
  auto in = varied_history();
  const auto base = compute(in);
  PriorsParams p;
  p.as_of = *base.as_of;
  int raised_count = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto ev = evaluate_attempt(in[i], p);
    if (ev.excluded) {
      continue;
    }
    auto raised = in;
    raised[i].prediction.roofline_pct = std::min(1.0, ev.e + 0.1) / *in[i].isolated_speedup;
    const auto r = compute(raised);
    EXPECT_GE(row(r, in[i].op_class).target_eff, row(base, in[i].op_class).target_eff) << i;
    ++raised_count;
  }
  EXPECT_GT(raised_count, 30);
}

TEST(ComputePriors, AddingAnObservationAboveTheValueNeverLowersIt)
{
  // When the evidence sits at or above the parent (q ≥ seed, hence t ≤ q), an
  // added observation at or above q raises or keeps t:
  // t' − t = [W·(q' − q) + w'·(q' − t)] / (k + W') with q' ≥ q ≥ t.
  // Each observation on its own kernel: none shares a prediction, so no
  // weight is split.
  std::vector<Observation> in = {obs("gemm", "g", "r", 0.6, 1.6, "low"),    // e 0.96
                                 obs("gemm", "g", "r", 0.5, 1.9, "medium"), // e 0.95
                                 obs("gemm", "g", "r", 0.7, 1.3, "high")};  // e 0.91
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i].short_name = "kernel_" + std::to_string(i);
  }
  PriorRow gemm = row(compute(in), "gemm");
  EXPECT_NEAR(*gemm.statistic, 0.95, 1e-12);      // W 1.85, target 1.3875: 0.91 → 1, 0.95 → 1.6
  for (const double s : {1.36, 1.4, 1.45, 1.5}) { // e = 0.7·s: 0.952, 0.98, 1.0, 1.0
    ASSERT_GE(0.7 * s, *gemm.statistic);
    in.push_back(obs("gemm", "g", "r", 0.7, s, "high"));
    in.back().short_name = "kernel_" + std::to_string(in.size());
    const PriorRow next = row(compute(in), "gemm");
    EXPECT_GE(next.target_eff, gemm.target_eff) << s;
    gemm = next;
  }
  EXPECT_NEAR(*gemm.statistic, 1.0, 1e-12);
}

TEST(ComputePriors, AddedEvidenceCanLowerTheValueWhenTheQuantileIsBelowTheParent)
{
  // The "never lowers" holds only when q ≥ parent: here q = 0.5 < 0.90,
  // k = 2: t = (2·0.9 + 1·0.5)/3 = 0.766667; adding e = 0.85 (> t) at weight
  // 0.25 leaves q at 0.5 and adds weight to it: t = (1.8 + 1.25·0.5)/3.25 = 0.746154.
  std::vector<Observation> in = {obs("gemm", "g", "r", 0.25, 2.0, "high")};
  EXPECT_NEAR(row(compute(in), "gemm").target_eff, 2.3 / 3.0, 1e-12);
  in.push_back(obs("gemm", "g", "r", 0.5, 1.7, "low"));
  EXPECT_NEAR(row(compute(in), "gemm").target_eff, 2.425 / 3.25, 1e-12);
}

TEST(ComputePriors, HierarchyShrinksEachLevelTowardItsParent)
{
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx_regime;
  // moe: gfx950/decode e 0.95 (high), gfx942/prefill e 0.80 (high).
  // attn: gfx942/decode e 0.40 (high) only.
  const std::vector<Observation> in = {obs("moe", "gfx950", "decode", 0.5, 1.9),
                                       obs("moe", "gfx942", "prefill", 0.5, 1.6),
                                       obs("attn", "gfx942", "decode", 0.2, 2.0)};
  const auto r = compute(in, p);
  std::vector<std::string> keys;
  for (const auto& x : r.priors) {
    keys.push_back(row_key(x));
  }
  // gfx set {gfx942, gfx950}; regimes per gfx: gfx942 {decode, prefill}, gfx950 {decode}.
  const std::vector<std::string> expected_keys = {"gemm",
                                                  "gemm:gfx942",
                                                  "gemm:gfx942:decode",
                                                  "gemm:gfx942:prefill",
                                                  "gemm:gfx950",
                                                  "gemm:gfx950:decode",
                                                  "moe",
                                                  "moe:gfx942",
                                                  "moe:gfx942:decode",
                                                  "moe:gfx942:prefill",
                                                  "moe:gfx950",
                                                  "moe:gfx950:decode",
                                                  "elementwise",
                                                  "elementwise:gfx942",
                                                  "elementwise:gfx942:decode",
                                                  "elementwise:gfx942:prefill",
                                                  "elementwise:gfx950",
                                                  "elementwise:gfx950:decode",
                                                  "attn",
                                                  "attn:gfx942",
                                                  "attn:gfx942:decode",
                                                  "attn:gfx942:prefill",
                                                  "attn:gfx950",
                                                  "attn:gfx950:decode"};
  EXPECT_EQ(keys, expected_keys);
  // k = 2. moe class: W 2, q = 0.95 (target 1.5: 0.80 → 1, 0.95 → 2);
  // t = (1.8 + 1.9)/4 = 0.925.
  const double moe = row(r, "moe").target_eff;
  EXPECT_NEAR(moe, 0.925, 1e-12);
  // Each observation counts once on the path from the seed (issue 9):
  // moe:gfx950 = shrink(shrink(0.90, moe minus gfx950 = {0.80}), {0.95})
  //            = shrink((1.8 + 0.80)/3 = 0.866667, {0.95})
  //            = (1.733333 + 0.95)/3 = 0.894444.
  EXPECT_NEAR(row(r, "moe:gfx950").parent, 2.6 / 3.0, 1e-12);
  EXPECT_NEAR(row(r, "moe:gfx950").target_eff, (2.0 * 2.6 / 3.0 + 0.95) / 3.0, 1e-12);
  // moe:gfx950:decode holds the same evidence as moe:gfx950 (gfx950 minus
  // decode is empty), so it has the same value: no second shrink.
  EXPECT_NEAR(row(r, "moe:gfx950:decode").parent, 2.6 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(row(r, "moe:gfx950:decode").target_eff, row(r, "moe:gfx950").target_eff);
  // moe:gfx942 = shrink((1.8 + 0.95)/3 = 0.916667, {0.80}) = (1.833333 + 0.80)/3 = 0.877778;
  // its decode child has no evidence → its parent's value.
  EXPECT_NEAR(row(r, "moe:gfx942").target_eff, (2.0 * 2.75 / 3.0 + 0.80) / 3.0, 1e-12);
  const PriorRow& empty = row(r, "moe:gfx942:decode");
  EXPECT_EQ(empty.source, PriorSource::parent);
  EXPECT_EQ(empty.n, 0);
  EXPECT_DOUBLE_EQ(empty.target_eff, row(r, "moe:gfx942").target_eff);
  EXPECT_FALSE(empty.interval.has_value());
  // attn: class (1.0 + 0.4)/3 = 0.466667. attn:gfx950 has nothing, and attn
  // minus gfx950 = {0.40}, so it shows the class value 0.466667 (source parent).
  EXPECT_NEAR(row(r, "attn").target_eff, 1.4 / 3.0, 1e-12);
  EXPECT_EQ(row(r, "attn:gfx950").source, PriorSource::parent);
  EXPECT_NEAR(row(r, "attn:gfx950").target_eff, 1.4 / 3.0, 1e-12);
  // attn:gfx942 holds all of attn's evidence: exactly the class value.
  EXPECT_DOUBLE_EQ(row(r, "attn:gfx942").target_eff, row(r, "attn").target_eff);
  EXPECT_EQ(row(r, "moe:gfx950").runs, 1);
  EXPECT_EQ(row(r, "gemm:gfx942").source, PriorSource::parent);
  EXPECT_DOUBLE_EQ(row(r, "gemm:gfx942").target_eff, 0.90);
  EXPECT_EQ(row(r, "gemm").source, PriorSource::seed);
}

TEST(ComputePriors, ClassLevelPrintsOnlyClasses)
{
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx;
  const auto r = compute(canonical(), p);
  ASSERT_EQ(r.priors.size(), 8U); // 4 classes × {class, gfx950}
  EXPECT_EQ(row_key(r.priors[1]), "gemm:gfx950");
  EXPECT_FALSE(r.priors[1].regime.has_value());
}

TEST(ComputePriors, SinceAndAsOfBoundTheEvidence)
{
  std::vector<Observation> in = {obs("gemm", "g", "r", 0.5, 1.9, "high", "2025-01-01"),
                                 obs("gemm", "g", "r", 0.3, 2.0, "high", "2025-03-01"),
                                 obs("gemm", "g", "r", 0.4, 2.0, "high", "2025-06-01")};
  PriorsParams p;
  p.since = "2025-02-01";
  p.as_of = "2025-05-01";
  const auto r = compute(in, p);
  const PriorRow& gemm = row(r, "gemm");
  EXPECT_EQ(gemm.n, 1);
  EXPECT_NEAR(*gemm.statistic, 0.6, 1e-12);
  EXPECT_EQ(gemm.last_seen, "2025-03-01");
  ASSERT_EQ(r.excluded.size(), 2U);
  EXPECT_EQ(r.excluded[0].reason, ExclusionReason::before_since);
  EXPECT_EQ(r.excluded[1].reason, ExclusionReason::after_as_of);
  // Without as_of the newest run date is used.
  EXPECT_EQ(compute(in).as_of, "2025-06-01");
}

TEST(ComputePriors, HalfLifeDownweightsOldEvidence)
{
  // Two high-confidence observations: e 0.5 (60 days old → w 0.25), e 0.95
  // (today → w 1). W 1.25, target 0.9375: 0.5 → 0.25, 0.95 → 1.25 → q 0.95.
  // k = 2: t = (1.8 + 1.25·0.95)/3.25 = 0.919231.
  std::vector<Observation> in = {obs("gemm", "g", "r", 0.25, 2.0, "high", "2025-03-02"),
                                 obs("gemm", "g", "r", 0.5, 1.9, "high", "2025-05-01")};
  PriorsParams p;
  p.half_life_days = 30.0;
  const PriorRow gemm = row(compute(in, p), "gemm");
  EXPECT_NEAR(gemm.weight, 1.25, 1e-12);
  EXPECT_NEAR(*gemm.statistic, 0.95, 1e-12);
  EXPECT_NEAR(gemm.target_eff, (1.8 + 1.25 * 0.95) / 3.25, 1e-12);
}

TEST(ComputePriors, IntervalBracketsSpreadEvidence)
{
  std::vector<Observation> in;
  for (int i = 0; i < 12; ++i) {
    in.push_back(obs("elementwise", "g", "r", 0.3 + 0.05 * i, 1.5, "high"));
    in.back().run_id = "run_" + std::to_string(i);
  }
  const PriorRow r = row(compute(in), "elementwise");
  ASSERT_TRUE(r.interval.has_value());
  EXPECT_EQ(r.interval_reason, "");
  EXPECT_LT(r.interval->lo, r.interval->hi);
  EXPECT_LE(r.interval->lo, r.target_eff);
  EXPECT_GE(r.interval->hi, r.target_eff);
  PriorsParams none;
  none.bootstrap_resamples = 0;
  EXPECT_FALSE(row(compute(in, none), "elementwise").interval.has_value());
  EXPECT_EQ(row(compute(in, none), "elementwise").interval_reason, "not computed");
  // The same values from one run: however spread, no interval.
  for (Observation& o : in) {
    o.run_id = "one_run";
  }
  const PriorRow one = row(compute(in), "elementwise");
  EXPECT_EQ(one.n, 9); // e = 1.5·(0.3 + 0.05·i) > 1.05 from i = 9 on: infeasible
  EXPECT_EQ(one.runs, 1);
  EXPECT_FALSE(one.interval.has_value());
  EXPECT_EQ(one.interval_reason, "one run");
}

Observation transfer(double pct, double s, std::optional<double> d, std::string regime = "decode",
                     std::string date = "2025-05-01")
{
  Observation o = obs("moe", "gfx950", std::move(regime), 0.5, s, "high", std::move(date));
  o.prediction.pct_gpu_time = pct;
  o.e2e_delta_pct = d;
  return o;
}

TEST(E2eTransfer, ShrunkLowerCeilingWeightedMedianOverRuns)
{
  // c = pct × (1 − 1/s), x = clamp(d/c, −1, 2):
  //   run A: 20 %, 1.25× → c 4.0,    d  2.0 → x 0.5
  //   run B: 10 %, 2.0×  → c 5.0,    d  3.0 → x 0.6
  //   run C:  1 %, 1.01× → c 0.0099, d  0.4 → 40.4, clamped to 2
  //   run D:  6 %, 1.5×  → c 2.0,    d −1.0 → −0.5 (a sign flip)
  // Lower c-weighted median: Σc 11.0099, half 5.505; ascending −0.5 (2.0),
  // 0.5 (cum 6.0 ≥ 5.505) → m = 0.5. n = 4 runs: (3 + 4·0.5)/(3 + 4) = 5/7.
  std::vector<Observation> in = {transfer(20, 1.25, 2.0, "decode", "2025-05-01"),
                                 transfer(10, 2.0, 3.0, "decode", "2025-05-02"),
                                 transfer(1, 1.01, 0.4, "decode", "2025-05-03"),
                                 transfer(6, 1.5, -1.0, "decode", "2025-05-04"),
                                 transfer(50, 0.9, 5.0),             // s ≤ 1: no ceiling
                                 transfer(50, 1.5, std::nullopt),    // no e2e measurement
                                 transfer(3, 1.5, -0.2, "prefill")}; // own key, not a flip
  const auto r = compute(in);
  ASSERT_EQ(r.e2e_transfer.size(), 2U);
  const TransferRow& decode = r.e2e_transfer[0];
  EXPECT_EQ(decode.op_class, "moe");
  EXPECT_EQ(decode.regime, "decode");
  EXPECT_EQ(decode.n, 4);
  EXPECT_EQ(decode.attempts, 4);
  ASSERT_TRUE(decode.statistic.has_value());
  EXPECT_NEAR(*decode.statistic, 0.5, 1e-12);
  EXPECT_NEAR(decode.median_ratio, 5.0 / 7.0, 1e-12);
  EXPECT_EQ(decode.source, TransferSource::calibrated);
  EXPECT_EQ(decode.sign_flips, 1);
  EXPECT_EQ(decode.beyond_ceiling, 1); // run C: d 0.4 > c 0.0099
  ASSERT_TRUE(decode.interval.has_value());
  // The bootstrap of m over runs (−1 ≤ m ≤ 2 after the clamp), widened to
  // take in median_ratio.
  EXPECT_GE(decode.interval->lo, -1.0);
  EXPECT_LE(decode.interval->hi, 2.0);
  EXPECT_LE(decode.interval->lo, decode.median_ratio);
  EXPECT_GE(decode.interval->hi, decode.median_ratio);
  // One run: the raw Amdahl ceiling (ratio 1), whatever its x.
  const TransferRow& prefill = r.e2e_transfer[1];
  EXPECT_EQ(prefill.regime, "prefill");
  EXPECT_EQ(prefill.n, 1);
  EXPECT_DOUBLE_EQ(prefill.median_ratio, 1.0);
  EXPECT_EQ(prefill.source, TransferSource::raw);
  EXPECT_FALSE(prefill.statistic.has_value());
  EXPECT_FALSE(prefill.interval.has_value());
  EXPECT_EQ(prefill.sign_flips, 0);
}

TEST(E2eTransfer, RunsNotAttemptsCountAndTheClampBoundsALoss)
{
  // Two attempts of one run are n = 1: still raw.
  std::vector<Observation> one_run = {transfer(20, 1.25, 2.0), transfer(10, 2.0, 3.0)};
  const auto r1 = compute(one_run);
  ASSERT_EQ(r1.e2e_transfer.size(), 1U);
  EXPECT_EQ(r1.e2e_transfer[0].n, 1);
  EXPECT_EQ(r1.e2e_transfer[0].attempts, 2);
  EXPECT_DOUBLE_EQ(r1.e2e_transfer[0].median_ratio, 1.0);
  // Two runs that lost far beyond their ceiling: x clamps to −1, so
  // m = −1 and the ratio is (3 − 2)/5 = 0.2, not −11.
  std::vector<Observation> losses = {transfer(2, 1.2, -20.0, "decode", "2025-05-01"),
                                     transfer(2, 1.2, -15.0, "decode", "2025-05-02")};
  const auto r2 = compute(losses);
  EXPECT_NEAR(*r2.e2e_transfer[0].statistic, -1.0, 1e-12);
  EXPECT_NEAR(r2.e2e_transfer[0].median_ratio, 0.2, 1e-12);
}

TEST(E2eTransfer, ParityFailedAndUnengagedAttemptsAreLeftOut)
{
  Observation wrong = transfer(20, 2.0, 30.0, "decode", "2025-05-03");
  wrong.output_parity = "fail";
  Observation unengaged = transfer(20, 1.2, -0.2, "decode", "2025-05-04");
  unengaged.reject_reason = "no_engagement";
  std::vector<Observation> in = {transfer(20, 1.25, 2.0, "decode", "2025-05-01"),
                                 transfer(10, 2.0, 3.0, "decode", "2025-05-02"), wrong, unengaged};
  const auto r = compute(in);
  ASSERT_EQ(r.e2e_transfer.size(), 1U);
  EXPECT_EQ(r.e2e_transfer[0].n, 2);
  EXPECT_EQ(r.e2e_transfer[0].attempts, 2);
  // x 0.5 (c 4) and 0.6 (c 5): half of 9 is 4.5 → m 0.6; (3 + 1.2)/5 = 0.84.
  EXPECT_NEAR(r.e2e_transfer[0].median_ratio, 0.84, 1e-12);
}

TEST(E2eTransfer, HalfLifeWeighsOlderCeilingsLess)
{
  // Runs 0 and 10 days before as_of: x 0.5 (c 4.0) and x 0.6 (c 5.0).
  std::vector<Observation> in = {transfer(20, 1.25, 2.0, "decode", "2025-05-01"),
                                 transfer(10, 2.0, 3.0, "decode", "2025-05-11")};
  PriorsParams p;
  const auto plain = compute(in, p);
  EXPECT_NEAR(*plain.e2e_transfer[0].statistic, 0.6, 1e-12); // half of 9 = 4.5 > 4 → 0.6
  // Half-life 10 days: the old run's c is 4·0.5 = 2, the new one's 5: still 0.6.
  // Reverse the ages: the new run has x 0.5 with c 4, the old x 0.6 with
  // c 5·0.5 = 2.5: half of 6.5 = 3.25 ≤ 4 → m = 0.5.
  std::vector<Observation> rev = {transfer(20, 1.25, 2.0, "decode", "2025-05-11"),
                                  transfer(10, 2.0, 3.0, "decode", "2025-05-01")};
  p.half_life_days = 10.0;
  EXPECT_NEAR(*compute(rev, p).e2e_transfer[0].statistic, 0.5, 1e-12);
  PriorsParams no_decay;
  EXPECT_NEAR(*compute(rev, no_decay).e2e_transfer[0].statistic, 0.6, 1e-12);
}

TEST(E2eTransfer, CanonicalMoeRatioIsRawFromOneRun)
{
  const auto r = compute(canonical());
  ASSERT_EQ(r.e2e_transfer.size(), 1U);
  // c = 26.45 × (1 − 1/1.047) = 1.187345; one run → ratio 1 (raw ceiling).
  EXPECT_EQ(r.e2e_transfer[0].n, 1);
  EXPECT_DOUBLE_EQ(r.e2e_transfer[0].median_ratio, 1.0);
  EXPECT_EQ(r.e2e_transfer[0].source, TransferSource::raw);
  EXPECT_EQ(r.e2e_transfer[0].sign_flips, 0);
}

TEST(ParityFail, IsNoObservationUnlessAskedFor)
{
  // e = 0.5 × 1.9 = 0.95 would lift attn; its output was wrong.
  Observation wrong = obs("attn", "gfx950", "decode", 0.5, 1.9);
  wrong.reject_reason = "parity_regression";
  EXPECT_TRUE(parity_failed(wrong));
  const auto r = compute({wrong});
  EXPECT_EQ(row(r, "attn").n, 0);
  EXPECT_DOUBLE_EQ(row(r, "attn").target_eff, 0.50);
  ASSERT_EQ(r.excluded.size(), 1U);
  EXPECT_EQ(r.excluded[0].reason, ExclusionReason::parity_fail);
  PriorsParams p;
  p.include_parity_fail = true;
  // k = 2: (2·0.5 + 1·0.95)/3 = 0.65.
  EXPECT_NEAR(row(compute({wrong}, p), "attn").target_eff, 0.65, 1e-12);
  Observation fail = obs("attn", "gfx950", "decode", 0.5, 1.9);
  fail.output_parity = "fail";
  EXPECT_TRUE(parity_failed(fail));
  Observation accuracy = obs("attn", "gfx950", "decode", 0.5, 1.9);
  accuracy.reject_reason = "accuracy_regression";
  EXPECT_TRUE(parity_failed(accuracy));
  EXPECT_FALSE(parity_failed(obs("attn", "gfx950", "decode", 0.5, 1.9)));
}

TEST(BiasedProfiler, IsNoObservationUnlessAskedFor)
{
  // e = 0.5 × 1.9 = 0.95 on a measured roofline that under-counts HBM bytes
  // (profiler_hbm_undercount); an unflagged attn observation e = 0.5 × 1.4 = 0.7.
  Observation biased = obs("attn", "gfx950", "decode", 0.5, 1.9);
  biased.prediction.source_kind = "measured";
  biased.profiler_hbm_undercount = true;
  Observation clean = obs("attn", "gfx950", "decode", 0.5, 1.4, "high", "2025-05-02");
  const auto r = compute({biased, clean});
  EXPECT_EQ(r.observations, 1);
  ASSERT_EQ(r.excluded.size(), 1U);
  EXPECT_EQ(r.excluded[0].reason, ExclusionReason::biased_profiler);
  EXPECT_EQ(r.excluded[0].count, 1);
  EXPECT_STREQ(to_string(ExclusionReason::biased_profiler), "biased_profiler");
  // k = 2: (2·0.5 + 1·0.7)/3 = 0.566667.
  EXPECT_EQ(row(r, "attn").n, 1);
  EXPECT_NEAR(row(r, "attn").target_eff, 1.7 / 3.0, 1e-12);
  EXPECT_EQ(row(r, "attn").measured, 0);
  PriorsParams p;
  p.include_biased_profiler = true;
  const auto all = compute({biased, clean}, p);
  EXPECT_TRUE(all.excluded.empty());
  EXPECT_EQ(row(all, "attn").n, 2);
  EXPECT_EQ(row(all, "attn").measured, 1);
  EXPECT_GT(row(all, "attn").target_eff, row(r, "attn").target_eff);
  // The exclusion is judged after the outcome checks: a flagged attempt in the
  // noise band stays below_noise.
  Observation flat = obs("attn", "gfx950", "decode", 0.5, 1.01);
  flat.profiler_hbm_undercount = true;
  EXPECT_EQ(evaluate_attempt(flat, {}).excluded, ExclusionReason::below_noise);
}

// Issue 28: intervals over runs, split weights, the capped ratio.

// An observation of elementwise on its own kernel in `run` (w 1: high).
Observation in_run(const std::string& run, const std::string& kernel, double e)
{
  Observation o = obs("elementwise", "gfx950", "decode", e / 2.0, 2.0, "high");
  o.run_id = run;
  o.short_name = kernel;
  return o;
}

TEST(ClusterBootstrap, ResamplesRunsNotObservationsWorkedByHand)
{
  // k = 0, so target_eff = q. Run A holds three observations e 0.2, 0.3, 0.4
  // (three kernels), run B one, e 0.9; all w 1. q of all four: 0.75·4 = 3 is
  // reached at 0.4. A resample draws two runs:
  //   {A, A}: 0.2, 0.3, 0.4 twice each → q 0.4     (probability 1/4)
  //   {A, B}: the original sample     → q 0.4     (1/2)
  //   {B, B}: 0.9 twice                → q 0.9     (1/4)
  // so the 5th percentile of the resampled q is 0.4 and the 95th 0.9. (Over
  // observations, a resample with three of {0.2, 0.3} has q ≤ 0.3 with
  // probability P(Bin(4, 1/2) ≥ 3) = 5/16, far above 5 %: the observation
  // bootstrap's interval would start at 0.3 or lower.)
  const std::vector<Observation> in = {in_run("A", "k1", 0.2), in_run("A", "k2", 0.3), in_run("A", "k3", 0.4),
                                       in_run("B", "k1", 0.9)};
  PriorsParams p;
  p.prior_strength = 0.0;
  const PriorRow r = row(compute(in, p), "elementwise");
  EXPECT_EQ(r.n, 4);
  EXPECT_EQ(r.runs, 2);
  EXPECT_NEAR(r.target_eff, 0.4, 1e-12);
  ASSERT_TRUE(r.interval.has_value());
  EXPECT_DOUBLE_EQ(r.interval->lo, 0.4);
  EXPECT_DOUBLE_EQ(r.interval->hi, 0.9);
}

TEST(ClusterBootstrap, MatchesABruteForceEnumerationOfRunDraws)
{
  // Three runs; every ordered draw of three runs (27, equally likely) gives
  // the exact bootstrap distribution of q. The Monte-Carlo interval (1000
  // resamples) must land on its 5th and 95th percentiles; the sample is built
  // so that no step of the exact CDF lies near 5 % or 95 %.
  const std::vector<Observation> in = {in_run("A", "k1", 0.30), in_run("A", "k2", 0.50),
                                       in_run("B", "k1", 0.60), in_run("B", "k2", 0.62),
                                       in_run("B", "k3", 0.64), in_run("C", "k1", 0.80)};
  PriorsParams p;
  p.prior_strength = 0.0;
  const PriorRow r = row(compute(in, p), "elementwise");
  ASSERT_TRUE(r.interval.has_value());
  const std::vector<std::vector<double>> runs = {{0.30, 0.50}, {0.60, 0.62, 0.64}, {0.80}};
  std::vector<double> qs;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      for (int c = 0; c < 3; ++c) {
        std::vector<WeightedValue> sample;
        for (const int run : {a, b, c}) {
          for (const double e : runs[static_cast<std::size_t>(run)]) {
            sample.push_back({e, 1.0});
          }
        }
        qs.push_back(*weighted_quantile(sample, 0.75));
      }
    }
  }
  std::sort(qs.begin(), qs.end());
  // Exact 5th / 95th percentiles: the smallest q with CDF ≥ 0.05, resp. ≥ 0.95.
  const auto exact = [&](double level) {
    for (std::size_t i = 0; i < qs.size(); ++i) {
      if (static_cast<double>(i + 1) / 27.0 >= level) {
        return qs[i];
      }
    }
    return qs.back();
  };
  // The CDF steps are multiples of 1/27 = 0.037: 0.05 falls between 1/27 and
  // 2/27 and 0.95 between 25/27 and 26/27, both far from a step.
  EXPECT_DOUBLE_EQ(r.interval->lo, std::min(exact(0.05), r.target_eff));
  EXPECT_DOUBLE_EQ(r.interval->hi, std::max(exact(0.95), r.target_eff));
  EXPECT_DOUBLE_EQ(exact(0.05), 0.5); // {A, A, A}: q 0.5 is the only draw below
  EXPECT_DOUBLE_EQ(exact(0.95), 0.8); // {C, C, C} and draws heavy in C
}

TEST(ClusterBootstrap, OneRunHasNoIntervalAndInputOrderDoesNotMatter)
{
  std::vector<Observation> in = {in_run("A", "k1", 0.5), in_run("A", "k2", 0.7), in_run("B", "k1", 0.6),
                                 in_run("C", "k1", 0.8), in_run("C", "k2", 0.55)};
  const PriorRow forward = row(compute(in), "elementwise");
  std::reverse(in.begin(), in.end());
  const PriorRow backward = row(compute(in), "elementwise");
  ASSERT_TRUE(forward.interval && backward.interval);
  EXPECT_EQ(forward.interval->lo, backward.interval->lo);
  EXPECT_EQ(forward.interval->hi, backward.interval->hi);
  const PriorRow one = row(compute({in_run("A", "k1", 0.5), in_run("A", "k2", 0.7)}), "elementwise");
  EXPECT_EQ(one.n, 2);
  EXPECT_EQ(one.runs, 1);
  EXPECT_FALSE(one.interval.has_value());
  EXPECT_EQ(one.interval_reason, "one run");
}

TEST(SplitWeights, CandidatesOnOnePredictionShareOneUnit)
{
  // Run A: four candidates on kernel K, one prediction (roofline_pct 0.4,
  // high): e 0.60, 0.64, 0.68, 0.72, each w 1/4. Run B: kernel L, e 0.80, w 1.
  // W = 2; 0.75·2 = 1.5 is reached at 0.80 (cumulative 0.25, 0.5, 0.75, 1, 2):
  // q = 0.80, t = (2·0.90 + 2·0.80)/4 = 0.85. Unsplit, W would be 5 and
  // q 0.72 (cumulative 1, 2, 3, 4 ≥ 3.75): t = (1.8 + 3.6)/7 = 0.771429.
  std::vector<Observation> in;
  for (const double s : {1.5, 1.6, 1.7, 1.8}) {
    Observation o = obs("gemm", "gfx942", "decode", 0.4, s, "high");
    o.run_id = "A";
    o.short_name = "K";
    in.push_back(o);
  }
  Observation b = obs("gemm", "gfx942", "decode", 0.5, 1.6, "high");
  b.run_id = "B";
  b.short_name = "L";
  in.push_back(b);
  const PriorRow gemm = row(compute(in), "gemm");
  EXPECT_EQ(gemm.n, 5);
  EXPECT_EQ(gemm.runs, 2);
  EXPECT_NEAR(gemm.weight, 2.0, 1e-12);
  EXPECT_NEAR(*gemm.statistic, 0.80, 1e-12);
  EXPECT_NEAR(gemm.target_eff, 0.85, 1e-12);
  // --explain lists each candidate at its share of the unit.
  const auto ex = explain_priors(in, {}, *parse_priors_key("gemm"));
  ASSERT_TRUE(ex.has_value());
  ASSERT_EQ(ex->observations.size(), 5U);
  EXPECT_NEAR(ex->observations[0].evaluation.weight, 0.25, 1e-12);
  EXPECT_NEAR(ex->chain[0].target_eff, 0.85, 1e-12);
  // Another prediction on the same kernel (a new verdict: another
  // roofline_pct) is a group of its own: with the fourth candidate on
  // roofline_pct 0.36 (e 0.648) the groups are A/K/0.4 (3 × 1/3), A/K/0.36 (1)
  // and B (1): W 3.
  in[3].prediction.roofline_pct = 0.36;
  EXPECT_NEAR(row(compute(in), "gemm").weight, 3.0, 1e-12);
  // A low-confidence prediction keeps its weight for the whole group: 4 × 0.25 / 4.
  for (std::size_t i = 0; i < 4; ++i) {
    in[i].prediction.roofline_pct = 0.4;
    in[i].prediction.confidence = "low";
  }
  EXPECT_NEAR(row(compute(in), "gemm").weight, 1.25, 1e-12);
}

TEST(SplitWeights, TableAndAttemptsAgreeAndCountMeasuredEvidence)
{
  std::vector<Observation> in;
  for (const double s : {1.5, 1.6, 1.7}) {
    Observation o = obs("gemm", "gfx942", "decode", 0.4, s, "medium");
    o.run_id = "A";
    o.short_name = "K";
    o.prediction.source_kind = "measured";
    in.push_back(o);
  }
  Observation b = obs("gemm", "gfx942", "decode", 0.5, 1.6, "high");
  b.run_id = "B";
  b.short_name = "L";
  b.prediction.source_kind = "analytic";
  in.push_back(b);
  Observation c = b;
  c.run_id = "C";
  c.prediction.source_kind.reset(); // no source: analytic
  in.push_back(c);
  ObservationTable table;
  for (const Observation& o : in) {
    table.add(o);
  }
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx;
  const auto from_table = compute_priors_from_table(table, p);
  ASSERT_TRUE(from_table.has_value());
  EXPECT_EQ(render_priors_json(*from_table), render_priors_json(compute(in, p)));
  const PriorRow& gemm = row(*from_table, "gemm:gfx942");
  EXPECT_EQ(gemm.measured, 3);
  EXPECT_EQ(gemm.analytic, 2);
  EXPECT_NEAR(gemm.weight, 0.6 + 1.0 + 1.0, 1e-12); // 3 × 0.6/3, then B and C
  const std::string text = render_explain(*explain_priors(in, p, *parse_priors_key("gemm:gfx942")));
  EXPECT_NE(text.find("evidence: 3 observations from measured predictions, 2 from analytic ones"),
            std::string::npos)
      << text;
}

TEST(E2eTransfer, RatioAboveOneNeedsFiveRuns)
{
  // pct 20, s 2: c = 20·(1 − 1/2) = 10; d 15 → x 1.5 (beyond the ceiling).
  // Two runs: m 1.5, shrunk (3 + 2·1.5)/5 = 1.2 > 1 from fewer than 5 runs:
  // capped at 1.0; the interval is the bootstrap of m over runs ([1.5, 1.5])
  // widened to take in the exported 1.0.
  std::vector<Observation> two = {transfer(20, 2.0, 15.0, "decode", "2025-05-01"),
                                  transfer(20, 2.0, 15.0, "decode", "2025-05-02")};
  const TransferRow capped = compute(two).e2e_transfer.at(0);
  EXPECT_EQ(capped.n, 2);
  EXPECT_TRUE(capped.capped);
  EXPECT_DOUBLE_EQ(capped.median_ratio, 1.0);
  EXPECT_NEAR(*capped.statistic, 1.5, 1e-12);
  EXPECT_EQ(capped.beyond_ceiling, 2);
  EXPECT_EQ(capped.source, TransferSource::calibrated);
  ASSERT_TRUE(capped.interval.has_value());
  EXPECT_DOUBLE_EQ(capped.interval->lo, 1.0);
  EXPECT_NEAR(capped.interval->hi, 1.5, 1e-12);
  // Four runs: (3 + 4·1.5)/7 = 1.2857, still capped; five: (3 + 7.5)/8 = 1.3125 as is.
  for (const char* date : {"2025-05-03", "2025-05-04"}) {
    two.push_back(transfer(20, 2.0, 15.0, "decode", date));
  }
  EXPECT_TRUE(compute(two).e2e_transfer.at(0).capped);
  two.push_back(transfer(20, 2.0, 15.0, "decode", "2025-05-05"));
  const TransferRow broad = compute(two).e2e_transfer.at(0);
  EXPECT_EQ(broad.n, domain::k_transfer_breadth_runs);
  EXPECT_FALSE(broad.capped);
  EXPECT_NEAR(broad.median_ratio, 10.5 / 8.0, 1e-12);
  // A ratio below 1 is never capped, whatever the breadth.
  const TransferRow below = compute({transfer(20, 2.0, 5.0, "decode", "2025-05-01"),
                                     transfer(20, 2.0, 5.0, "decode", "2025-05-02")})
                                .e2e_transfer.at(0);
  EXPECT_FALSE(below.capped);
  EXPECT_NEAR(below.median_ratio, (3.0 + 2 * 0.5) / 5.0, 1e-12);
}

// The transfer's shrink toward 1 has its own strength k_t (transfer_strength,
// `--transfer-strength`, default 3): it moves the ratio, while prior_strength
// (target_eff's k) does not reach the transfer (docs/estimator.md, "Why k = 2").
TEST(E2eTransfer, TransferStrengthShrinksTheRatioAndPriorStrengthDoesNot)
{
  // Two runs at x = 0.5 (d 5 of c 10): m 0.5.
  const std::vector<Observation> in = {transfer(20, 2.0, 5.0, "decode", "2025-05-01"),
                                       transfer(20, 2.0, 5.0, "decode", "2025-05-02")};
  EXPECT_DOUBLE_EQ(PriorsParams{}.transfer_strength, 3.0);
  EXPECT_NEAR(compute(in).e2e_transfer.at(0).median_ratio, (3.0 + 2 * 0.5) / 5.0, 1e-12); // 0.8
  PriorsParams weak;
  weak.transfer_strength = 0.0; // no shrink: m itself
  EXPECT_NEAR(compute(in, weak).e2e_transfer.at(0).median_ratio, 0.5, 1e-12);
  PriorsParams strong;
  strong.transfer_strength = 8.0;
  EXPECT_NEAR(compute(in, strong).e2e_transfer.at(0).median_ratio, (8.0 + 2 * 0.5) / 10.0, 1e-12); // 0.9
  PriorsParams k;
  k.prior_strength = 10.0;
  EXPECT_NEAR(compute(in, k).e2e_transfer.at(0).median_ratio, 0.8, 1e-12);
  PriorsParams bad;
  bad.transfer_strength = -1.0;
  EXPECT_FALSE(compute_priors(in, bad).has_value());
}

TEST(E2eTransfer, TwoRunSnapshotJsonSaysCapped)
{
  // A run and its snapshot (a second run id, the same attempt): the issue's
  // [1.4, 1.4] transfer. Exported capped at 1, with the evidence visible.
  std::vector<Observation> in = {transfer(20, 2.0, 15.0, "decode", "2025-05-01"),
                                 transfer(20, 2.0, 15.0, "decode", "2025-05-01")};
  in[1].run_id = "run_2025-05-01_snapshot";
  const auto json = nlohmann::json::parse(render_priors_json(compute(in)));
  const auto& t = json["e2e_transfer"].at(0);
  EXPECT_EQ(t["runs"], 2);
  EXPECT_EQ(t["median_ratio"], 1.0);
  EXPECT_EQ(t["statistic"], 1.5);
  EXPECT_EQ(t["capped"], true);
  EXPECT_EQ(t["beyond_ceiling"], 2);
  EXPECT_EQ(t["interval"], nlohmann::json::array({1.0, 1.5}));
  // Both runs' moe observations: an interval over two runs, and for one run none.
  const auto& moe = json["priors"].at(1);
  EXPECT_EQ(moe["op_class"], "moe");
  EXPECT_EQ(moe["runs"], 2);
  EXPECT_TRUE(moe["interval"].is_array());
  EXPECT_TRUE(moe["interval_reason"].is_null());
  const auto one = nlohmann::json::parse(render_priors_json(compute({in[0]})));
  EXPECT_TRUE(one["priors"].at(1)["interval"].is_null());
  EXPECT_EQ(one["priors"].at(1)["interval_reason"], "one run");
  EXPECT_EQ(one["priors"].at(0)["interval_reason"], "no observations");
  EXPECT_EQ(one["priors"].at(1)["measured"], 0);
  EXPECT_EQ(one["priors"].at(1)["analytic"], 1);
}

TEST(ComputePriors, TwoGfxWorkedByHand)
{
  // gemm, k = 2 (the default), all weight 1 (high), seed 0.90:
  //   gfx942: e 0.60 (run a), 0.70 (run b);  gfx950: e 0.95 (run c).
  // gemm: W 3, e sorted 0.60 0.70 0.95, 0.75·3 = 2.25 → q 0.95;
  //       (1.8 + 2.85)/5 = 0.93.
  // gemm:gfx942: gemm minus gfx942 = {0.95}: (1.8 + 0.95)/3 = 0.916667;
  //       own W 2, 0.75·2 = 1.5 → q 0.70: (1.833333 + 1.4)/4 = 0.808333.
  // gemm:gfx950: gemm minus gfx950 = {0.60, 0.70} → q 0.70: (1.8 + 1.4)/4 = 0.80;
  //       own {0.95}: (1.6 + 0.95)/3 = 0.85.
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx;
  std::vector<Observation> in = {obs("gemm", "gfx942", "decode", 0.5, 1.2, "high", "2025-05-01"),
                                 obs("gemm", "gfx942", "decode", 0.5, 1.4, "high", "2025-05-02"),
                                 obs("gemm", "gfx950", "decode", 0.5, 1.9, "high", "2025-05-03")};
  const auto r = compute(in, p);
  EXPECT_NEAR(row(r, "gemm").target_eff, 0.93, 1e-12);
  EXPECT_NEAR(row(r, "gemm:gfx942").parent, 2.75 / 3.0, 1e-12);
  EXPECT_NEAR(row(r, "gemm:gfx942").target_eff, (2.0 * 2.75 / 3.0 + 1.4) / 4.0, 1e-12);
  EXPECT_EQ(row(r, "gemm:gfx942").runs, 2);
  EXPECT_NEAR(row(r, "gemm:gfx950").parent, 0.80, 1e-12);
  EXPECT_NEAR(row(r, "gemm:gfx950").target_eff, 0.85, 1e-12);
  EXPECT_EQ(row(r, "gemm").runs, 3);
  EXPECT_EQ(row(r, "gemm").n, 3);
}

TEST(PriorsParams, InvalidValuesAreRejected)
{
  auto rejected = [](PriorsParams p) {
    const auto r = compute_priors({}, p);
    return !r.has_value() && r.error().code == ErrorCode::invalid_input;
  };
  PriorsParams p;
  p.prior_strength = -1;
  EXPECT_TRUE(rejected(p));
  p = {};
  p.quantile = 0.0;
  EXPECT_TRUE(rejected(p));
  p = {};
  p.half_life_days = 0.0;
  EXPECT_TRUE(rejected(p));
  p = {};
  p.as_of = "2025-02-30";
  EXPECT_TRUE(rejected(p));
  p = {};
  p.since = "yesterday";
  EXPECT_TRUE(rejected(p));
  p = {};
  p.interval = 1.0;
  EXPECT_TRUE(rejected(p));
  p = {};
  p.confidence_weights.low = -0.1;
  EXPECT_TRUE(rejected(p));
}

TEST(ParsePriorsKey, ClassGfxRegime)
{
  const auto k = parse_priors_key("moe:gfx950:decode");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->op_class, "moe");
  EXPECT_EQ(k->gfx, "gfx950");
  EXPECT_EQ(k->regime, "decode");
  EXPECT_FALSE(parse_priors_key("attn")->gfx.has_value());
  EXPECT_EQ(parse_priors_key("conv").error().code, ErrorCode::usage);
  EXPECT_FALSE(parse_priors_key("moe:").has_value());
  EXPECT_FALSE(parse_priors_key("moe:a:b:c").has_value());
}

TEST(ParsePriorsLevel, ThreeLevels)
{
  EXPECT_EQ(*parse_priors_level("class"), PriorsLevel::op_class);
  EXPECT_EQ(*parse_priors_level("class,gfx"), PriorsLevel::op_class_gfx);
  EXPECT_EQ(*parse_priors_level("class,gfx,regime"), PriorsLevel::op_class_gfx_regime);
  EXPECT_FALSE(parse_priors_level("gfx").has_value());
}

TEST(ParseConfidenceWeights, SubsetKeepsDefaults)
{
  const auto w = parse_confidence_weights("low=0.1,high=0.9");
  ASSERT_TRUE(w.has_value());
  EXPECT_DOUBLE_EQ(w->high, 0.9);
  EXPECT_DOUBLE_EQ(w->medium, 0.6);
  EXPECT_DOUBLE_EQ(w->low, 0.1);
  EXPECT_FALSE(parse_confidence_weights("top=1").has_value());
  EXPECT_FALSE(parse_confidence_weights("low=-1").has_value());
  EXPECT_FALSE(parse_confidence_weights("low=").has_value());
  EXPECT_FALSE(parse_confidence_weights("").has_value());
}

TEST(ExplainPriors, ChainAndMembersOfAKey)
{
  auto in = canonical();
  Observation suspect = canonical_moe();
  suspect.prediction.suspect = true;
  in.push_back(suspect);
  in.push_back(obs("moe", "gfx942", "decode", 0.5, 1.8)); // other gfx: class level only
  const auto ex = explain_priors(in, {}, *parse_priors_key("moe:gfx950:decode"));
  ASSERT_TRUE(ex.has_value());
  ASSERT_EQ(ex->chain.size(), 3U);
  EXPECT_EQ(ex->chain[0].n, 2);
  EXPECT_EQ(ex->chain[1].n, 1);
  // moe:gfx950's parent is the seed shrunk by moe minus gfx950 (the gfx942
  // observation, e = 0.5 × 1.8 = 0.90): (2·0.9 + 0.9)/3 = 0.90.
  EXPECT_NEAR(ex->chain[1].parent, 0.90, 1e-12);
  // moe:gfx950:decode holds moe:gfx950's evidence: same value.
  EXPECT_DOUBLE_EQ(ex->chain[2].target_eff, ex->chain[1].target_eff);
  ASSERT_EQ(ex->steps.size(), 3U);
  EXPECT_EQ(ex->steps[0].set, "moe minus gfx950");
  EXPECT_EQ(ex->steps[0].n, 1);
  EXPECT_EQ(ex->steps[1].set, "moe:gfx950 minus decode");
  EXPECT_EQ(ex->steps[1].n, 0);
  EXPECT_DOUBLE_EQ(ex->steps[1].to, ex->steps[1].from);
  EXPECT_EQ(ex->steps[2].set, "moe:gfx950:decode");
  EXPECT_DOUBLE_EQ(ex->steps[2].to, ex->chain[2].target_eff);
  ASSERT_EQ(ex->observations.size(), 1U);
  EXPECT_EQ(ex->observations[0].attempt.short_name, "fused_moe_kernel");
  ASSERT_EQ(ex->excluded.size(), 1U);
  EXPECT_EQ(ex->excluded[0].evaluation.excluded, ExclusionReason::suspect);
  // The chain agrees with compute_priors at the same level.
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx_regime;
  EXPECT_DOUBLE_EQ(row(compute(in, p), "moe:gfx950:decode").target_eff, ex->chain[2].target_eff);
}

// n observations of elementwise with e spread over [0.3, 0.9), one run each.
std::vector<Observation> spread_observations(std::size_t n)
{
  std::vector<Observation> in;
  const std::array<std::string, 3> conf = {"high", "medium", "low"};
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>((i * 7919) % n) / static_cast<double>(n);
    Observation o = obs("elementwise", "gfx950", "decode", 0.2 + 0.4 * u, 1.5, conf[i % 3]);
    o.run_id = "run_" + std::to_string(i);
    in.push_back(o);
  }
  return in;
}

TEST(ComputePriors, LargeSampleIntervalFromTheThresholdOn)
{
  // Below k_large_sample_units runs: the Monte-Carlo bootstrap; from it on:
  // its large-sample limit of q, widened to take in target_eff.
  const auto below = spread_observations(k_large_sample_units - 1);
  const auto at = spread_observations(k_large_sample_units);
  const PriorRow small = row(compute(below), "elementwise");
  const PriorRow large = row(compute(at), "elementwise");
  EXPECT_EQ(small.n, static_cast<int>(k_large_sample_units) - 1);
  EXPECT_EQ(small.interval_method, IntervalMethod::bootstrap);
  EXPECT_EQ(large.interval_method, IntervalMethod::large_sample);
  ASSERT_TRUE(small.interval && large.interval);

  std::vector<ClusteredValue> points;
  std::vector<WeightedValue> sample;
  for (const Observation& o : at) {
    sample.push_back({*o.prediction.roofline_pct * 1.5, o.prediction.confidence == "high"     ? 1.0
                                                        : o.prediction.confidence == "medium" ? 0.6
                                                                                              : 0.25});
  }
  sort_canonical(sample);
  for (std::size_t i = 0; i < sample.size(); ++i) {
    points.push_back({sample[i].value, sample[i].weight, i});
  }
  const auto q = large_sample_quantile_interval(points, points.size(), 0.75, 0.9);
  ASSERT_TRUE(q.has_value());
  EXPECT_DOUBLE_EQ(large.interval->lo, std::min(q->lo, large.target_eff));
  EXPECT_DOUBLE_EQ(large.interval->hi, std::max(q->hi, large.target_eff));
  // One observation more changes the method, not the answer: the two
  // intervals agree to within a fifth of their width.
  const double width = small.interval->hi - small.interval->lo;
  EXPECT_GT(width, 0.0);
  EXPECT_NEAR(large.interval->lo, small.interval->lo, 0.2 * width);
  EXPECT_NEAR(large.interval->hi, small.interval->hi, 0.2 * width);
  EXPECT_LE(large.interval->lo, large.target_eff);
  EXPECT_GE(large.interval->hi, large.target_eff);
  // --explain names the method when it is the large-sample limit.
  const auto key = parse_priors_key("elementwise");
  const std::string limit_text = render_explain(*explain_priors(at, {}, *key));
  EXPECT_NE(limit_text.find("] (large-sample limit of the bootstrap, runs >= 500; the key's own q, widened "
                            "to take in target_eff)"),
            std::string::npos)
      << limit_text;
  const std::string mc_text = render_explain(*explain_priors(below, {}, *key));
  EXPECT_EQ(mc_text.find("large-sample"), std::string::npos);
  EXPECT_NE(mc_text.find("] (the key's own q, widened to take in target_eff)"), std::string::npos);
  // No resamples still means no interval, whatever the size.
  PriorsParams none;
  none.bootstrap_resamples = 0;
  EXPECT_FALSE(row(compute(at, none), "elementwise").interval.has_value());
}

TEST(E2eTransfer, LargeSampleIntervalFromTheThresholdOn)
{
  // runs distinct runs, one attempt each: c = 20 × (1 − 1/1.25) = 4, d spread
  // over [−2, 6) → x over [−0.5, 1.5).
  const auto runs = [](std::size_t n) {
    std::vector<Observation> in;
    for (std::size_t i = 0; i < n; ++i) {
      const double u = static_cast<double>((i * 7919) % n) / static_cast<double>(n);
      Observation o = transfer(20, 1.25, -2.0 + 8.0 * u);
      o.run_id = "run_" + std::to_string(i);
      in.push_back(o);
    }
    return in;
  };
  const TransferRow small = compute(runs(k_large_sample_units - 1)).e2e_transfer.at(0);
  const TransferRow large = compute(runs(k_large_sample_units)).e2e_transfer.at(0);
  EXPECT_EQ(small.interval_method, IntervalMethod::bootstrap);
  EXPECT_EQ(large.interval_method, IntervalMethod::large_sample);
  ASSERT_TRUE(small.interval && large.interval);
  const double width = small.interval->hi - small.interval->lo;
  EXPECT_GT(width, 0.0);
  EXPECT_NEAR(large.interval->lo, small.interval->lo, 0.2 * width);
  EXPECT_NEAR(large.interval->hi, small.interval->hi, 0.2 * width);
  EXPECT_LE(large.interval->lo, large.median_ratio);
  EXPECT_GE(large.interval->hi, large.median_ratio);
}

// 40 000 rows (three of the table's 16 384-row chunks) of a history whose
// runs change every few rows, with NULL and present values and texts: each
// row comes back as it went in, and the priors are those of the rows.
TEST(ObservationTable, RowsAcrossChunksComeBackAsAdded)
{
  std::vector<Observation> in;
  const std::array<std::string, 5> classes = {"gemm", "moe", "elementwise", "attn", "unknown"};
  for (int i = 0; i < 40000; ++i) {
    const auto u = static_cast<std::size_t>(i);
    Observation o =
        obs(classes[u % 5], i % 3 == 0 ? "gfx942" : (i % 3 == 1 ? "gfx950" : ""),
            i % 4 == 0 ? "" : (i % 5 < 2 ? "prefill" : "decode"), 0.2 + 0.0001 * (i % 5000),
            1.05 + 0.001 * (i % 700), i % 7 == 0 ? "low" : "high", i % 11 == 0 ? "2025-02-03" : "2025-05-01");
    o.run_id = "e2e_run_with_a_long_identifier_" + std::to_string(i / 6);
    o.round.clear();
    o.short_name.clear();
    o.lever.clear();
    o.e2e_delta_pct = i % 4 == 0 ? std::optional<double>(0.01 * (i % 300)) : std::nullopt;
    o.post_efficiency = i % 13 == 0 ? std::optional<double>(0.5) : std::nullopt;
    o.prediction.pct_gpu_time = i % 2 == 0 ? std::optional<double>(5.0 + i % 40) : std::nullopt;
    o.prediction.headroom_class = i % 17 == 0 ? std::nullopt : o.prediction.headroom_class;
    o.prediction.suspect = i % 19 == 0 ? std::optional<bool>(i % 38 == 0) : std::nullopt;
    o.prediction.dispatch_bound = i % 23 == 0;
    o.output_parity = i % 29 == 0 ? "fail" : "pass";
    in.push_back(o);
  }
  ObservationTable table;
  for (const Observation& o : in) {
    table.add(o);
  }
  ASSERT_EQ(table.size(), in.size());
  Observation out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    table.fill(i, out);
    const Observation& a = in[i];
    ASSERT_EQ(out.run_id, a.run_id) << i;
    EXPECT_EQ(table.run_id(i), a.run_id);
    EXPECT_EQ(table.run_date(i), a.run_date);
    EXPECT_EQ(table.op_class(i), a.op_class);
    EXPECT_EQ(table.gfx(i), a.gfx);
    EXPECT_EQ(table.regime(i), a.regime);
    EXPECT_EQ(out.run_date, a.run_date);
    EXPECT_EQ(out.op_class, a.op_class);
    EXPECT_EQ(out.gfx, a.gfx);
    EXPECT_EQ(out.regime, a.regime);
    EXPECT_EQ(out.isolated_speedup, a.isolated_speedup);
    EXPECT_EQ(out.e2e_delta_pct, a.e2e_delta_pct);
    EXPECT_EQ(out.post_efficiency, a.post_efficiency);
    EXPECT_EQ(out.prediction.roofline_pct, a.prediction.roofline_pct);
    EXPECT_EQ(out.prediction.attainable_speedup, a.prediction.attainable_speedup);
    EXPECT_EQ(out.prediction.pct_gpu_time, a.prediction.pct_gpu_time);
    EXPECT_EQ(out.prediction.headroom_class, a.prediction.headroom_class);
    EXPECT_EQ(out.prediction.confidence, a.prediction.confidence);
    EXPECT_EQ(out.prediction.suspect, a.prediction.suspect);
    EXPECT_EQ(out.prediction.dispatch_bound, a.prediction.dispatch_bound);
    EXPECT_EQ(out.output_parity, a.output_parity);
    EXPECT_EQ(out.reject_reason, a.reject_reason);
  }
  for (const PriorsLevel level :
       {PriorsLevel::op_class, PriorsLevel::op_class_gfx, PriorsLevel::op_class_gfx_regime}) {
    PriorsParams p;
    p.level = level;
    const auto from_table = compute_priors_from_table(table, p);
    ASSERT_TRUE(from_table.has_value());
    EXPECT_EQ(render_priors(*from_table, PriorsFormat::json),
              render_priors(compute(in, p), PriorsFormat::json));
  }
}

} // namespace
} // namespace rfdb::calibrate

namespace rfdb::calibrate {
namespace {

// A head the run never tried, censored at its roofline_pct (docs/estimator.md, "Censored observations").
Observation censored_head(double roofline_pct, std::string run_id, domain::CensorReason why)
{
  Observation o = obs("moe", "gfx950", "decode", roofline_pct, 1.0, "high", "2025-05-03");
  o.run_id = std::move(run_id);
  o.short_name = "skipped_head";
  o.lever.clear();
  o.isolated_speedup.reset();
  o.censored = why;
  return o;
}

// Two runs with e = 0.5 × 1.2 = 0.6 and 0.5 × 1.4 = 0.7 (high, weight 1 each):
// W = 2, 0.75·W = 1.5 → q of the uncensored = 0.7; moe = (2·0.9 + 2·0.7) / 4 = 0.8.
std::vector<Observation> two_tried_runs()
{
  std::vector<Observation> in = {obs("moe", "gfx950", "decode", 0.5, 1.2, "high", "2025-05-01"),
                                 obs("moe", "gfx950", "decode", 0.5, 1.4, "high", "2025-05-02")};
  return in;
}

TEST(CensoredObservations, SkipGateBoundAboveTheQuantileEntersAtItsBound)
{
  auto in = two_tried_runs();
  EXPECT_NEAR(row(compute(in), "moe").target_eff, 0.8, 1e-12);
  in.push_back(censored_head(0.91, "run_skip", domain::CensorReason::skip_gate));
  const auto r = compute(in);
  const PriorRow& moe = row(r, "moe");
  // 0.91 > 0.7 enters: 0.6 0.7 0.91, W = 3, 2.25 → q = 0.91; (1.8 + 3 × 0.91) / 5 = 0.906.
  EXPECT_EQ(moe.n, 3);
  EXPECT_EQ(moe.censored, 1);
  EXPECT_EQ(moe.runs, 3);
  EXPECT_DOUBLE_EQ(*moe.statistic, 0.91);
  EXPECT_NEAR(moe.target_eff, 0.906, 1e-12);
  EXPECT_EQ(r.observations, 2); // the attempts' observations; the censored head is counted apart
  EXPECT_EQ(r.censored, 1);
  EXPECT_EQ(r.attempts, 2);
}

TEST(CensoredObservations, BoundNotAboveTheQuantileIsLeftOut)
{
  auto in = two_tried_runs();
  in.push_back(censored_head(0.65, "run_sat", domain::CensorReason::saturated_no_attempt));
  const PriorRow moe = row(compute(in), "moe"); // a copy: the result is a temporary
  EXPECT_EQ(moe.n, 2);
  EXPECT_EQ(moe.censored, 0);
  EXPECT_DOUBLE_EQ(*moe.statistic, 0.7);
  EXPECT_NEAR(moe.target_eff, 0.8, 1e-12);
}

TEST(CensoredObservations, ExplainListsThemApart)
{
  auto in = two_tried_runs();
  in.push_back(censored_head(0.91, "run_skip", domain::CensorReason::skip_gate));
  in.push_back(censored_head(0.65, "run_sat", domain::CensorReason::saturated_no_attempt));
  PriorsParams p;
  p.bootstrap_resamples = 0;
  const auto ex = explain_priors(in, p, {"moe", std::nullopt, std::nullopt});
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->observations.size(), 2U);
  ASSERT_EQ(ex->censored.size(), 2U);
  EXPECT_DOUBLE_EQ(ex->censor_threshold, 0.7);
  EXPECT_NEAR(ex->chain.back().target_eff, 0.906, 1e-12);
  const std::string text = render_explain(*ex);
  EXPECT_NE(text.find("Censored observations (2;"), std::string::npos) << text;
  EXPECT_NE(text.find("censored (skip gate): e >= 0.9100"), std::string::npos) << text;
  EXPECT_NE(text.find("censored (saturated, no attempt): e >= 0.6500"), std::string::npos) << text;
  EXPECT_NE(text.find("entered at its bound"), std::string::npos) << text;
  EXPECT_NE(text.find("left out (not above)"), std::string::npos) << text;
}

} // namespace
} // namespace rfdb::calibrate
