// Symlinks among knowledge files (issue 34): a backend_playbook.md that is a
// link to a system file is not imported as a playbook, a symlinked card in a
// knowledge dir is a warning (not a silent skip), and --follow-links reads
// both. The files are read race-free, as eval-dir artifacts are.
#include "support/helpers.hpp"

#include "ingest/evaldir/files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

fs::path knowledge_fixture(const std::string& rel)
{
  return fixtures_dir() / "knowledge" / rel;
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

CliResult ingest(const fs::path& db, std::vector<std::string> args)
{
  args.insert(args.begin(), {"--db", db.string(), "ingest", "--format", "table"});
  return run_cli(args);
}

std::string findings(const fs::path& db)
{
  return query_value(db, "SELECT count(*) FROM learned_findings");
}

} // namespace

TEST(KnowledgeLinks, PlaybookLinkedToASystemFileIsRefusedAndThePathFails)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  fs::create_directories(tmp / "kb");
  const auto link = tmp / "kb" / "backend_playbook.md";
  fs::create_symlink("/etc/passwd", link);
  auto r = ingest(db, {link.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "refused to read backend_playbook.md: symlink leaving the directory it is "
                              "named in (→ /etc/passwd); --follow-links reads it"))
      << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "0");
  EXPECT_EQ(findings(db), "0");

  r = run_cli({"--db", db.string(), "ingest", "--format", "json", link.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["paths"][0]["status"], "failed") << r.out;
  EXPECT_EQ(report["paths"][0]["kind"], "knowledge") << r.out;

  // Read with --follow-links, a system file named like the playbook holds
  // no playbook line: a warning says so (an error with --strict).
  r = ingest(db, {"--follow-links", link.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: backend_playbook.md: no playbook line found; is this a backend "
                              "playbook?"))
      << r.err;
  EXPECT_EQ(findings(db), "0");
  r = ingest(tmp / "strict.sqlite", {"--follow-links", "--strict", link.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "1 warning(s) with --strict; nothing was written")) << r.err;
}

