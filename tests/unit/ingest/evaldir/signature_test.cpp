// A candidate's csha:/asha: implementation signature (ingest/evaldir/signature.hpp). The
// expected values were computed once with a Python transcription of GEAK-KB §3.3
// (content_signature, artifact_signature, _safe).
#include "ingest/evaldir/signature.hpp"

#include <gtest/gtest.h>

namespace rfdb::ingest {
namespace {

// The final diff of two candidates' overlays: each candidate signs only its own file's section.
constexpr const char* k_final_diff = "diff --git a/overlay/k.py b/overlay/k.py\n"
                                     "--- a/overlay/k.py\n"
                                     "+++ b/overlay/k.py\n"
                                     "@@ -1,2 +1,2 @@\n"
                                     "-BLOCK = 64\n"
                                     "+BLOCK = 128\n"
                                     "diff --git a/overlay/other.py b/overlay/other.py\n"
                                     "new file mode 100644\n"
                                     "--- /dev/null\n"
                                     "+++ b/overlay/other.py\n"
                                     "@@ -0,0 +1 @@\n"
                                     "+x = 1\n";

AttemptRecord candidate(std::string dir)
{
  AttemptRecord a;
  a.short_name = "k";
  a.candidate = std::move(dir);
  return a;
}

TEST(CandidateSignature, RunRelativePathStripsEverythingUpToTheEvalDir)
{
  EXPECT_EQ(run_relative_path("/wekafs/exp/geak/e2e_X_1/config/ck_tune/t.csv", "e2e_X_1"),
            "config/ck_tune/t.csv");
  EXPECT_EQ(run_relative_path("./final/overlay/k.py", "e2e_X_1"), "final/overlay/k.py");
  EXPECT_EQ(run_relative_path("/elsewhere/config/t.csv", "e2e_X_1"), std::nullopt);
}

TEST(CandidateSignature, ACodePatchNamingAnOverlayFileSignsItsSectionOfTheFinalDiff)
{
  auto a = candidate("cand_k_rewrite");
  a.patch_ref = "/wekafs/exp/geak/e2e_X_1/final/overlay/k.py";
  const std::vector<ImplementationFile> files{{7, "final/final_patch.diff", "final", k_final_diff, false}};
  const auto sig = candidate_signature(a, files, "e2e_X_1");
  ASSERT_TRUE(sig);
  // Python: content_signature("-BLOCK = 64\n+BLOCK = 128") of the k.py section only.
  EXPECT_EQ(sig->signature, "csha:b1af94b0372ed882a9f2cf7b7134a945");
  EXPECT_EQ(sig->source_ids, std::vector<std::int64_t>{7});
  EXPECT_EQ(diff_sections_for(k_final_diff, "final/overlay/other.py").find("BLOCK"), std::string::npos);
}

TEST(CandidateSignature, ADiffInTheCandidateDirIsSignedWhole)
{
  const auto a = candidate("cand_k_rewrite");
  const std::vector<ImplementationFile> files{
      {3, "overlay/cand_k_rewrite/change.patch", "cand_k_rewrite",
       "--- a/k.py\n+++ b/k.py\n@@ -1,2 +1,2 @@\n-BLOCK = 64\n+BLOCK = 128\n", false},
      {4, "overlay/cand_other/change.patch", "cand_other", "--- a/k.py\n+++ b/k.py\n+y = 2\n", false}};
  const auto sig = candidate_signature(a, files, "e2e_X_1");
  ASSERT_TRUE(sig);
  EXPECT_EQ(sig->signature, "csha:b1af94b0372ed882a9f2cf7b7134a945");
  EXPECT_EQ(sig->source_ids, std::vector<std::int64_t>{3});
}

TEST(CandidateSignature, ATuningTableNamedByTheCandidateOrItsEnvSignsAsAsha)
{
  auto a = candidate("cand_gemm_ck_tuned");
  a.table_ref = "config/ck_tune/a8w8_blockscale_tp4.csv";
  const std::vector<ImplementationFile> files{
      {9, "config/ck_tune/a8w8_blockscale_tp4.csv", "ck_tune", "M,N,K,kernel_id\n16,4096,4096,3\n", true}};
  const auto sig = candidate_signature(a, files, "e2e_X_1");
  ASSERT_TRUE(sig);
  EXPECT_EQ(sig->signature, "asha:1af24ddfbad10aab5b78abd86eb70431");

  // A directory named by the env change (VLLM_TUNED_CONFIG_FOLDER): its files, stored under
  // GEAK's _safe names.
  auto moe = candidate("cand_moe_tuned");
  moe.apply_env = "VLLM_TUNED_CONFIG_FOLDER=/wekafs/exp/geak/e2e_X_1/config/moe_tuned_int4";
  const std::vector<ImplementationFile> tables{
      {5, "config/moe_tuned_int4/E=384,N=256,device_name=AMD_Instinct_MI300X,dtype=int4_w4a16.json",
       "moe_tuned_int4", "{\"16\": {\"BLOCK_SIZE_M\": 16}}\n", true}};
  const auto moe_sig = candidate_signature(moe, tables, "e2e_X_1");
  ASSERT_TRUE(moe_sig);
  EXPECT_EQ(moe_sig->signature, "asha:ea59683045e9d79a87154e3895e0a3e0");
  EXPECT_EQ(geak_safe_name("E=384,N=256,device_name=AMD_Instinct_MI300X,dtype=int4_w4a16.json"),
            "E-384-N-256-device_name-AMD_Instinct_MI300X-dtype-int4_w4a16.json");
}

TEST(CandidateSignature, NoStoredImplementationNoSignature)
{
  auto a = candidate("cand_k_swap");
  a.apply_env = "VLLM_ROCM_USE_AITER=1";
  a.patch_ref = "final/overlay/missing.py";
  const std::vector<ImplementationFile> files{{7, "final/final_patch.diff", "final", k_final_diff, false}};
  EXPECT_FALSE(candidate_signature(a, files, "e2e_X_1"));
}

} // namespace
} // namespace rfdb::ingest
