// `rfdb report -o FILE --cards DIR` never writes outside what it was given
// and never loses a file: a symlink, FIFO or other non-regular file at a
// target is refused (naming it) before anything is written, and a write that
// fails part-way (a full disk, injected with util::set_write_fault_after)
// leaves every existing file as it was.
#include "support/helpers.hpp"

#include "util/safe_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sys/stat.h>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

// Every entry of a directory (symlinks not followed) with its content, or
// its kind when it is not a regular file.
std::map<std::string, std::string> listing(const fs::path& dir)
{
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto type = e.symlink_status().type();
    out[e.path().filename().string()] = type == fs::file_type::regular ? read_bytes(e.path())
                                        : type == fs::file_type::symlink
                                            ? "-> " + fs::read_symlink(e.path()).string()
                                            : "(special)";
  }
  return out;
}

// Clears the fault hook whatever the test does.
struct FaultAfter {
  explicit FaultAfter(std::size_t bytes) { util::set_write_fault_after(bytes); }
  ~FaultAfter() { util::set_write_fault_after(std::nullopt); }
  FaultAfter(const FaultAfter&) = delete;
  FaultAfter& operator=(const FaultAfter&) = delete;
};

class ReportFiles : public SampleDatabase {
protected:
  // The playbook as of a fixed date; with --cards, as of the newest run (the
  // only as-of cards are written for).
  CliResult report(const std::vector<std::string>& extra) const
  {
    std::vector<std::string> args{"--db", s_db.string(), "report"};
    if (std::find(extra.begin(), extra.end(), "--cards") == extra.end()) {
      args.insert(args.end(), {"--as-of", "2026-11-30"});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  }
};

const std::string k_hand_index = "# Our cards\n\nHand-written text above the markers.\n\n"
                                 "<!-- CARDS:BEGIN -->\nold block\n<!-- CARDS:END -->\n\nAnd below.\n";

TEST_F(ReportFiles, ASymlinkedIndexIsRefusedAndItsTargetUntouched)
{
  TempDir tmp;
  const fs::path outside = tmp / "outside.md";
  write_bytes(outside, "not rfdb's to touch\n");
  const fs::path cards = tmp / "cards";
  fs::create_directories(cards);
  fs::create_symlink(outside, cards / "INDEX.md");
  const auto before = listing(cards);
  const auto r = report({"-o", (tmp / "pb.md").string(), "--cards", cards.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, (cards / "INDEX.md").string())) << r.err;
  EXPECT_TRUE(contains(r.err, "refusing to write: it is a symbolic link")) << r.err;
  EXPECT_EQ(read_bytes(outside), "not rfdb's to touch\n");
  EXPECT_EQ(listing(cards), before);       // no card written either
  EXPECT_FALSE(fs::exists(tmp / "pb.md")); // checked before the first write
}

TEST_F(ReportFiles, ADanglingLinkWithACardsNameCreatesNothing)
{
  TempDir tmp;
  const fs::path cards = tmp / "cards";
  fs::create_directories(cards);
  const fs::path target = tmp / "elsewhere" / "created.md";
  fs::create_symlink(target, cards / "authored-triton-kernel-attn-gfx950-decode.md");
  const auto r = report({"--cards", cards.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "authored-triton-kernel-attn-gfx950-decode.md")) << r.err;
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(fs::exists(tmp / "elsewhere"));
  EXPECT_FALSE(fs::exists(cards / "INDEX.md"));
}

TEST_F(ReportFiles, AFifoNamedIndexIsRefusedWithoutHanging)
{
  TempDir tmp;
  const fs::path cards = tmp / "cards";
  fs::create_directories(cards);
  ASSERT_EQ(::mkfifo((cards / "INDEX.md").c_str(), 0644), 0);
  const auto r = report({"--cards", cards.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "refusing to write: it is a FIFO")) << r.err;
  EXPECT_EQ(listing(cards).size(), 1u);
}

// The cards directory follows all the evidence: a narrowed report would
// archive the other cards and drop them from INDEX.md, so --cards with
// --gfx, --since or --as-of is a usage error that writes nothing.
TEST_F(ReportFiles, CardsOfANarrowedReportAreRefusedAndNothingIsWritten)
{
  TempDir tmp;
  const fs::path cards = tmp / "cards";
  const fs::path pb = tmp / "pb.md";
  const auto refused = [&](const std::vector<std::string>& narrowing, const std::string& message) {
    std::vector<std::string> args{"--db",      s_db.string(), "report",      "-o",
                                  pb.string(), "--cards",     cards.string()};
    args.insert(args.end(), narrowing.begin(), narrowing.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, message)) << r.err;
    EXPECT_TRUE(contains(r.err, "write it with `rfdb report --cards DIR`")) << r.err;
    EXPECT_FALSE(fs::exists(cards));
    EXPECT_FALSE(fs::exists(pb));
  };
  refused({"--gfx", "gfx950"}, "--cards cannot be combined with --gfx");
  refused({"--since", "2026-01-01"}, "--cards cannot be combined with --since");
  // An --as-of moves which findings are fresh enough to show, even after the
  // newest run: cards are written as of the newest run only.
  refused({"--as-of", "2026-08-01"}, "--cards cannot be combined with --as-of");
  refused({"--as-of", "2027-06-01"}, "--cards cannot be combined with --as-of");
  const auto r = report({"-o", pb.string(), "--cards", cards.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(cards / "INDEX.md"));
}

TEST_F(ReportFiles, ASymlinkAtTheOutputPathIsRefused)
{
  TempDir tmp;
  const fs::path real = tmp / "real.md";
  write_bytes(real, "keep me\n");
  fs::create_symlink(real, tmp / "pb.md");
  const auto r = report({"-o", (tmp / "pb.md").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, (tmp / "pb.md").string())) << r.err;
  EXPECT_EQ(read_bytes(real), "keep me\n");
  EXPECT_TRUE(fs::is_symlink(tmp / "pb.md"));
}

TEST_F(ReportFiles, TheDatabaseItselfIsNeverAnOutputFile)
{
  TempDir tmp;
  const fs::path db = tmp / "store.sqlite";
  fs::copy_file(s_db, db);
  const std::string before = read_bytes(db);
  for (const std::string& target :
       {db.string(), (tmp / "." / "store.sqlite").string(), db.string() + "-wal"}) {
    auto r = run_cli({"--db", db.string(), "report", "-o", target});
    EXPECT_EQ(r.code, 2) << target;
    EXPECT_TRUE(contains(r.err, "-o " + target + " names the database itself")) << r.err;
    r = run_cli({"--db", db.string(), "export", "-o", target});
    EXPECT_EQ(r.code, 2) << target;
    EXPECT_TRUE(contains(r.err, "names the database itself")) << r.err;
  }
  EXPECT_EQ(read_bytes(db), before);
}

TEST_F(ReportFiles, AFullDiskLeavesEveryExistingFileIntact)
{
  TempDir tmp;
  const fs::path cards = tmp / "cards";
  const fs::path pb = tmp / "pb.md";
  ASSERT_EQ(report({"-o", pb.string(), "--cards", cards.string()}).code, 0);
  // Hand-written text around the markers, and a card edited since.
  write_bytes(cards / "INDEX.md", k_hand_index);
  write_bytes(cards / "authored-triton-kernel-attn-gfx950-decode.md", "---\ngenerator: rfdb\n---\nedited\n");
  write_bytes(pb, "old playbook\n");
  const auto before = listing(cards);
  {
    const FaultAfter fault(0); // the first byte fails: ENOSPC
    const auto r = report({"-o", pb.string(), "--cards", cards.string()});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.err, "No space left on device")) << r.err;
    EXPECT_TRUE(contains(r.err, pb.string())) << r.err;
  }
  EXPECT_EQ(read_bytes(pb), "old playbook\n");
  EXPECT_EQ(listing(cards), before); // nothing truncated, no temporary left
  EXPECT_EQ(listing(tmp.path()).size(), 2u);
}

