// GEAK kb records in the playbook (report/kb_lines.hpp, docs/playbook.md "GEAK kb records"):
// reproduction across both worlds by content signature, retired records as Cautions, kb-only
// What works lines, and the tier rule's kb inputs. Hand-built inputs, no database.
#include "unit/report/sample_input.hpp"

#include "report/analysis.hpp"
#include "report/cautions.hpp"
#include "report/findings.hpp"
#include "report/from_store.hpp"
#include "report/kb_lines.hpp"
#include "report/playbook.hpp"
#include "report/tiers.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace rfdb::report {
namespace {

using testing::make_attempt;
using testing::make_run;

const std::string k_sig = "csha:4b3227c7e42ea185afcd6249b62c0476";

ReportInput base_input()
{
  ReportInput in;
  in.as_of = "2026-09-30";
  return in;
}

// A kernel-lane record on gfx942 gemm_a8w8_kernel (the sample attempts' kernel).
KbRecordInfo kernel_record(std::string key, std::string signature, double speedup, int validations,
                           int failures = 0)
{
  KbRecordInfo r;
  r.record_key = std::move(key);
  r.lane = "kernel";
  r.gfx = "gfx942";
  r.kernel_name = "gemm_a8w8_kernel";
  r.backend = "ck";
  r.framework = "rocm";
  r.framework_version = "7.1";
  r.direction = "kMPerBlock 32->64";
  r.speedup = speedup;
  r.content_signature = std::move(signature);
  r.validations = validations;
  r.failures = failures;
  r.date = "2026-09-02";
  return r;
}

AttemptInfo signed_attempt(const RunInfo& run, std::string signature, std::string gate = "accepted")
{
  AttemptInfo a = make_attempt(run, "tile tune", 1.10, 0.8, std::move(gate));
  a.attempt_key = "cand:tile";
  a.content_signature = std::move(signature);
  return a;
}

const Caution* kb_caution(const Analysis& a)
{
  const auto it = std::find_if(a.cautions.begin(), a.cautions.end(),
                               [](const Caution& c) { return c.kind == CautionKind::kb_retired; });
  return it == a.cautions.end() ? nullptr : &*it;
}

// ---- reproduction across both worlds ---------------------------------------------------------

TEST(KbLines, AnAttemptSigningLikeAKbRecordNamesItAndCountsAsItsReproduction)
{
  auto in = base_input();
  in.attempts = {signed_attempt(make_run("r1", "2026-09-10", "gfx942"), k_sig)};
  in.kb_records = {kernel_record("geak-rec-1", k_sig, 1.31, 2)};
  const Analysis a = analyze(in);
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  ASSERT_EQ(f.kb_sources.size(), 1u);
  EXPECT_EQ(f.kb_sources[0].record_key, "geak-rec-1");
  EXPECT_EQ(f.kb_sources[0].reproduced_by, std::vector<std::string>{"r1"});
  EXPECT_FALSE(f.kb_only);
  // One clean run + a validated kb record: two independent clean sources.
  EXPECT_EQ(f.stars, 3);
  EXPECT_EQ(f.tier_reason, "one clean run and a validated kb record");
  EXPECT_EQ(f.confirms, 2); // the run and the kb record
  const std::string md = render_playbook(a);
  EXPECT_NE(md.find("kb record `geak-rec-1` (kb: 2 validated, 0 failed, 0 not reproduced, 0 inapplicable; "
                    "reproduced by run `r1`)"),
            std::string::npos)
      << md;
}

TEST(KbLines, AnUnvalidatedMatchIsOneMoreAgreeingSourceNotAClean)
{
  auto in = base_input();
  // An attempt of the stack gate: qualifies (validation won, deployed) but is not clean.
  auto at = signed_attempt(make_run("r1", "2026-09-10", "gfx942", "win"), k_sig, "stack");
  at.validation_speedup = 1.01;
  at.deployed = true;
  in.attempts = {at};
  in.kb_records = {kernel_record("geak-rec-1", k_sig, 1.31, 0)};
  const auto f = analyze(in).findings;
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kb_sources.size(), 1u);
  EXPECT_EQ(f[0].stars, 3); // the verified e2e win decides
  EXPECT_EQ(f[0].tier_reason, "verified end-to-end win");
}

