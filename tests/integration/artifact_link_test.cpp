// A single artifact given with `--run RUN FILE` (issue 34 item 1, follow-up)
// is listed and read as an eval dir's file is — beneath its directory, race
// free — under the rule for a named knowledge file: a link leaving the
// directory it is named in is refused (the path fails) unless
// --follow-links; a link to a file in that directory is read.
#include "support/helpers.hpp"

#include "ingest/evaldir/files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

const std::string k_roofline = "profile/round_0/profile_roofline.json";

// A copy of the canonical run whose profile_roofline.json is moved outside
// it (tmp/outside/profile_roofline.json).
struct LinkSetup {
  TempDir tmp;
  fs::path db = tmp / "rfdb.sqlite";
  fs::path run = copy_run(k_canonical_run, tmp.path());
  fs::path named = run / k_roofline;
  fs::path outside = tmp / "outside" / "profile_roofline.json";
  LinkSetup()
  {
    fs::create_directories(outside.parent_path());
    fs::rename(named, outside);
  }
  CliResult ingest(std::vector<std::string> extra = {}) const
  {
    std::vector<std::string> args{"--db", db.string(), "ingest", "--run", "manual_run"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(named.string());
    return run_cli(args);
  }
  std::string stored() const
  {
    return query_value(db, "SELECT count(*) FROM sources WHERE run_id = 'manual_run'");
  }
};

fs::path g_swap_file;
bool g_swapped = false;

void swap_named(const std::string& /*rel_path*/)
{
  if (!g_swapped) {
    g_swapped = true;
    fs::remove(g_swap_file);
    fs::create_symlink("/etc/passwd", g_swap_file);
  }
}

} // namespace

TEST(ArtifactLinks, NamedArtifactLinkLeavingItsDirectoryIsRefusedUnlessFollowLinks)
{
  LinkSetup s;
  fs::create_symlink("../../../outside/profile_roofline.json", s.named);
  auto r = s.ingest();
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "refused to read " + k_roofline +
                                  ": symlink leaving the directory it is named in (→ " + s.outside.string() +
                                  "); --follow-links reads it"))
      << r.err;
  EXPECT_EQ(s.stored(), "0");

  r = s.ingest({"--follow-links"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT rel_path FROM sources WHERE run_id = 'manual_run'"), k_roofline);
}

TEST(ArtifactLinks, NamedArtifactLinkedToASystemFileIsNotRead)
{
  LinkSetup s;
  fs::create_symlink("/etc/passwd", s.named);
  auto r = s.ingest({"--format", "json"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "symlink leaving the directory it is named in (→ /etc/passwd)")) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["paths"][0]["status"], "failed") << r.out;
  EXPECT_EQ(s.stored(), "0");
}

TEST(ArtifactLinks, NamedArtifactLinkToAFileInItsDirectoryIsRead)
{
  LinkSetup s;
  fs::rename(s.outside, s.named.parent_path() / "roofline_v2.json");
  fs::create_symlink("roofline_v2.json", s.named);
  const auto r = s.ingest();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "not read")) << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT rel_path FROM sources WHERE run_id = 'manual_run'"), k_roofline);
}

TEST(ArtifactLinks, NamedArtifactSwappedForALinkAfterItsCheckIsNotRead)
{
  LinkSetup s;
  fs::rename(s.outside, s.named);
  g_swap_file = s.named;
  g_swapped = false;
  ingest::set_before_open_hook(&swap_named);
  const auto r = s.ingest();
  ingest::set_before_open_hook(nullptr);
  ASSERT_TRUE(g_swapped);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(
      contains(r.err, "refused to read " + k_roofline + ": it became a symlink between listing and reading"))
      << r.err;
  EXPECT_EQ(s.stored(), "0");
}

} // namespace rfdb::test
