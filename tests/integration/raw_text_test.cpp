// Stored file text (migration 0008): compressed with zstd, migrated from
// schema 7 byte-identical, and written back by `rfdb export --raw` exactly
// as ingested (BOM, CRLF and non-ASCII bytes included).
#include "support/helpers.hpp"

#include "store/database.hpp"
#include "util/zstd.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <unistd.h>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string> k_dev_runs = {"e2e_Kimi-K2.6_20260621_142207_774130_3902",
                                             "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726",
                                             "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931",
                                             "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817"};

// Every regular file under `dir` by path relative to it, with its bytes.
std::map<std::string, std::string> tree(const fs::path& dir)
{
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) {
      out[e.path().lexically_relative(dir).generic_string()] = read_bytes(e.path());
    }
  }
  return out;
}

} // namespace

TEST(RawText, FilesAreStoredCompressedAndRoundTrip)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = dev_run(k_dev_runs[0]);
  ASSERT_EQ(rfdb(db, {"ingest", run.string()}).code, 0);
  SQLite::Database conn(db.string(), SQLite::OPEN_READONLY);
  SQLite::Statement s(conn, "SELECT rel_path, bytes, raw_zst FROM sources ORDER BY rel_path");
  std::int64_t stored = 0;
  std::int64_t compressed = 0;
  int files = 0;
  while (s.executeStep()) {
    const std::string rel = s.getColumn(0).getString();
    const std::string frame = s.getColumn(2).getString();
    const auto text = util::zstd::decompress(frame);
    ASSERT_TRUE(text.has_value()) << rel;
    EXPECT_EQ(*text, read_bytes(run / rel)) << rel;
    EXPECT_EQ(static_cast<std::int64_t>(text->size()), s.getColumn(1).getInt64()) << rel;
    stored += s.getColumn(1).getInt64();
    compressed += static_cast<std::int64_t>(frame.size());
    ++files;
  }
  EXPECT_GT(files, 15);
  EXPECT_LT(compressed * 3, stored) << "zstd keeps less than a third of the JSON";

  // rfdb query shows the stored text decompressed, as `raw`.
  const auto q = rfdb(db, {"query", "run_sources", "-p", "run_id=" + k_dev_runs[0], "--format", "json"});
  ASSERT_EQ(q.code, 0) << q.err;
  const auto rows = json::parse(q.out);
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(files));
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("raw").get<std::string>(), read_bytes(run / row.at("rel_path").get<std::string>()));
  }
}

TEST(RawText, MigratingFromSchema7CompressesEveryFileByteIdentical)
{
  TempDir tmp;
  const auto current = tmp / "current.sqlite";
  for (const auto& name : k_dev_runs) {
    const auto r = rfdb(current, {"ingest", dev_run(name).string()});
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
  }
  const auto db = tmp / "rfdb.sqlite";
  copy_to_older_schema(current, db, 7);
  const std::string files = query_value(db, "SELECT count(*) || '/' || sum(bytes) FROM sources");
  const std::string samples = query_value(db, "SELECT count(*) FROM kernel_samples");
  const std::string verdicts = query_value(db, "SELECT count(*) FROM verdicts");
  const std::string attempts = query_value(db, "SELECT count(*) FROM attempts");
  ASSERT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE length(CAST(raw AS BLOB)) = bytes"),
            files.substr(0, files.find('/')));

  const auto migrate = rfdb(db, {"migrate"});
  ASSERT_EQ(migrate.code, 0) << migrate.err;
  const std::string newest = std::to_string(store::newest_schema_version());
  EXPECT_TRUE(migrate.out.find("from schema version 7 to " + newest) != std::string::npos) << migrate.out;
  EXPECT_EQ(query_value(db, "PRAGMA user_version"), newest);
  EXPECT_EQ(query_value(db, "SELECT count(*) || '/' || sum(bytes) FROM sources"), files);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM kernel_samples"), samples);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM verdicts"), verdicts);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM attempts"), attempts);
  EXPECT_EQ(
      query_value(db, "SELECT count(*) FROM pragma_table_info('sources') WHERE name IN ('raw', 'size')"),
      "0");

  // Every file decompresses to the bytes on disk, with the same sha256 row.
  SQLite::Database conn(db.string(), SQLite::OPEN_READONLY);
  SQLite::Statement s(conn, "SELECT run_id, rel_path, bytes, raw_zst FROM sources WHERE run_id IS NOT NULL");
  int checked = 0;
  while (s.executeStep()) {
    const fs::path file = dev_run(s.getColumn(0).getString()) / s.getColumn(1).getString();
    const auto text = util::zstd::decompress(s.getColumn(3).getString());
    ASSERT_TRUE(text.has_value()) << file;
    EXPECT_EQ(*text, read_bytes(file)) << file;
    ++checked;
  }
  EXPECT_EQ(std::to_string(checked), files.substr(0, files.find('/')));
  EXPECT_EQ(
      query_value(db, "SELECT group_concat(hex(sha256), ',') FROM (SELECT sha256 FROM sources ORDER BY 1)"),
      query_value(current,
                  "SELECT group_concat(hex(sha256), ',') FROM (SELECT sha256 FROM sources ORDER BY 1)"));

  // The migrated database reads as a fresh one: check re-parses every cited
  // file, and a re-ingest finds every run unchanged.
  const auto check = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  for (const auto& name : k_dev_runs) {
    const auto r = rfdb(db, {"ingest", "--format", "json", dev_run(name).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["paths"][0]["status"], "unchanged") << r.out;
  }
}