TEST(KbLines, AnotherSignatureIsNoReproduction)
{
  auto in = base_input();
  in.attempts = {
      signed_attempt(make_run("r1", "2026-09-10", "gfx942"), "csha:00000000000000000000000000000000")};
  in.kb_records = {kernel_record("geak-rec-1", k_sig, 1.01, 2)}; // in noise: no line of its own either
  const auto f = analyze(in).findings;
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].kb_sources.empty());
  EXPECT_EQ(f[0].tier_reason, "one clean run");
}

// ---- retired never works -------------------------------------------------------------------

KbRecordInfo retired_record()
{
  KbRecordInfo r =
      kernel_record("20260905_083000_c0ffee", "csha:aaaabbbbccccddddeeeeffff00001111", 1.142, 1, 2);
  r.lane = "experience";
  r.gfx = "gfx950";
  r.kernel_name = "rmsnorm_fwd";
  r.backend = "triton";
  r.framework_version = "7.2";
  r.direction = "vectorized loads (128-bit)";
  r.not_reproduced = 1;
  r.inapplicable = 1;
  r.last_outcomes = {"failed", "not_reproduced", "failed"};
  r.retired = true;
  r.retired_why = "ledger: last 3 attempts all negative";
  r.date = "2026-09-05";
  return r;
}

TEST(KbLines, ARetiredRecordNeverMakesAWhatWorksLineAndBecomesACaution)
{
  auto in = base_input();
  in.kb_records = {retired_record()};
  const Analysis a = analyze(in);
  EXPECT_TRUE(a.findings.empty()); // measured 1.142×, but retired
  const Caution* c = kb_caution(a);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->key.text(), "elementwise \u00b7 gfx950 \u00b7 unknown");
  EXPECT_EQ(
      c->text,
      "Also verify before reusing vectorized loads (128-bit) (elementwise \u00b7 gfx950 \u00b7 unknown): kb "
      "record `20260905_083000_c0ffee` (gfx950 \u00b7 rmsnorm_fwd \u00b7 triton \u00b7 rocm 7.2) is "
      "retired: ledger: last 3 attempts all negative; last tested outcomes failed, not_reproduced, failed; "
      "kb: 1 validated, 2 failed, 1 not reproduced, 1 inapplicable (`rfdb show --finding "
      "20260905_083000_c0ffee`).");
  EXPECT_EQ(a.run_cautions, 0u); // counted with the imported ones
  const std::string md = render_playbook(a);
  EXPECT_NE(md.find("- " + c->text), std::string::npos) << md;
}

TEST(KbLines, RetainedFalseIsRetiredToo)
{
  auto in = base_input();
  KbRecordInfo r = kernel_record("geak-tomb", k_sig, 1.5, 0);
  r.retired = true;
  r.retired_why = "superseded by a faster table";
  in.kb_records = {r};
  const Analysis a = analyze(in);
  EXPECT_TRUE(a.findings.empty());
  ASSERT_NE(kb_caution(a), nullptr);
  EXPECT_NE(kb_caution(a)->text.find("is retired: superseded by a faster table; last tested outcomes none"),
            std::string::npos);
}

TEST(KbLines, ARetiredMatchKeepsTheMeasuredRunLineWithTheCautionNoteAtMostTwoStars)
{
  auto in = base_input();
  KbRecordInfo r = retired_record();
  r.gfx = "gfx942";
  r.kernel_name = "gemm_a8w8_kernel_task"; // canon_name: the runs' gemm_a8w8_kernel
  r.content_signature = k_sig;
  in.attempts = {signed_attempt(make_run("r1", "2026-09-10", "gfx942"), k_sig),
                 signed_attempt(make_run("r2", "2026-09-12", "gfx942"), k_sig)};
  in.kb_records = {r};
  const Analysis a = analyze(in);
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  EXPECT_EQ(f.stars, 2); // two clean runs would be ★★★
  EXPECT_EQ(f.tier_reason,
            "2 independent clean runs; kb record 20260905_083000_c0ffee retired, at most \u2605\u2605");
  EXPECT_EQ(f.confirms, 2); // a retired record confirms nothing
  ASSERT_EQ(f.kb_sources.size(), 1u);
  EXPECT_TRUE(f.kb_sources[0].retired);
  EXPECT_NE(kb_caution(a), nullptr);
  const std::string md = render_playbook(a);
  EXPECT_NE(md.find("retired: ledger: last 3 attempts all negative; last tested outcomes failed, "
                    "not_reproduced, failed; see Cautions)"),
            std::string::npos)
      << md;
}

