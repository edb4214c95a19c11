// GEAK's csha:/asha: signatures (domain/content_signature.hpp). The expected values were
// computed with a Python transcription of the rule of GEAK-KB §3.3 (docs/kb.md).
#include "domain/content_signature.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rfdb::domain {
namespace {

constexpr const char* k_diff = "diff --git a/aiter/ops/gemm.py b/aiter/ops/gemm.py\n"
                               "index 1a2b3c4..5d6e7f8 100644\n"
                               "--- a/aiter/ops/gemm.py\n"
                               "+++ b/aiter/ops/gemm.py\n"
                               "@@ -10,7 +10,7 @@ def gemm(a, b):\n"
                               "     m, k = a.shape\n"
                               "-    BLOCK_M = 64\n"
                               "+    BLOCK_M = 128\n"
                               "     BLOCK_N = 64\n";

TEST(ContentSignature, SignsTheChangedLinesOfADiff)
{
  EXPECT_EQ(content_signature(k_diff), "csha:ff7d0e7decb173284b3fb3f03c04463b");
}

TEST(ContentSignature, TheSameChangeUnderOtherPathsOffsetsAndSpacingSignsTheSame)
{
  const std::string moved = "diff --git a/other/layout/k.py b/other/layout/k.py\n"
                            "--- a/other/layout/k.py\n"
                            "+++ b/other/layout/k.py\n"
                            "@@ -99,7 +99,7 @@\n"
                            "-    BLOCK_M   =   64   \n"
                            "+\tBLOCK_M = 128\n"
                            "+   \n";
  EXPECT_EQ(content_signature(moved), content_signature(k_diff));
}

TEST(ContentSignature, ADifferentChangeSignsDifferently)
{
  std::string other = k_diff;
  other.replace(other.find("128"), 3, "256");
  EXPECT_NE(content_signature(other), content_signature(k_diff));
  EXPECT_EQ(content_signature(other).size(), 5U + 32U);
}

TEST(ContentSignature, SplitsLinesAsPythonDoes)
{
  // \v splits ("-" alone is empty, "x = 1" has no sign), \r\n splits, \x1c splits ("= 2" has no
  // sign), a trailing U+00A0 is whitespace: only "+y" is kept.
  EXPECT_EQ(content_signature("-\vx = 1\r\n+ y\x1c= 2\xc2\xa0\n"), "csha:4973b53bfb68d62e54b208f22dc57000");
  EXPECT_EQ(content_signature("+y"), "csha:4973b53bfb68d62e54b208f22dc57000");
}

TEST(ContentSignature, ADiffThatChangesNoLineHasNoSignature)
{
  EXPECT_EQ(content_signature("--- a\n+++ b\n@@ -1 +1 @@\n context\n"), "");
  EXPECT_EQ(content_signature(""), "");
  EXPECT_EQ(content_signature("+   \n-\t\n"), "");
}

TEST(ArtifactSignature, SignsNamesAndContentsInNameOrder)
{
  const std::string expected = "asha:98cca7dab76b2075669c8fef69c97f57";
  EXPECT_EQ(artifact_signature({{"tuned.csv", "M,N,K,bm\n16,4096,4096,64\n"}, {"a.json", "{}"}}), expected);
  EXPECT_EQ(artifact_signature({{"a.json", "{}"}, {"tuned.csv", "M,N,K,bm\n16,4096,4096,64\n"}}), expected);
  EXPECT_NE(artifact_signature({{"a.json", "{}"}, {"tuned.csv", "M,N,K,bm\n16,4096,4096,32\n"}}), expected);
  EXPECT_EQ(artifact_signature({}), "");
}

} // namespace
} // namespace rfdb::domain