TEST(RawText, MigratingFromSchema9StoresEachDigestAsItsBytesAndKeepsEveryFile)
{
  TempDir tmp;
  const auto current = tmp / "current.sqlite";
  for (const auto& name : k_dev_runs) {
    const auto r = rfdb(current, {"ingest", dev_run(name).string()});
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
  }
  const auto db = tmp / "rfdb.sqlite";
  copy_to_older_schema(current, db, 9);
  // Schema 9 spells each digest in 64 hex characters.
  const std::string digests = query_value(
      db, "SELECT group_concat(sha256, ',') FROM (SELECT sha256 FROM sources ORDER BY source_id)");
  ASSERT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE length(sha256) = 64"),
            query_value(db, "SELECT count(*) FROM sources"));
  const std::string counts =
      "SELECT (SELECT count(*) || '/' || sum(bytes) FROM sources) || ' ' || "
      "(SELECT count(*) FROM attempts) || ' ' || (SELECT count(*) FROM verdicts) || ' ' || "
      "(SELECT count(*) FROM observations)";
  const std::string before = query_value(db, counts);

  const auto migrate = rfdb(db, {"migrate"});
  ASSERT_EQ(migrate.code, 0) << migrate.err;
  EXPECT_TRUE(migrate.out.find("from schema version 9 to " +
                               std::to_string(store::newest_schema_version())) != std::string::npos)
      << migrate.out;
  EXPECT_EQ(query_value(db, counts), before);
  EXPECT_EQ(
      query_value(db, "SELECT count(*) FROM sources WHERE typeof(sha256) = 'blob' AND length(sha256) = 32"),
      query_value(db, "SELECT count(*) FROM sources"));
  EXPECT_EQ(query_value(db, "SELECT group_concat(lower(hex(sha256)), ',') FROM "
                            "(SELECT sha256 FROM sources ORDER BY source_id)"),
            digests);
  EXPECT_EQ(query_value(
                db, "SELECT count(*) FROM sqlite_master WHERE name IN ('sources_run', 'sources_knowledge')"),
            "1");

  // Provenance shows the digests in hex, as a fresh database does.
  const auto listed = rfdb(db, {"query", "sources_list", "--format", "json"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  const auto fresh = rfdb(current, {"query", "sources_list", "--format", "json"});
  ASSERT_EQ(fresh.code, 0) << fresh.err;
  EXPECT_EQ(json::parse(listed.out), json::parse(fresh.out));
  EXPECT_EQ(json::parse(listed.out).at(0).at("sha256").get<std::string>().size(), 64U);

  // Every file exports byte-identical, and a re-ingest finds every run unchanged.
  const auto out = tmp / "export";
  const auto r = rfdb(db, {"export", "--raw", "--all", "--out", out.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto exported = tree(out);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE superseded_by IS NULL"),
            std::to_string(exported.size()));
  for (const auto& [rel, content] : exported) {
    const auto slash = rel.find('/');
    EXPECT_EQ(content, read_bytes(dev_run(rel.substr(0, slash)) / rel.substr(slash + 1))) << rel;
  }
  for (const auto& name : k_dev_runs) {
    const auto again = rfdb(db, {"ingest", "--format", "json", dev_run(name).string()});
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(json::parse(again.out)["paths"][0]["status"], "unchanged") << again.out;
  }
  EXPECT_EQ(query_value(db, counts), before);
}

TEST(RawText, ExportRawWritesEveryStoredFileBackByteIdentical)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  for (const auto& name : k_dev_runs) {
    ASSERT_EQ(rfdb(db, {"ingest", dev_run(name).string()}).code, 0) << name;
  }
  // One more run whose files carry a BOM, CRLF line ends and non-ASCII text.
  const auto odd = copy_run(k_gemm_run, tmp.path());
  for (const auto& rel : {"env_report.json", "bench/baseline/summary.json"}) {
    if (!fs::exists(odd / rel)) {
      continue;
    }
    std::string text = read_bytes(odd / rel);
    std::string crlf = "\xEF\xBB\xBF";
    for (const char c : text) {
      crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    }
    crlf.insert(crlf.rfind('}'), ", \"note\": \"r\xC3\xA9sum\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x9A\x80\"");
    write_bytes(odd / rel, crlf);
  }
  const auto ingested = rfdb(db, {"ingest", odd.string()});
  ASSERT_EQ(ingested.code, 0) << ingested.err;

  const auto out = tmp / "export";
  const auto r = rfdb(db, {"export", "--raw", "--all", "--out", out.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = json::parse(r.out);
  const auto exported = tree(out);
  EXPECT_EQ(summary["runs"], k_dev_runs.size() + 1);
  EXPECT_EQ(summary["files"], exported.size());
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE superseded_by IS NULL"),
            std::to_string(exported.size()));
  std::uint64_t bytes = 0;
  int odd_files = 0;
  for (const auto& [rel, content] : exported) {
    const auto slash = rel.find('/');
    const std::string run_id = rel.substr(0, slash);
    const fs::path original =
        (run_id == odd.filename().string() ? odd : dev_run(run_id)) / rel.substr(slash + 1);
    EXPECT_EQ(content, read_bytes(original)) << rel;
    odd_files += content.rfind("\xEF\xBB\xBF", 0) == 0 && content.find("\r\n") != std::string::npos ? 1 : 0;
    bytes += content.size();
  }
  EXPECT_GE(odd_files, 1);
  EXPECT_EQ(summary["bytes"], bytes);

  // One run by prefix; an existing file refuses the export before anything
  // is written, --force overwrites.
  const auto one = tmp / "one";
  fs::create_directories(one / k_dev_runs[1]);
  write_bytes(one / k_dev_runs[1] / "env_report.json", "stale");
  const auto refused = rfdb(db, {"export", "--raw", k_dev_runs[1].substr(0, 20), "--out", one.string()});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("env_report.json exists"), std::string::npos) << refused.err;
  EXPECT_EQ(tree(one).size(), 1U);
  const auto forced = rfdb(db, {"export", "--raw", k_dev_runs[1].substr(0, 20), "--out", one.string(),
                                "--force", "--format", "table"});
  ASSERT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(read_bytes(one / k_dev_runs[1] / "env_report.json"),
            read_bytes(dev_run(k_dev_runs[1]) / "env_report.json"));
  EXPECT_EQ(forced.out.rfind("wrote ", 0), 0U) << forced.out;

  // A directory link under --out is not written through, even with --force:
  // it could lead outside --out.
  const auto linked = tmp / "linked";
  const auto elsewhere = tmp / "elsewhere";
  fs::create_directories(linked);
  fs::create_directories(elsewhere);
  fs::create_directory_symlink(elsewhere, linked / k_dev_runs[1]);
  for (const bool force : {false, true}) {
    std::vector<std::string> args{"export", "--raw", k_dev_runs[1], "--out", linked.string()};
    if (force) {
      args.emplace_back("--force");
    }
    const auto through = rfdb(db, args);
    EXPECT_EQ(through.code, 1);
    EXPECT_NE(through.err.find(k_dev_runs[1] + " is a symbolic link"), std::string::npos) << through.err;
    EXPECT_TRUE(tree(elsewhere).empty());
  }

  // Usage: --raw needs --out and exactly one of RUN / --all; RUN and --out need --raw.
  EXPECT_EQ(rfdb(db, {"export", "--raw", "--all"}).code, 2);
  EXPECT_EQ(rfdb(db, {"export", "--raw", "--out", one.string()}).code, 2);
  EXPECT_EQ(rfdb(db, {"export", "--raw", k_dev_runs[1], "--all", "--out", one.string()}).code, 2);
  EXPECT_EQ(rfdb(db, {"export", "--out", one.string()}).code, 2);
}

TEST(RawText, CorruptStoredTextIsAClearError)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", dev_run(k_dev_runs[0]).string()}).code, 0);
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    conn.exec("UPDATE sources SET raw_zst = CAST('not zstd' AS BLOB) WHERE rel_path = 'env_report.json'");
  }
  const auto r = rfdb(db, {"export", "--raw", "--all", "--out", (tmp / "out").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(k_dev_runs[0] +
                       "/env_report.json (frame: corrupt compressed text: not a zstd frame (8 "
                       "bytes))"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(tmp / "out")); // verified before anything is written
}

// Ctrl-C (or SIGTERM) during export --raw: it stops before the next file,
// removes its staging directory and the directories it made for it, writes
// nothing under --out and exits 130 (143 for SIGTERM).
TEST(RawText, AnInterruptedExportRawLeavesNothingBehind)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", "-q", dev_run(k_dev_runs[0]).string()}).code, 0);
  const std::string pid = std::to_string(::getpid());

  // A missing --out in missing directories: staged next to it, as .out.rfdb-export.PID.0.
  const auto out = tmp / "new" / "deeper" / "out";
  const auto staged_new = tmp / "new" / "deeper" / (".out.rfdb-export." + pid + ".0");
  std::map<std::string, std::string> seen;
  int polls = 0;
  CliEnv env{false,
             "",
             false,
             [&] {
               if (++polls == 2) { // the first file is staged: Ctrl-C now
                 seen = fs::exists(staged_new) ? tree(staged_new) : seen;
                 return true;
               }
               return polls > 2;
             },
             {}};
  auto r = run_cli_with({"--db", db.string(), "export", "--raw", "--all", "--out", out.string()}, env);
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("interrupted: nothing was written under " + out.string()), std::string::npos) << r.err;
  EXPECT_EQ(seen.size(), 1U) << "one file was staged when the stop came";
  EXPECT_FALSE(fs::exists(tmp / "new")) << "the staging directory and the directories made for it are gone";

  // An existing --out: staged inside it as .rfdb-export.PID.0; what was there stays, nothing is added.
  const auto kept = tmp / "kept";
  fs::create_directories(kept);
  write_bytes(kept / "mine.txt", "mine");
  const auto staged_in = kept / (".rfdb-export." + pid + ".0");
  seen.clear();
  polls = 0;
  env.interrupted = [&] {
    if (++polls == 2) {
      seen = fs::exists(staged_in) ? tree(staged_in) : seen;
      return true;
    }
    return polls > 2;
  };
  r = run_cli_with({"--db", db.string(), "export", "--raw", "--all", "--out", kept.string()}, env);
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_EQ(seen.size(), 1U);
  EXPECT_EQ(tree(kept), (std::map<std::string, std::string>{{"mine.txt", "mine"}}));
  EXPECT_EQ(list_dir(kept).size(), 1U) << "no staging directory left";

  // Not interrupted: the same export writes every file.
  r = rfdb(db, {"export", "--raw", "--all", "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_GT(tree(out).size(), 1U);
}

} // namespace rfdb::test