TEST(KnowledgeLinks, PlaybookLinkLeavingItsDirectoryIsReadWithFollowLinksAndOneInsideWithout)
{
  TempDir tmp;
  const auto plain = tmp / "plain.sqlite";
  ASSERT_EQ(ingest(plain, {knowledge_fixture("backend_playbook.md").string()}).code, 0);
  const std::string expected = findings(plain);
  ASSERT_NE(expected, "0");

  fs::create_directories(tmp / "kb" / "versions");
  fs::create_directories(tmp / "elsewhere");
  fs::copy_file(knowledge_fixture("backend_playbook.md"), tmp / "elsewhere" / "playbook.md");
  fs::copy_file(knowledge_fixture("backend_playbook.md"), tmp / "kb" / "versions" / "v2.md");
  const auto outside = tmp / "kb" / "backend_playbook.md";
  fs::create_symlink(tmp / "elsewhere" / "playbook.md", outside);

  const auto db = tmp / "rfdb.sqlite";
  auto r = ingest(db, {outside.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(
      contains(r.err, "refused to read backend_playbook.md: symlink leaving the directory it is named in"))
      << r.err;
  EXPECT_EQ(findings(db), "0");
  r = ingest(db, {"--follow-links", outside.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "not read")) << r.err;
  EXPECT_EQ(findings(db), expected);
  EXPECT_EQ(query_value(db, "SELECT rel_path FROM sources"), "backend_playbook.md");

  // A link to a file inside the directory it is named in is read as named.
  const auto inside_db = tmp / "inside.sqlite";
  fs::remove(outside);
  fs::create_symlink("versions/v2.md", outside);
  r = ingest(inside_db, {outside.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "not read")) << r.err;
  EXPECT_EQ(findings(inside_db), expected);
}

TEST(KnowledgeLinks, SymlinkedCardInAKnowledgeDirIsWarnedAndReadOnlyWithFollowLinks)
{
  TempDir tmp;
  const auto plain = tmp / "plain.sqlite";
  ASSERT_EQ(ingest(plain, {knowledge_fixture("learned").string()}).code, 0);
  const int cards = std::stoi(findings(plain));

  const auto dir = tmp / "learned";
  fs::copy(knowledge_fixture("learned"), dir, fs::copy_options::recursive);
  fs::create_directories(tmp / "shared");
  fs::copy_file(knowledge_fixture("negative/e2e-loss-gemm-gfx950.md"),
                tmp / "shared" / "e2e-loss-gemm-gfx950.md");
  fs::create_symlink(tmp / "shared" / "e2e-loss-gemm-gfx950.md", dir / "e2e-loss-gemm-gfx950.md");
  fs::create_symlink("/etc/passwd", dir / "passwd.md");

  const auto db = tmp / "rfdb.sqlite";
  auto r = ingest(db, {dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: learned/e2e-loss-gemm-gfx950.md: not read: symlink (→ " +
                                  (tmp / "shared" / "e2e-loss-gemm-gfx950.md").string() +
                                  "); --follow-links reads it"))
      << r.err;
  EXPECT_TRUE(contains(
      r.err, "rfdb: warning: learned/passwd.md: not read: symlink (→ /etc/passwd); --follow-links reads it"))
      << r.err;
  EXPECT_EQ(std::stoi(findings(db)), cards);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE rel_path LIKE '%passwd%' OR rel_path LIKE "
                            "'%e2e-loss%'"),
            "0");

  r = ingest(db, {"--strict", dir.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "learned/passwd.md: not read: symlink")) << r.err;

  fs::remove(dir / "passwd.md");
  r = ingest(db, {"--follow-links", dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "not read")) << r.err;
  EXPECT_EQ(std::stoi(findings(db)), cards + 1);
  EXPECT_EQ(
      query_value(db, "SELECT count(*) FROM sources WHERE rel_path = 'learned/e2e-loss-gemm-gfx950.md'"),
      "1");
}

namespace {

fs::path g_swap_card;    // the card to swap for a link
fs::path g_swap_outside; // what the link points at
bool g_swapped = false;

void swap_card(const std::string& rel_path)
{
  if (!g_swapped && rel_path == g_swap_card.filename().string()) {
    g_swapped = true;
    fs::remove(g_swap_card);
    fs::create_symlink(g_swap_outside, g_swap_card);
  }
}

} // namespace

TEST(KnowledgeLinks, CardSwappedForALinkBetweenListingAndReadingIsNotRead)
{
  TempDir tmp;
  const auto dir = tmp / "learned";
  fs::create_directories(dir);
  fs::copy_file(knowledge_fixture("merge/rmsnorm-aiter-gfx942-prefill.md"),
                dir / "rmsnorm-aiter-gfx942-prefill.md");
  fs::copy_file(knowledge_fixture("negative/e2e-loss-gemm-gfx950.md"), dir / "e2e-loss-gemm-gfx950.md");
  write_bytes(tmp / "secret.md", "SECRET_OUTSIDE_MARKER\n");
  g_swap_card = dir / "e2e-loss-gemm-gfx950.md";
  g_swap_outside = tmp / "secret.md";
  g_swapped = false;
  ingest::set_before_open_hook(&swap_card);
  const auto db = tmp / "rfdb.sqlite";
  const auto r = ingest(db, {dir.string()});
  ingest::set_before_open_hook(nullptr);
  ASSERT_TRUE(g_swapped);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: learned/e2e-loss-gemm-gfx950.md: not read: it became a symlink "
                              "between listing and reading"))
      << r.err;
  EXPECT_EQ(query_value(db, "SELECT group_concat(rel_path) FROM sources"),
            "learned/rmsnorm-aiter-gfx942-prefill.md");
}

} // namespace rfdb::test
