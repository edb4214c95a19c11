// The attempt model, rule by rule, on small hand-made records.
#include "domain/normalize.hpp"
#include "ingest/evaldir/attempt_model.hpp"

#include <gtest/gtest.h>

using namespace rfdb::ingest;

namespace {

RecordIn candidate(const std::string& dir, const std::string& kernel, double iso, double e2e,
                   const std::string& backend)
{
  AttemptRecord r;
  r.origin = "integrate";
  r.short_name = kernel;
  r.candidate = dir;
  r.backend = backend;
  r.isolated_speedup = iso;
  r.e2e_delta_pct = e2e;
  return RecordIn{r, 1, "overlay/" + dir + "/integrate_result.json"};
}

RecordIn ledger(const std::string& direction, std::optional<double> iso, std::optional<double> e2e,
                const std::string& verdict, int row)
{
  AttemptRecord r;
  r.origin = "ledger";
  const auto colon = direction.find(':');
  r.short_name = direction.substr(0, colon);
  if (colon != std::string::npos) {
    r.backend = direction.substr(colon + 1);
  }
  r.isolated_speedup = iso;
  r.e2e_delta_pct = e2e;
  r.verdict_raw = verdict;
  r.verdict = rfdb::domain::canonical<rfdb::domain::Verdict>(
      rfdb::domain::attempt_verdict_from_ledger(verdict).value);
  r.json_pointer = "/state/history/ledger/" + std::to_string(row);
  return RecordIn{r, 2, "workflow_return.json"};
}

std::vector<std::string> pointers(const DerivedAttempt& d)
{
  std::vector<std::string> out;
  for (const auto& c : d.sources) {
    out.push_back(c.json_pointer);
  }
  return out;
}

} // namespace

TEST(AttemptModel, AgreementTolerances)
{
  EXPECT_TRUE(isolated_agrees(1.5902, 1.5902 * 1.0009)); // 0.09 % apart
  EXPECT_FALSE(isolated_agrees(1.5902, 1.5902 * 1.0011));
  EXPECT_TRUE(e2e_agrees(16.049, 16.05)); // 0.001 pp
  EXPECT_TRUE(e2e_agrees(13.65, 13.66));  // 0.01 pp, the bound
  EXPECT_FALSE(e2e_agrees(19.35, 13.65));
}

TEST(AttemptModel, ReferencesAttachToTheCandidateWhoseNumbersAgree)
{
  std::vector<Warning> warnings;
  std::vector<RecordIn> recs{candidate("cand_k_a", "k", 1.6955, 19.35, "triton"),
                             candidate("cand_k_b", "k", 1.6797, 13.65, "triton"),
                             ledger("k:triton", 1.6797, 13.65, "candidate_passed", 0),
                             ledger("k", 1.6955, 19.35, "confirmed", 1)};
  const auto out = build_attempts(recs, {"k"}, warnings);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].key, "cand:cand_k_a");
  EXPECT_EQ(pointers(out[0]), (std::vector<std::string>{"", "/state/history/ledger/1"}));
  EXPECT_EQ(out[0].record.verdict_raw, "confirmed");
  EXPECT_EQ(pointers(out[1]), (std::vector<std::string>{"", "/state/history/ledger/0"}));
  EXPECT_EQ(out[1].record.verdict_raw, "candidate_passed");
  EXPECT_TRUE(warnings.empty());
}

TEST(AttemptModel, AReferenceThatAgreesWithTwoAttemptsEquallyAttachesToNeither)
{
  std::vector<Warning> warnings;
  std::vector<RecordIn> recs{candidate("cand_k_a", "k", 1.5, 2.0, "ck"),
                             candidate("cand_k_b", "k", 1.5, 2.0, "ck"),
                             ledger("k", 1.5, 2.0, "confirmed", 0)};
  const auto out = build_attempts(recs, {"k"}, warnings);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].sources.size(), 1U);
  EXPECT_EQ(out[1].sources.size(), 1U);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].pointer, "/state/history/ledger/0");
  EXPECT_NE(warnings[0].message.find("agrees equally with 2 attempts"), std::string::npos);
}

