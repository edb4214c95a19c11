// The documentation stands alone (issue 13): README.md, docs/ and every
// --help text cite only files that are in the repository.
#include "support/helpers.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

const fs::path k_root = RFDB_SOURCE_DIR;

std::vector<fs::path> user_docs()
{
  std::vector<fs::path> docs{k_root / "README.md"};
  for (const auto& e : fs::directory_iterator(k_root / "docs")) {
    if (e.path().extension() == ".md") {
      docs.push_back(e.path());
    }
  }
  std::sort(docs.begin(), docs.end());
  return docs;
}

// The texts a user sees: rfdb --help and each command's --help.
std::vector<std::pair<std::string, std::string>> help_texts()
{
  std::vector<std::pair<std::string, std::string>> out{{"rfdb --help", run_cli({"--help"}).out}};
  for (const char* cmd : {"ingest", "priors", "report", "runs", "show", "retract", "restore", "tag", "untag",
                          "query", "export", "check", "migrate", "copy", "lookup", "rescore", "diff"}) {
    out.emplace_back(std::string("rfdb ") + cmd + " --help", run_cli({cmd, "--help"}).out);
  }
  return out;
}

// Files outside the clone that earlier texts cited.
void expect_no_outside_reference(const std::string& where, const std::string& text)
{
  for (const char* outside : {"FORMATS.md", "DESIGN.md", "STYLE.md", "/work/"}) {
    EXPECT_EQ(text.find(outside), std::string::npos) << where << " cites " << outside;
  }
}

} // namespace

TEST(Docs, MarkdownLinksPointAtFilesInTheRepository)
{
  const std::regex link(R"(\]\(([^)#\s]+)(#[^)]*)?\))");
  int checked = 0;
  for (const auto& doc : user_docs()) {
    const std::string text = read_bytes(doc);
    expect_no_outside_reference(doc.string(), text);
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const std::string target = (*it)[1];
      if (target.rfind("http", 0) == 0) {
        continue;
      }
      ++checked;
      EXPECT_TRUE(fs::exists(doc.parent_path() / target)) << doc << " links to missing " << target;
    }
  }
  EXPECT_GT(checked, 20);
}

TEST(Docs, HelpTextsCiteOnlyRepositoryFiles)
{
  const std::regex file_ref(R"(([A-Za-z0-9_./-]+/)?[A-Za-z0-9_.-]+\.(md|sql|sh)\b)");
  for (const auto& [where, text] : help_texts()) {
    ASSERT_FALSE(text.empty()) << where;
    expect_no_outside_reference(where, text);
    for (std::sregex_iterator it(text.begin(), text.end(), file_ref), end; it != end; ++it) {
      const std::string ref = (*it)[0];
      if (ref.find('/') == std::string::npos || ref.rfind("playbook.md", 0) == 0 ||
          ref.find("knowledge/") != std::string::npos) {
        continue; // an example output file or a user's knowledge file, not a citation
      }
      EXPECT_TRUE(fs::exists(k_root / ref))
          << where << " cites " << ref << ", which is not in the repository";
    }
  }
}

TEST(Docs, EveryDocsPageIsListedInTheGuide)
{
  const std::string index = read_bytes(k_root / "docs" / "README.md");
  for (const auto& doc : user_docs()) {
    const std::string name = doc.filename().string();
    if (doc.parent_path().filename() == "docs" && name != "README.md") {
      EXPECT_NE(index.find("](" + name + ")"), std::string::npos) << name << " is not in docs/README.md";
    }
  }
}

} // namespace rfdb::test
