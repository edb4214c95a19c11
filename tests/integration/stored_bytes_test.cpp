// Stored bytes are verified (issue 34, items 2 and 5, and item 6's stored
// paths): `rfdb check` decompresses every stored file version and compares
// it with the size and sha256 its row records, loads every dictionary and
// flags stored paths that are not normalized; `rfdb export --raw` writes
// nothing when any file fails verification; `rfdb ingest --rehash` reads
// past the size+mtime fast path and stores a damaged copy again.
#include "support/helpers.hpp"

#include "store/admin.hpp"
#include "store/database.hpp"
#include "store/sources.hpp"
#include "util/digest.hpp"
#include "util/hex.hpp"
#include "util/zstd.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fcntl.h>
#include <map>
#include <string>
#include <sys/stat.h>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string k_dev_run = "e2e_Kimi-K2.6_20260621_142207_774130_3902";

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

// The stored frame of the current version of `rel_path`.
std::string frame_of(const fs::path& db, const std::string& rel_path)
{
  SQLite::Database conn(db.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(conn, "SELECT raw_zst FROM sources WHERE rel_path = ? AND superseded_by IS NULL");
  q.bind(1, rel_path);
  EXPECT_TRUE(q.executeStep()) << rel_path;
  const auto col = q.getColumn(0);
  return {static_cast<const char*>(col.getBlob()), static_cast<std::size_t>(col.getBytes())};
}

void set_frame(const fs::path& db, const std::string& rel_path, const std::string& frame)
{
  SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
  SQLite::Statement q(conn, "UPDATE sources SET raw_zst = ? WHERE rel_path = ? AND superseded_by IS NULL");
  q.bind(1, frame.data(), static_cast<int>(frame.size()));
  q.bind(2, rel_path);
  ASSERT_EQ(q.exec(), 1) << rel_path;
}

// Flip one bit in the middle of the stored frame of `rel_path`.
void flip_bit(const fs::path& db, const std::string& rel_path)
{
  std::string frame = frame_of(db, rel_path);
  frame[frame.size() / 2] = static_cast<char>(frame[frame.size() / 2] ^ 0x04);
  set_frame(db, rel_path, frame);
}

// `rfdb check --format json`'s stored-file problems as "run_id file problem".
std::vector<std::string> stored_problems(const CliResult& r)
{
  std::vector<std::string> out;
  const json j = json::parse(r.out);
  for (const auto& p : j.at("stored_files").at("problems")) {
    out.push_back((p.at("run_id").is_null() ? std::string("knowledge") : p.at("run_id").get<std::string>()) +
                  " " + p.at("file").get<std::string>() + " " + p.at("problem").get<std::string>());
  }
  return out;
}

// The file's mtime as stat reports it (ns precision).
struct timespec mtime_of(const fs::path& p)
{
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mtim;
}

// Replace `from` by `to` (the same length) in the file, keeping its mtime,
// as `touch -r`, `cp -p` or `rsync -a` would leave it.
void edit_keeping_mtime(const fs::path& p, const std::string& from, const std::string& to)
{
  ASSERT_EQ(from.size(), to.size());
  const struct timespec before = mtime_of(p);
  std::string text = read_bytes(p);
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << p;
  text.replace(at, from.size(), to);
  write_bytes(p, text);
  const struct timespec times[2] = {before, before};
  ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), times, 0), 0);
  const struct timespec after = mtime_of(p);
  ASSERT_EQ(after.tv_sec, before.tv_sec);
  ASSERT_EQ(after.tv_nsec, before.tv_nsec);
}

} // namespace