TEST(AttemptModel, TheLedgerBackendBreaksATie)
{
  std::vector<Warning> warnings;
  std::vector<RecordIn> recs{candidate("cand_k_ck", "k", 1.5, 2.0, "ck"),
                             candidate("cand_k_triton", "k", 1.5, 2.0, "triton"),
                             ledger("k:triton", 1.5, 2.0, "candidate_passed", 0)};
  const auto out = build_attempts(recs, {"k"}, warnings);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].sources.size(), 1U);
  EXPECT_EQ(out[1].sources.size(), 2U);
  EXPECT_TRUE(warnings.empty());
}

TEST(AttemptModel, AReferenceMatchingNothingIsItsOwnAttemptWithAWarning)
{
  std::vector<Warning> warnings;
  std::vector<RecordIn> recs{candidate("cand_k", "k", 1.5, 2.0, "ck"), ledger("k", 1.9, 7.0, "confirmed", 0)};
  const auto out = build_attempts(recs, {"k"}, warnings);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[1].record.origin, "ledger");
  EXPECT_EQ(pointers(out[1]), (std::vector<std::string>{"/state/history/ledger/0"}));
  EXPECT_TRUE(out[1].measured);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].message.find("matches no measured candidate"), std::string::npos);
}

TEST(AttemptModel, UnmeasuredLedgerRowsAreTheirOwnAttemptsNeverEvidence)
{
  std::vector<Warning> warnings;
  // The orchestrator's 0 / 0 reads as not measured (nullopt) by the parser.
  std::vector<RecordIn> recs{
      candidate("cand_k", "k", 1.59, 16.0, "triton"), ledger("k", std::nullopt, std::nullopt, "flagged", 0),
      ledger("k", 1.59, 16.0, "confirmed", 1), ledger("k", std::nullopt, std::nullopt, "dead_end", 2)};
  AttemptRecord flagged_head;
  flagged_head.origin = "flagged";
  flagged_head.short_name = "k";
  flagged_head.verdict = rfdb::domain::Verdict::flagged;
  flagged_head.json_pointer = "/flagged_heads/0";
  recs.push_back(RecordIn{flagged_head, 2, "workflow_return.json"});
  const auto out = build_attempts(recs, {"k"}, warnings);
  ASSERT_EQ(out.size(), 3U); // the measured candidate, the flagged try, the dead end
  EXPECT_TRUE(out[0].measured);
  EXPECT_FALSE(out[1].measured);
  EXPECT_FALSE(out[1].record.isolated_speedup.has_value());
  EXPECT_EQ(out[1].record.verdict_raw, "flagged");
  EXPECT_EQ(pointers(out[1]), (std::vector<std::string>{"/state/history/ledger/0", "/flagged_heads/0"}));
  EXPECT_EQ(out[2].record.verdict_raw, "dead_end");
  EXPECT_TRUE(warnings.empty());
}

TEST(AttemptModel, ACandidateNamedByItsIdResolvesThroughItsTaskDir)
{
  std::vector<Warning> warnings;
  RecordIn c = candidate("cand_gemm_ck_tuned", "ck_tuned_gemm", 1.523, 6.46, "ck");
  c.record.task_dir = "/wekafs/exp/geak/run/kernels/gemm_task";
  std::vector<RecordIn> recs{c, ledger("gemm:ck_tuned", 1.523, 6.46, "candidate_passed", 0)};
  const auto out = build_attempts(recs, {"gemm"}, warnings);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].record.short_name, "gemm");
  EXPECT_EQ(out[0].candidate_short_name, "ck_tuned_gemm");
  EXPECT_EQ(out[0].task, "gemm_task");
  EXPECT_EQ(out[0].sources.size(), 2U);
}