TEST_F(ReportFiles, AFullDiskPartWayKeepsWhatWasNotYetReplaced)
{
  TempDir tmp;
  const fs::path cards = tmp / "cards";
  fs::create_directories(cards);
  write_bytes(cards / "INDEX.md", k_hand_index);
  const fs::path pb = tmp / "pb.md";
  const std::string playbook = run_cli({"--db", s_db.string(), "report"}).out; // as --cards writes it
  {
    // The playbook fits; the first card runs out of space.
    const FaultAfter fault(playbook.size() + 100);
    const auto r = report({"-o", pb.string(), "--cards", cards.string()});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.err, "No space left on device")) << r.err;
  }
  EXPECT_EQ(read_bytes(pb), playbook); // replaced whole
  const auto after = listing(cards);
  EXPECT_EQ(after.at("INDEX.md"), k_hand_index); // INDEX.md is written last: still the old one
  for (const auto& [name, content] : after) {
    EXPECT_FALSE(name.starts_with(".")) << "temporary left behind: " << name;
    EXPECT_FALSE(content.empty()) << name;
  }
  // Once there is room again, the run completes and keeps the hand-written text.
  const auto r = report({"-o", pb.string(), "--cards", cards.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string index = read_bytes(cards / "INDEX.md");
  EXPECT_TRUE(
      index.starts_with("# Our cards\n\nHand-written text above the markers.\n\n<!-- CARDS:BEGIN -->"));
  EXPECT_TRUE(index.ends_with("<!-- CARDS:END -->\n\nAnd below.\n"));
}

TEST_F(ReportFiles, ShowAttemptNamesTheKeysOfARunWhenOneIsUnknown)
{
  const auto r = run_cli({"--db", s_db.string(), "show", k_canonical_run, "--attempt", "cand:nope"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "has no attempt 'cand:nope'")) << r.err;
  EXPECT_TRUE(contains(r.err, "cand:cand_fused_moe_kernel")) << r.err;
  const auto text = run_cli({"--db", s_db.string(), "show", k_canonical_run, "--attempt",
                             "cand:cand_fused_moe_kernel", "--format", "table"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "gate                             rejected\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "overlay/cand_fused_moe_kernel/integrate_result.json  (integrate_result)"))
      << text.out;
}

} // namespace
} // namespace rfdb::test