// A flipped bit in a stored blob fails check (exit 1), naming run and file,
// in JSON and in the table; the evidence check leaves the damaged file out
// instead of failing on it.
TEST(StoredBytes, CheckFindsAFlippedBitNamingRunAndFile)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", dev_run(k_dev_run).string()}).code, 0);
  const auto clean = rfdb(db, {"check", "--format", "json"});
  ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
  EXPECT_EQ(json::parse(clean.out).at("stored_files").at("verified"),
            std::stoi(query_value(db, "SELECT count(*) FROM sources")));

  flip_bit(db, "env_report.json");
  const auto r = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.out;
  const auto j = json::parse(r.out);
  EXPECT_FALSE(j.at("ok").get<bool>());
  ASSERT_EQ(j.at("stored_files").at("problems").size(), 1U) << r.out;
  const auto& p = j.at("stored_files").at("problems").at(0);
  EXPECT_EQ(p.at("run_id"), k_dev_run);
  EXPECT_EQ(p.at("file"), "env_report.json");
  EXPECT_TRUE(p.at("current").get<bool>());
  // Either zstd refuses the frame or it decodes to other bytes: both are caught.
  EXPECT_TRUE(p.at("problem") == "sha256" || p.at("problem") == "frame") << p;
  EXPECT_NE(r.err.find("rfdb ingest --rehash"), std::string::npos) << r.err;

  const auto table = rfdb(db, {"check", "--format", "table"});
  EXPECT_EQ(table.code, 1);
  EXPECT_NE(table.out.find("stored files     1 problem(s) in "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("  " + k_dev_run + " env_report.json: "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("PROBLEMS FOUND"), std::string::npos);
}

// Whichever single bit of a stored frame is flipped, verification notices,
// unless the flip changes nothing zstd reads (an unused header bit): the
// text then decodes to exactly the original bytes.
TEST(StoredBytes, EveryFlippedBitOfAFrameIsFound)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  store::TextCodec codec(*db);
  const std::string text = R"({"model": "Kimi-K2.6", "gfx": "gfx950", "mount": "/wekafs/models"})";
  const std::string frame = util::zstd::compress(text);
  const std::string digest = util::sha256(text);
  auto ok = store::verify_frame(codec, frame, static_cast<std::int64_t>(text.size()), digest);
  ASSERT_TRUE(ok);
  EXPECT_FALSE(ok->problem);
  EXPECT_EQ(ok->text, text);
  int found = 0;
  int harmless = 0;
  for (std::size_t byte = 0; byte < frame.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = frame;
      damaged[byte] = static_cast<char>(damaged[byte] ^ (1 << bit));
      auto v = store::verify_frame(codec, damaged, static_cast<std::int64_t>(text.size()), digest);
      ASSERT_TRUE(v);
      if (v->problem) {
        ++found;
      } else {
        EXPECT_EQ(v->text, text) << "byte " << byte << " bit " << bit;
        ++harmless;
      }
    }
  }
  EXPECT_LE(harmless, 8) << "of " << found + harmless; // the frame header's unused and reserved bits
  EXPECT_GT(found, 0);
}

// A frame swapped for another file's frame of the same size decompresses
// cleanly to the right size: only the sha256 tells.
TEST(StoredBytes, SwappedFramesOfTheSameSizeAreFoundBySha256)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", dev_run(k_dev_run).string()}).code, 0);
  std::string a;
  std::string b;
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement q(conn, "SELECT x.rel_path, y.rel_path FROM sources x JOIN sources y "
                              "ON x.bytes = y.bytes AND x.source_id < y.source_id AND x.sha256 <> y.sha256 "
                              "ORDER BY x.source_id LIMIT 1");
    ASSERT_TRUE(q.executeStep()) << "the dev run has two different files of one size";
    a = q.getColumn(0).getString();
    b = q.getColumn(1).getString();
  }
  const std::string fa = frame_of(db, a);
  const std::string fb = frame_of(db, b);
  set_frame(db, a, fb);
  set_frame(db, b, fa);
  const auto r = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(stored_problems(r),
            (std::vector<std::string>{k_dev_run + " " + a + " sha256", k_dev_run + " " + b + " sha256"}))
      << r.out;
  const auto out = tmp / "out";
  const auto exported = rfdb(db, {"export", "--raw", "--all", "--out", out.string()});
  EXPECT_EQ(exported.code, 1);
  EXPECT_FALSE(fs::exists(out));
}

