// report::signed_patch: the stored diff a csha: attempt signature was computed from — what
// `export --kb` writes as patch.diff and `rfdb lookup` names as a lever's `apply`
// (docs/kb-export.md, docs/lookup.md).
#include "domain/content_signature.hpp"
#include "report/kb_export.hpp"

#include <gtest/gtest.h>

namespace rfdb::report {
namespace {

const std::string k_first = "diff --git a/overlay/a.py b/overlay/a.py\n"
                            "--- a/overlay/a.py\n"
                            "+++ b/overlay/a.py\n"
                            "@@ -1 +1 @@\n"
                            "-x = 1\n"
                            "+x = 2\n";
const std::string k_second = "diff --git a/overlay/b.py b/overlay/b.py\n"
                             "new file mode 100644\n"
                             "--- /dev/null\n"
                             "+++ b/overlay/b.py\n"
                             "@@ -0,0 +1,2 @@\n"
                             "+def k():\n"
                             "+    return 3\n";

store::CitedSource patch_source(std::string rel)
{
  store::CitedSource c;
  c.rel_path = std::move(rel);
  c.kind = "patch";
  return c;
}

TEST(SignedPatch, ASharedDiffIsSignedByTheSectionThatSignsAndNamesItsFileAndLines)
{
  const std::unordered_map<std::string, std::string> texts{{"final/final_patch.diff", k_first + k_second}};
  const std::vector<store::CitedSource> cited{patch_source("final/final_patch.diff")};
  const auto sp = signed_patch(domain::content_signature(k_second), cited, texts);
  ASSERT_TRUE(sp.has_value());
  EXPECT_EQ(sp->text, k_second);
  EXPECT_EQ(sp->files, std::vector<std::string>{"final/final_patch.diff"});
  EXPECT_EQ(sp->section, "overlay/b.py");
  EXPECT_EQ(sp->first_line, 7U);
  EXPECT_EQ(sp->last_line, 13U);
  const auto first = signed_patch(domain::content_signature(k_first), cited, texts);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->section, "overlay/a.py");
  EXPECT_EQ(first->first_line, 1U);
  EXPECT_EQ(first->last_line, 6U);
}

TEST(SignedPatch, TheWholeDiffWhenItSignsAndNothingWhenNoPartDoes)
{
  const std::unordered_map<std::string, std::string> texts{{"cand_x/a.diff", k_first},
                                                           {"cand_x/b.diff", k_second}};
  const std::vector<store::CitedSource> cited{patch_source("cand_x/a.diff"), patch_source("cand_x/b.diff")};
  const auto whole = signed_patch(domain::content_signature(k_first + k_second), cited, texts);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->text, k_first + k_second);
  EXPECT_EQ(whole->files, (std::vector<std::string>{"cand_x/a.diff", "cand_x/b.diff"}));
  EXPECT_EQ(whole->section, "");
  EXPECT_FALSE(signed_patch("csha:00000000000000000000000000000000", cited, texts).has_value());
  EXPECT_FALSE(signed_patch("asha:00000000000000000000000000000000", cited, texts).has_value());
  // A superseded or unstored source is not read.
  std::vector<store::CitedSource> old = cited;
  old[1].superseded = true;
  EXPECT_FALSE(signed_patch(domain::content_signature(k_second), old, texts).has_value());
}

} // namespace
} // namespace rfdb::report