// The same signature on another kernel's record (a shared boilerplate hunk) or on another GPU
// joins nothing: the run line keeps its ★★★ and names no kb record.
TEST(KbLines, ASignatureMatchOnAnotherKernelOrGpuJoinsNothing)
{
  for (const auto& [kernel, gfx] : {std::pair<std::string, std::string>{"rmsnorm_fwd", "gfx942"},
                                    std::pair<std::string, std::string>{"gemm_a8w8_kernel", "gfx950"}}) {
    auto in = base_input();
    KbRecordInfo r = retired_record();
    r.gfx = gfx;
    r.kernel_name = kernel;
    r.content_signature = k_sig;
    in.attempts = {signed_attempt(make_run("r1", "2026-09-10", "gfx942"), k_sig),
                   signed_attempt(make_run("r2", "2026-09-12", "gfx942"), k_sig)};
    in.kb_records = {r};
    const Analysis a = analyze(in);
    ASSERT_EQ(a.findings.size(), 1u) << kernel << " " << gfx;
    EXPECT_EQ(a.findings[0].stars, 3) << kernel << " " << gfx;
    EXPECT_TRUE(a.findings[0].kb_sources.empty()) << kernel << " " << gfx;
  }
}

// ---- kb-only lines ---------------------------------------------------------------------------

TEST(KbLines, AMeasuredPositiveRecordGivesALineOfItsOwn)
{
  auto in = base_input();
  KbRecordInfo k = kernel_record("geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e", k_sig, 1.25, 1);
  k.gfx = "gfx950";
  k.kernel_name = "fused_moe_kernel";
  k.backend = "triton";
  k.framework_version = "7.2";
  k.direction = "BLOCK_M 64->128";
  KbRecordInfo same = k; // the same implementation from the kb_artifacts tree
  same.record_key = "20260903_141522_3fa9c1";
  same.lane = "experience";
  same.speedup = 1.21;
  same.validations = 0;
  same.date = "2026-09-03";
  KbRecordInfo noise = kernel_record("geak-noise", "", 1.02, 0);
  KbRecordInfo e2e;
  e2e.record_key = "geak-qwen3";
  e2e.lane = "e2e";
  e2e.gfx = "gfx950";
  e2e.model = "qwen3-235b-a22b";
  e2e.framework = "vllm";
  e2e.framework_version = "0.11.2";
  e2e.precision = "fp8";
  e2e.direction = "VLLM_ROCM_USE_AITER_MOE=1";
  e2e.throughput_tok_s = 1100.0;
  e2e.baseline_tok_s = 1000.0;
  e2e.date = "2026-09-01";
  in.kb_records = {e2e, k, noise, same};
  const auto f = analyze(in).findings;
  ASSERT_EQ(f.size(), 2u); // the in-noise record has none
  // moe before config (report order of classes).
  EXPECT_EQ(f[0].key.text(), "moe \u00b7 gfx950 \u00b7 unknown");
  EXPECT_TRUE(f[0].kb_only);
  EXPECT_EQ(f[0].lever, "BLOCK_M 64->128");
  ASSERT_EQ(f[0].kb_sources.size(), 2u); // one signature, one line
  EXPECT_EQ(f[0].iso_min, 1.21);
  EXPECT_EQ(f[0].iso_max, 1.25);
  EXPECT_EQ(f[0].kernels, std::vector<std::string>{"fused_moe_kernel"});
  EXPECT_EQ(f[0].last_seen, "2026-09-03");
  EXPECT_EQ(f[0].stars, 2);
  EXPECT_EQ(f[0].tier_reason, "kb record validated, no run reproduces it yet");
  EXPECT_EQ(f[1].key.text(), "config \u00b7 gfx950 \u00b7 both");
  ASSERT_TRUE(f[1].e2e_min_pct.has_value());
  EXPECT_NEAR(*f[1].e2e_min_pct, 10.0, 1e-9);
  EXPECT_EQ(f[1].stars, 1);
  EXPECT_EQ(f[1].tier_reason, "kb record, not validated, no run reproduces it yet");
  const std::string md = render_playbook(analyze(in));
  EXPECT_NE(
      md.find("kb record `geak-qwen3` (qwen3-235b-a22b \u00b7 gfx950 \u00b7 vllm 0.11.2 \u00b7 fp8; kb: 0 "
              "validated, 0 failed, 0 not reproduced, 0 inapplicable)"),
      std::string::npos)
      << md;
}