// export --raw verifies every file first: a damaged one fails the export
// (exit 1, naming run, file and what differs) and nothing is written, into
// a new directory (absent afterwards) or an existing one (unchanged).
TEST(StoredBytes, ExportRawWritesNothingWhenAFileFailsVerification)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", dev_run(k_dev_run).string()}).code, 0);
  flip_bit(db, "env_report.json");
  const auto fresh = tmp / "fresh";
  for (const std::vector<std::string>& which :
       {std::vector<std::string>{k_dev_run}, std::vector<std::string>{"--all"}}) {
    std::vector<std::string> args{"export", "--raw"};
    args.insert(args.end(), which.begin(), which.end());
    args.insert(args.end(), {"--out", fresh.string()});
    const auto r = rfdb(db, args);
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.err.find("1 stored file fails verification, so nothing was written under"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(k_dev_run + "/env_report.json ("), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(fresh));
  }
  EXPECT_EQ(list_dir(tmp.path()), (std::vector<std::string>{"rfdb.sqlite"})); // no staging left behind

  const auto existing = tmp / "existing";
  fs::create_directories(existing / "keep");
  write_bytes(existing / "keep" / "note.txt", "mine");
  const auto before = tree(existing);
  const auto r = rfdb(db, {"export", "--raw", "--all", "--out", existing.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(tree(existing), before);
  EXPECT_EQ(list_dir(existing), (std::vector<std::string>{"keep"}));
}

// A truncated frame is refused before any file is written (the old export
// had written every file before it).
TEST(StoredBytes, TruncatedFrameLeavesNoPartialExport)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", dev_run(k_dev_run).string()}).code, 0);
  const std::string victim = "workflow_return.json"; // sorts after most of the run's files
  const std::string frame = frame_of(db, victim);
  set_frame(db, victim, frame.substr(0, frame.size() - 7));
  const auto out = tmp / "out";
  const auto r = rfdb(db, {"export", "--raw", "--all", "--out", out.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(k_dev_run + "/" + victim + " (frame: corrupt compressed text"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
  const auto check = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(check.code, 1);
  EXPECT_EQ(stored_problems(check), (std::vector<std::string>{k_dev_run + " " + victim + " frame"}));
}

// A failed export into a new nested --out leaves no directory it created
// (issue 34 item 2): the parents newa/newb are removed again.
TEST(StoredBytes, FailedExportRemovesTheParentsItCreated)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", dev_run(k_dev_run).string()}).code, 0);
  flip_bit(db, "workflow_return.json");
  const auto r = rfdb(db, {"export", "--raw", "--all", "--out", (tmp / "newa" / "newb" / "out").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(fs::exists(tmp / "newa")) << r.err;
  EXPECT_TRUE(fs::exists(db));
}

// `export --raw --force` into an existing --out where one target is a link
// or a directory refuses before renaming anything into place.
TEST(StoredBytes, ForcedExportRefusingOneTargetWritesNothing)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", dev_run(k_dev_run).string()}).code, 0);
  const auto out = tmp / "out";
  ASSERT_EQ(rfdb(db, {"export", "--raw", "--all", "--out", out.string()}).code, 0);
  const auto before = tree(out);
  ASSERT_GT(before.size(), 10U);
  // The last target in export order is a directory now; the files before it
  // are edited so a rename into place would show.
  const auto last = out / k_dev_run / "workflow_return.json";
  ASSERT_TRUE(fs::exists(last));
  fs::remove(last);
  fs::create_directories(last);
  for (const auto& [rel, text] : before) {
    if (rel != k_dev_run + "/workflow_return.json") {
      write_bytes(out / rel, "edited");
    }
  }
  const auto r = rfdb(db, {"export", "--raw", "--all", "--force", "--out", out.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("workflow_return.json"), std::string::npos) << r.err;
  std::size_t edited = 0;
  for (const auto& [rel, text] : tree(out)) {
    edited += text == "edited";
  }
  EXPECT_EQ(edited, before.size() - 1);
  EXPECT_TRUE(fs::is_directory(last));
}

// Stored paths that are not normalized relative paths fail check (export
// --raw refuses them already).
TEST(StoredBytes, CheckFlagsStoredPathsThatAreNotNormalized)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", dev_run(k_dev_run).string()}).code, 0);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"env_report.json", "../../x"},
      {"workflow_return.json", "/etc/passwd"},
      {"baseline/bench_summary.json", "baseline/./bench_summary.json"},
      {"director_e2e_validation.json", "a//b.json"},
      {"config/sweep_results.json", "a\nb"},
      {"profile/round_0/profile_topN.json", "a\xff"
                                            "b"}};
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    for (const auto& [from, to] : bad) {
      SQLite::Statement q(conn, "UPDATE sources SET rel_path = ? WHERE rel_path = ?");
      q.bind(1, to);
      q.bind(2, from);
      ASSERT_EQ(q.exec(), 1) << from;
    }
  }
  const auto r = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(r.code, 1);
  std::map<std::string, std::string> found;
  const json j = json::parse(r.out);
  for (const auto& p : j.at("stored_files").at("problems")) {
    EXPECT_EQ(p.at("problem"), "path");
    found[p.at("file").get<std::string>()] = p.at("detail").get<std::string>();
  }
  EXPECT_EQ(found, (std::map<std::string, std::string>{
                       {"../../x", "not a normalized relative path: a '..' component"},
                       {"/etc/passwd", "not a normalized relative path: absolute"},
                       {"baseline/./bench_summary.json", "not a normalized relative path: a '.' component"},
                       {"a//b.json", "not a normalized relative path: an empty component"},
                       {"a\nb", "not a normalized relative path: a control character"},
                       {"a\xef\xbf\xbd"
                        "b",
                        "not a normalized relative path: bytes that are not valid UTF-8"}}));
  EXPECT_EQ(j.at("stored_files").at("checked").get<int>() - j.at("stored_files").at("verified").get<int>(),
            static_cast<int>(bad.size()));
  EXPECT_EQ(store::rel_path_problem(""), "empty");
  EXPECT_EQ(store::rel_path_problem("x/.."), "a '..' component");
  EXPECT_EQ(store::rel_path_problem("x/"), "an empty component");
  EXPECT_EQ(store::rel_path_problem("profile/round_0/profile_topN.json"), std::nullopt);
  EXPECT_EQ(store::rel_path_problem(".hidden/..x"), std::nullopt);
}

// A damaged dictionary: one whose bytes no longer load is a dictionary
// problem (and every frame naming it fails); one whose content bytes are
// changed loads, but the files decompressed with it are caught by their
// sha256, each naming the dictionary.
TEST(StoredBytes, CheckReportsADamagedDictionary)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  {
    auto opened = store::Database::open(db.string());
    ASSERT_TRUE(opened);
    auto sources = store::Sources::prepare(*opened);
    ASSERT_TRUE(sources);
    for (int i = 0; i < 300; ++i) {
      std::string text = "{\n  \"schema\": \"roofline-v1\",\n  \"cases\": [\n";
      for (int k = 0; k < 8; ++k) {
        text += "    {\"case_id\": \"decode_bs" + std::to_string(k * 8 + i % 7) +
                "\", \"kernel\": \"fused_moe_kernel\", \"roofline_efficiency_pct\": " +
                std::to_string((i * 37 + k) % 97) + ".25, \"observed_limit\": \"hbm_bandwidth\"},\n";
      }
      text += "    {}\n  ],\n  \"run\": " + std::to_string(i) + "\n}\n";
      const std::string rel = "learned/card_" + std::to_string(1000 + i) + ".json";
      ASSERT_TRUE(sources->put_source(store::SourceFile{std::nullopt, rel, "learned_card", "card",
                                                        util::hex_encode(util::sha256(text)), text,
                                                        "2026-01-01T00:00:00Z", std::nullopt}));
    }
  }
  ASSERT_EQ(query_value(db, "SELECT group_concat(dict_id) FROM zstd_dicts"), "32768");
  const auto clean = rfdb(db, {"check", "--format", "json"});
  ASSERT_EQ(clean.code, 0) << clean.out;
  EXPECT_EQ(json::parse(clean.out).at("dictionaries").at("checked"), 1);
  const int with_dict = std::stoi(query_value(db, "SELECT count(*) FROM sources WHERE source_id > 256"));
  ASSERT_EQ(with_dict, 44);

  std::string dict;
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement q(conn, "SELECT dict FROM zstd_dicts");
    ASSERT_TRUE(q.executeStep());
    const auto col = q.getColumn(0);
    dict.assign(static_cast<const char*>(col.getBlob()), static_cast<std::size_t>(col.getBytes()));
  }
  const auto store_dict = [&](const std::string& bytes) {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    SQLite::Statement q(conn, "UPDATE zstd_dicts SET dict = ?");
    q.bind(1, bytes.data(), static_cast<int>(bytes.size()));
    ASSERT_EQ(q.exec(), 1);
  };

  // Content bytes changed (the end of a dictionary holds its most used
  // segments): it loads, the files using it differ.
  std::string content = dict;
  for (std::size_t i = content.size() - 4096; i < content.size(); ++i) {
    content[i] = static_cast<char>(content[i] ^ 0x20);
  }
  store_dict(content);
  auto r = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(r.code, 1);
  auto j = json::parse(r.out);
  EXPECT_TRUE(j.at("dictionaries").at("problems").empty());
  const auto& problems = j.at("stored_files").at("problems");
  EXPECT_GE(problems.size(), 1U) << r.out;
  for (const auto& p : problems) {
    EXPECT_TRUE(p.at("run_id").is_null());
    EXPECT_NE(p.at("detail").get<std::string>().find("(compressed with dictionary 32768)"), std::string::npos)
        << p;
  }
  const auto table = rfdb(db, {"check", "--format", "table"});
  EXPECT_NE(table.out.find("  knowledge learned/card_"), std::string::npos) << table.out;

  // The header damaged: the dictionary does not load.
  std::string header = dict;
  header[0] = static_cast<char>(header[0] ^ 0x01); // the dictionary magic
  store_dict(header);
  r = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(r.code, 1);
  j = json::parse(r.out);
  ASSERT_EQ(j.at("dictionaries").at("problems").size(), 1U) << r.out;
  EXPECT_EQ(j.at("dictionaries").at("problems").at(0).at("dict_id"), 32768);
  EXPECT_EQ(j.at("stored_files").at("problems").size(), static_cast<std::size_t>(with_dict));
  for (const auto& p : j.at("stored_files").at("problems")) {
    EXPECT_EQ(p.at("problem"), "frame") << p;
  }
  const auto dict_table = rfdb(db, {"check", "--format", "table"});
  EXPECT_NE(dict_table.out.find("dictionaries     1 of 1 do not load\n  dictionary 32768: "),
            std::string::npos)
      << dict_table.out;
}