TEST(AttemptModel, ABakeOffWinnerIsTheCandidateThatDeployedIt)
{
  std::vector<Warning> warnings;
  AttemptRecord bake;
  bake.origin = "opbench";
  bake.short_name = "k";
  bake.backend = "flydsl";
  bake.isolated_speedup = 1.735;
  RecordIn opbench{bake, 3, "kernels/k_task/opbench_result.json"};
  auto not_deployed = opbench;
  not_deployed.record.short_name = "other";
  std::vector<RecordIn> recs{candidate("cand_k_flydsl", "k", 1.735, -51.9, "flydsl"),
                             candidate("cand_k_triton", "k", 1.899, 15.81, "triton"), opbench, not_deployed};
  const auto out = build_attempts(recs, {"k", "other"}, warnings);
  ASSERT_EQ(out.size(), 3U);
  EXPECT_EQ(out[0].sources.size(), 2U);   // the flydsl candidate cites the bake-off
  EXPECT_EQ(out[2].key, "opbench:other"); // a winner no candidate deployed
  EXPECT_FALSE(out[2].record.e2e_delta_pct.has_value());
}

TEST(AttemptModel, AVariantNamedByTheCandidateOrTheLedgerIsWrittenIntoTheAuthoredLever)
{
  std::vector<Warning> warnings;
  // The siblings: an authored Triton GEMM and its split-K variant,
  // both integrate results saying backend triton; the variant is named by
  // the candidate dir of one and only by the ledger direction of the other.
  RecordIn plain = candidate("cand_gemm_triton", "gemm", 1.6955, 19.35, "triton");
  RecordIn splitk = candidate("cand_gemm_triton_splitk", "gemm", 1.6797, 13.65, "triton");
  RecordIn by_ledger = candidate("cand_gemm_triton_v2", "gemm", 1.41, 9.5, "triton");
  RecordIn patch = candidate("cand_gemm_wholefile", "gemm", 1.2, 3.0, "triton");
  RecordIn env = candidate("cand_gemm_splitk_env", "gemm", 1.1, 1.0, "hipblaslt");
  for (RecordIn* r : {&plain, &splitk, &by_ledger}) {
    r->record.lever = "authored triton kernel";
  }
  patch.record.lever = "code patch (triton)";
  env.record.lever = "backend hipblaslt (env HIPBLASLT_SPLITK=1)";
  std::vector<RecordIn> recs{plain,
                             splitk,
                             by_ledger,
                             patch,
                             env,
                             ledger("gemm:triton_v2_stream_k", 1.41, 9.5, "candidate_passed", 0),
                             ledger("gemm:triton_splitk", 1.6797, 13.65, "candidate_passed", 1),
                             ledger("gemm", 1.6955, 19.35, "confirmed", 2)};
  const auto out = build_attempts(recs, {"gemm"}, warnings);
  ASSERT_EQ(out.size(), 5U);
  EXPECT_EQ(out[0].record.lever, "authored triton kernel");
  EXPECT_FALSE(out[0].variant.has_value());
  EXPECT_EQ(out[1].record.lever, "authored triton kernel (split-K)");
  EXPECT_EQ(out[2].record.lever, "authored triton kernel (stream-K)");
  EXPECT_EQ(out[3].record.lever, "code patch (triton, whole-file)");
  // A backend lever keeps its text: its variant is part of its env already.
  EXPECT_EQ(out[4].variant, "split-K");
  EXPECT_EQ(out[4].record.lever, "backend hipblaslt (env HIPBLASLT_SPLITK=1)");
  EXPECT_TRUE(warnings.empty());
  // Each sibling keys a line of its own.
  EXPECT_NE(rfdb::domain::lever_key(out[0].record.lever, "gemm"),
            rfdb::domain::lever_key(out[1].record.lever, "gemm"));
}

TEST(AttemptModel, TheKernelsOwnNameIsNoVariant)
{
  std::vector<Warning> warnings;
  RecordIn c = candidate("cand_gemm_splitk_kernel_triton", "gemm_splitk_kernel", 1.3, 2.0, "triton");
  c.record.lever = "authored triton kernel";
  const auto out = build_attempts({c, ledger("gemm_splitk_kernel:triton", 1.3, 2.0, "candidate_passed", 0)},
                                  {"gemm_splitk_kernel"}, warnings);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_FALSE(out[0].variant.has_value());
  EXPECT_EQ(out[0].record.lever, "authored triton kernel");
}