TEST(KbLines, RecordsOutsideTheGfxFilterAreLeftOut)
{
  auto in = base_input();
  in.gfx_filter = "gfx950";
  in.kb_records = {kernel_record("geak-rec-1", k_sig, 1.31, 2), retired_record()};
  const Analysis a = analyze(in);
  EXPECT_TRUE(a.findings.empty());   // gfx942
  ASSERT_NE(kb_caution(a), nullptr); // gfx950
  EXPECT_EQ(kb_caution(a)->short_name, "rmsnorm_fwd");
}

TEST(KbLines, ThePlaybookIsByteIdenticalWhateverTheRecordsOrder)
{
  auto in = base_input();
  in.attempts = {signed_attempt(make_run("r1", "2026-09-10", "gfx942"), k_sig)};
  in.kb_records = {kernel_record("geak-b", k_sig, 1.31, 2), kernel_record("geak-a", k_sig, 1.29, 0),
                   retired_record()};
  const std::string one = render_playbook(in);
  std::reverse(in.kb_records.begin(), in.kb_records.end());
  EXPECT_EQ(render_playbook(in), one);
  EXPECT_NE(one.find("kb records `geak-a`"), std::string::npos) << one;
}

// ---- the report's view of a stored record ----------------------------------------------------

TEST(KbLines, TheStoredRecordKeepsItsLastThreeTestedOutcomesAndItsDate)
{
  store::KbRecord r;
  r.record_key = "x";
  r.lane = "experience";
  r.verified_on = "";
  r.last_at = "2026-09-14T11:00:00Z";
  r.validations = 1;
  r.failures = 2;
  r.retired = true;
  r.retired_why = "ledger: last 3 attempts all negative";
  r.reproductions = 2;
  for (const char* o : {"validated", "failed", "not_reproduced", "inapplicable", "failed"}) {
    r.history.push_back({"", o, "", "{}"});
  }
  const KbRecordInfo x = kb_record_info(r);
  EXPECT_EQ(x.last_outcomes, (std::vector<std::string>{"failed", "not_reproduced", "failed"}));
  EXPECT_EQ(x.date, "2026-09-14");
  EXPECT_EQ(x.reproductions, 2);
  EXPECT_TRUE(x.retired);
  r.verified_on = "2026-09-05";
  EXPECT_EQ(kb_record_info(r).date, "2026-09-05");
}

// ---- tiers -----------------------------------------------------------------------------------

TEST(KbTier, TwoIndependentRunsReproducingARecordAreThreeStars)
{
  TierEvidence e;
  e.run_evidence = true;
  e.agreeing_sources = 3;
  e.kb_source = true;
  e.kb_run_reproductions = 2;
  const Tier t = assign_tier(e);
  EXPECT_EQ(t.stars, 3);
  EXPECT_EQ(t.reason, "kb record reproduced by 2 independent runs");
  e.kb_run_reproductions = 1;
  e.agreeing_sources = 2;
  EXPECT_EQ(assign_tier(e).stars, 2);
  EXPECT_EQ(assign_tier(e).reason, "2 agreeing sources");
}

TEST(KbTier, KbRecordsAloneStayAtMostTwoStars)
{
  TierEvidence e;
  e.kb_source = true;
  EXPECT_EQ(assign_tier(e).stars, 1);
  e.kb_geak_reproductions = 2;
  EXPECT_EQ(assign_tier(e).stars, 2);
  EXPECT_EQ(assign_tier(e).reason, "kb record reproduced 2 times, no run reproduces it yet");
  e.kb_validated = true;
  e.kb_geak_reproductions = 5;
  EXPECT_EQ(assign_tier(e).stars, 2);
  EXPECT_EQ(assign_tier(e).reason, "kb record validated, no run reproduces it yet");
}

TEST(KbTier, ARetiredRecordCapsAVerifiedLineAtTwoStars)
{
  TierEvidence e;
  e.run_evidence = true;
  e.verified_e2e = true;
  e.agreeing_sources = 1;
  e.kb_retired = "geak-x";
  const Tier t = assign_tier(e);
  EXPECT_EQ(t.stars, 2);
  EXPECT_EQ(t.reason, "verified end-to-end win; kb record geak-x retired, at most \u2605\u2605");
}

} // namespace
} // namespace rfdb::report