// A dictionary damaged so that it no longer loads (issue 34 item 2, a
// repair): `ingest --rehash` stores every current file that used it again,
// without a dictionary (the newest one does not load, so it is not used),
// warns "stored again" only for files it did store, and check then passes,
// reporting the damaged dictionary as named by no stored frame.
TEST(StoredBytes, RehashRepairsTheFilesOfADamagedDictionary)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  // Three copies of each dev run (run id from the dir name): 339 files (each final/final_patch.diff
  // included), the 83 after the 256th compressed with dictionary 32768.
  std::vector<std::string> args{"ingest", "--allow-copy", "--format", "json"};
  for (int i = 1; i <= 3; ++i) {
    for (const auto& e : fs::directory_iterator(fixtures_dir() / "dev-runs")) {
      if (e.is_directory()) {
        const auto to = tmp / "e" / (e.path().filename().string() + "_c" + std::to_string(i));
        fs::create_directories(to);
        fs::copy(e.path(), to, fs::copy_options::recursive);
        args.push_back(to.string());
      }
    }
  }
  ASSERT_EQ(rfdb(db, args).code, 0);
  ASSERT_EQ(query_value(db, "SELECT group_concat(dict_id) FROM zstd_dicts"), "32768");
  const int with_dict = std::stoi(query_value(db, "SELECT count(*) FROM sources WHERE source_id > 256"));
  ASSERT_EQ(with_dict, 224); // 83 before bench_runs.jsonl was stored (issue 30), 71 before
                             // final/final_patch.diff (issue 31), 56 before env_info.txt and the roofline
                             // install record
  {
    // A bit in the dictionary's entropy tables: ZSTD_createCDict refuses it.
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    SQLite::Statement q(conn, "SELECT dict FROM zstd_dicts");
    ASSERT_TRUE(q.executeStep());
    const auto col = q.getColumn(0);
    std::string dict(static_cast<const char*>(col.getBlob()), static_cast<std::size_t>(col.getBytes()));
    dict[20] = static_cast<char>(dict[20] ^ 0x01);
    q.reset();
    SQLite::Statement u(conn, "UPDATE zstd_dicts SET dict = ?");
    u.bind(1, dict.data(), static_cast<int>(dict.size()));
    ASSERT_EQ(u.exec(), 1);
  }
  auto bad = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(bad.code, 1);
  auto j = json::parse(bad.out);
  ASSERT_EQ(j.at("dictionaries").at("problems").size(), 1U) << bad.out;
  EXPECT_EQ(j.at("dictionaries").at("problems").at(0).at("detail"), "corrupt compression dictionary 32768");
  EXPECT_EQ(j.at("dictionaries").at("problems").at(0).at("frames"), with_dict);
  EXPECT_EQ(j.at("stored_files").at("checked"), 480); // 339 before bench_runs.jsonl was stored
  EXPECT_EQ(j.at("stored_files").at("verified"), 480 - with_dict);

  args[1] = "--rehash";
  args.insert(args.begin() + 1, "--allow-copy");
  const auto r = rfdb(db, args);
  ASSERT_EQ(r.code, 0) << r.err;
  std::size_t warned = 0;
  const json report = json::parse(r.out);
  for (const auto& path : report.at("paths")) {
    for (const auto& w : path.at("warnings")) {
      warned += w.at("message").get<std::string>().find("stored again from this file") != std::string::npos;
    }
  }
  EXPECT_EQ(warned, static_cast<std::size_t>(with_dict));
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "480");
  const auto good = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(good.code, 0) << good.out;
  j = json::parse(good.out);
  EXPECT_EQ(j.at("stored_files").at("verified"), 480);
  ASSERT_EQ(j.at("dictionaries").at("problems").size(), 1U);
  EXPECT_EQ(j.at("dictionaries").at("problems").at(0).at("frames"), 0);
  const auto table = rfdb(db, {"check", "--format", "table"});
  EXPECT_NE(table.out.find("no stored frame names it any more (not a problem)"), std::string::npos)
      << table.out;
  const auto out = tmp / "out";
  EXPECT_EQ(rfdb(db, {"export", "--raw", "--all", "--out", out.string()}).code, 0);
}

// A damaged blob cannot be repaired by a plain re-ingest when every size
// and mtime matches (nothing is read); --rehash reads the eval dir, finds
// the stored copy damaged, stores it again (status "repaired"), and check
// and export pass after.
TEST(StoredBytes, RehashStoresADamagedCopyAgain)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  ASSERT_EQ(rfdb(db, {"ingest", run.string()}).code, 0);
  flip_bit(db, "env_report.json");
  const std::string attempts = "SELECT group_concat(attempt_key || '=' || ifnull(isolated_speedup, ''), ' ') "
                               "FROM (SELECT * FROM attempts ORDER BY attempt_key)";
  const std::string rows_before = query_value(db, attempts);

  const auto plain = rfdb(db, {"ingest", "--format", "json", run.string()});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(json::parse(plain.out).at("paths").at(0).at("status"), "unchanged");
  EXPECT_EQ(rfdb(db, {"check", "--format", "json"}).code, 1);

  const auto rehash = rfdb(db, {"ingest", "--rehash", "--format", "json", run.string()});
  ASSERT_EQ(rehash.code, 0) << rehash.err;
  const auto path = json::parse(rehash.out).at("paths").at(0);
  EXPECT_EQ(path.at("status"), "repaired") << rehash.out;
  ASSERT_EQ(path.at("warnings").size(), 1U) << rehash.out;
  EXPECT_EQ(path.at("warnings").at(0).at("file"), "env_report.json");
  EXPECT_NE(path.at("warnings")
                .at(0)
                .at("message")
                .get<std::string>()
                .find("the stored copy failed verification ("),
            std::string::npos);
  EXPECT_NE(rehash.err.find("env_report.json: the stored copy failed verification"), std::string::npos)
      << rehash.err;

  const auto check = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(check.code, 0) << check.out;
  EXPECT_EQ(query_value(db, attempts), rows_before);
  const auto out = tmp / "out";
  ASSERT_EQ(rfdb(db, {"export", "--raw", k_canonical_run, "--out", out.string()}).code, 0);
  EXPECT_EQ(read_bytes(out / k_canonical_run / "env_report.json"), read_bytes(run / "env_report.json"));

  // Healthy now: --rehash reads every file and finds nothing to do.
  const auto again = rfdb(db, {"ingest", "--rehash", "--format", "json", run.string()});
  EXPECT_EQ(json::parse(again.out).at("paths").at(0).at("status"), "unchanged") << again.out;
  // --dry-run reports the repair and writes nothing.
  flip_bit(db, "env_report.json");
  const std::string damaged = frame_of(db, "env_report.json");
  const auto dry = rfdb(db, {"ingest", "--rehash", "--dry-run", "--format", "json", run.string()});
  EXPECT_EQ(json::parse(dry.out).at("paths").at(0).at("status"), "repaired") << dry.out;
  EXPECT_EQ(frame_of(db, "env_report.json"), damaged);
}

// A re-ingest that reads the run anyway (one file's mtime moved) verifies
// the stored copies of the unchanged files and repairs a damaged one.
TEST(StoredBytes, AReingestThatReadsTheRunRepairsADamagedCopy)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  ASSERT_EQ(rfdb(db, {"ingest", run.string()}).code, 0);
  flip_bit(db, "env_report.json");
  fs::last_write_time(run / "workflow_return.json",
                      fs::last_write_time(run / "workflow_return.json") + std::chrono::seconds(5));
  const auto r = rfdb(db, {"ingest", "--format", "json", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).at("paths").at(0).at("status"), "repaired") << r.out;
  EXPECT_EQ(rfdb(db, {"check", "--format", "json"}).code, 0);
}

// Knowledge files are read and hashed on every ingest: a plain re-ingest
// verifies the stored copy of an unchanged card and stores a damaged one again.
TEST(StoredBytes, AKnowledgeReingestRepairsADamagedCopy)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto playbook = fixtures_dir() / "knowledge" / "backend_playbook.md";
  ASSERT_EQ(rfdb(db, {"ingest", playbook.string()}).code, 0);
  const std::string rel = query_value(db, "SELECT rel_path FROM sources WHERE run_id IS NULL");
  ASSERT_FALSE(rel.empty());
  flip_bit(db, rel);
  const auto bad = rfdb(db, {"check", "--format", "json"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(stored_problems(bad).size(), 1U) << bad.out;
  const auto r = rfdb(db, {"ingest", "--strict", "--format", "json", playbook.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto path = json::parse(r.out).at("paths").at(0);
  EXPECT_EQ(path.at("status"), "repaired") << r.out;
  EXPECT_EQ(path.at("warnings").back().at("file"), rel);
  EXPECT_EQ(rfdb(db, {"check", "--format", "json"}).code, 0);
}

// Re-derivation verifies every stored version it reads (issue 34 item 2): a
// superseded version whose frame decompresses cleanly to other text of the
// same size (a flipped literal, or here another frame put in its place)
// fails the ingest naming run, file and source_id, and no row changes.
TEST(StoredBytes, ReDerivationRefusesADamagedSupersededVersion)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  ASSERT_EQ(rfdb(db, {"ingest", run.string()}).code, 0);
  const std::string speedup =
      "SELECT isolated_speedup FROM attempts WHERE attempt_key = 'cand:cand_kernel_paged_attention_2d'";
  const auto ir = run / "overlay/cand_kernel_paged_attention_2d/integrate_result.json";
  const std::string old_text = read_bytes(ir);
  edit_keeping_mtime(ir, "\"isolated_speedup\": 1.56,", "\"isolated_speedup\": 1.57,");
  ASSERT_EQ(rfdb(db, {"ingest", "--rehash", run.string()}).code, 0);
  ASSERT_EQ(query_value(db, speedup), "1.57");
  const std::string old_id = query_value(
      db, "SELECT source_id FROM sources WHERE rel_path = "
          "'overlay/cand_kernel_paged_attention_2d/integrate_result.json' AND superseded_by IS NOT NULL");
  ASSERT_FALSE(old_id.empty());
  std::string forged = old_text;
  forged.replace(forged.find("\"isolated_speedup\": 1.56,"), 25, "\"isolated_speedup\": 1.99,");
  {
    const std::string frame = util::zstd::compress(forged);
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    SQLite::Statement q(conn, "UPDATE sources SET raw_zst = ? WHERE source_id = ?");
    q.bind(1, frame.data(), static_cast<int>(frame.size()));
    q.bind(2, static_cast<std::int64_t>(std::stoll(old_id)));
    ASSERT_EQ(q.exec(), 1);
  }
  edit_keeping_mtime(ir, "\"isolated_speedup\": 1.57,", "\"isolated_speedup\": 1.58,");
  const auto r = rfdb(db, {"ingest", "--rehash", run.string()});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("run " + k_canonical_run +
                       ": the stored copy of overlay/cand_kernel_paged_attention_2d/integrate_result.json "
                       "(source_id " +
                       old_id + ", a superseded version) failed verification (sha256: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("cannot be restored from the eval dir"), std::string::npos) << r.err;
  EXPECT_EQ(query_value(db, speedup), "1.57");
}

// A file reverted to the content of a damaged superseded version (issue 34
// item 2): that version becomes current again and its stored copy is
// verified and stored again from the file read, so check then passes.
TEST(StoredBytes, RevertingToADamagedVersionRepairsIt)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  ASSERT_EQ(rfdb(db, {"ingest", run.string()}).code, 0);
  const std::string speedup =
      "SELECT isolated_speedup FROM attempts WHERE attempt_key = 'cand:cand_kernel_paged_attention_2d'";
  const std::string rel = "overlay/cand_kernel_paged_attention_2d/integrate_result.json";
  edit_keeping_mtime(run / rel, "\"isolated_speedup\": 1.56,", "\"isolated_speedup\": 1.57,");
  ASSERT_EQ(rfdb(db, {"ingest", "--rehash", run.string()}).code, 0);
  const std::string old_id = query_value(db, "SELECT source_id FROM sources WHERE rel_path = '" + rel +
                                                 "' AND superseded_by IS NOT NULL");
  ASSERT_FALSE(old_id.empty());
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    ASSERT_EQ(
        conn.exec("UPDATE sources SET raw_zst = substr(raw_zst, 1, length(raw_zst) - 5) WHERE source_id = " +
                  old_id),
        1);
  }
  EXPECT_EQ(rfdb(db, {"check", "--format", "json"}).code, 1);
  edit_keeping_mtime(run / rel, "\"isolated_speedup\": 1.57,", "\"isolated_speedup\": 1.56,");
  const auto r = rfdb(db, {"ingest", "--rehash", "--format", "json", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  const auto& warnings = j.at("paths").at(0).at("warnings");
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [&](const json& w) {
    return w.at("file") == rel &&
           w.at("message").get<std::string>().find("stored again from this file") != std::string::npos;
  })) << r.out;
  EXPECT_EQ(query_value(db, "SELECT source_id FROM sources WHERE rel_path = '" + rel +
                                "' AND superseded_by IS NULL"),
            old_id);
  EXPECT_EQ(query_value(db, speedup), "1.56");
  EXPECT_EQ(rfdb(db, {"check", "--format", "json"}).code, 0);
}

// The fast path's blind spot (item 5): a same-size edit whose mtime is put
// back (touch -r, cp -p, rsync -a, a reproducible tarball) reads as
// unchanged, so the store keeps the old value; --rehash reads the files and
// stores the new one.
TEST(StoredBytes, RehashSeesASameSizeEditWithItsMtimeKept)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  ASSERT_EQ(rfdb(db, {"ingest", run.string()}).code, 0);
  const std::string speedup =
      "SELECT isolated_speedup FROM attempts WHERE attempt_key = 'cand:cand_kernel_paged_attention_2d'";
  ASSERT_EQ(query_value(db, speedup), "1.56");
  edit_keeping_mtime(run / "overlay/cand_kernel_paged_attention_2d/integrate_result.json",
                     "\"isolated_speedup\": 1.56,", "\"isolated_speedup\": 1.57,");
  edit_keeping_mtime(run / "workflow_return.json", "\"isolated_speedup\": 1.56,",
                     "\"isolated_speedup\": 1.57,");

  const auto plain = rfdb(db, {"ingest", "--format", "json", run.string()});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(json::parse(plain.out).at("paths").at(0).at("status"), "unchanged");
  EXPECT_EQ(query_value(db, speedup), "1.56"); // stale, and nothing says so

  const auto rehash = rfdb(db, {"ingest", "--rehash", "--format", "json", run.string()});
  ASSERT_EQ(rehash.code, 0) << rehash.err;
  const auto path = json::parse(rehash.out).at("paths").at(0);
  EXPECT_EQ(path.at("status"), "updated") << rehash.out;
  EXPECT_EQ(
      path.at("files").at("superseded"),
      json::array({"overlay/cand_kernel_paged_attention_2d/integrate_result.json", "workflow_return.json"}));
  EXPECT_EQ(query_value(db, speedup), "1.57");
  EXPECT_EQ(rfdb(db, {"check", "--format", "json"}).code, 0);
}

} // namespace rfdb::test
