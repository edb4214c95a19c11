// Run tags (issue 33): `rfdb tag` / `rfdb untag` with their history, `runs --tag`, tags in `runs`
// and `show`, `ingest --tag`, tags kept by a re-ingest and left out of priors and the report.
#include "support/helpers.hpp"
#include "support/postgres.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The fixed clock of run_cli (support/helpers.hpp).
const std::string k_at = "2026-11-30T12:00:00Z";

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

const std::string k_d6 = "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931";
const std::string k_d7 = "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726";
const std::string k_d8 = "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817";
const std::string k_d9 = "e2e_Kimi-K2.6_20260621_142207_774130_3902";

// tag_log as "action key=value|…", oldest first.
std::string tag_log(const fs::path& db, const std::string& run)
{
  return query_value(db, "SELECT group_concat(action || ' ' || key || '=' || value || ' ' || at, '|') FROM "
                         "(SELECT * FROM tag_log WHERE run_id = '" +
                             run + "' ORDER BY event_id)");
}

std::string current_tags(const fs::path& db, const std::string& run)
{
  return query_value(db, "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM run_tags WHERE "
                         "run_id = '" +
                             run + "' ORDER BY key)");
}

std::vector<std::string> run_ids(const CliResult& r)
{
  std::vector<std::string> out;
  for (const auto& run : json::parse(r.out)) {
    out.push_back(run["run_id"].get<std::string>());
  }
  return out;
}

} // namespace

TEST(Tags, TagRetagUntagKeepTheirHistory)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ingest_runs(db, k_all_runs);
  auto r = rfdb(db.string(), {"tag", "e2e_Qwen-Qwen3.5", "quant=fp8", "tp=8"}); // a unique prefix
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "tagged " + k_canonical_run + ": quant=fp8 (added), tp=8 (added)\n");
  r = rfdb(db.string(), {"tag", k_canonical_run, "quant=int4", "tp=8", "note=a=b c"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "tagged " + k_canonical_run + ": quant=int4 (replaced), tp=8 (unchanged), note=a=b c (added)\n");
  r = rfdb(db.string(), {"untag", k_canonical_run, "tp"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "untagged " + k_canonical_run + ": tp=8\n");

  EXPECT_EQ(current_tags(db, k_canonical_run), "note=a=b c quant=int4");
  EXPECT_EQ(tag_log(db, k_canonical_run), "tag quant=fp8 " + k_at + "|tag tp=8 " + k_at + "|tag quant=int4 " +
                                              k_at + "|tag note=a=b c " + k_at + "|untag tp=8 " + k_at)
      << "the unchanged tp=8 is not logged";
  EXPECT_EQ(current_tags(db, k_gemm_run), "NULL") << "other runs keep no tags";

  r = rfdb(db.string(), {"show", k_canonical_run, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["tags"], json::parse(R"({"note": "a=b c", "quant": "int4"})"));
  ASSERT_EQ(j["tag_history"].size(), 5U);
  EXPECT_EQ(j["tag_history"][1],
            json::parse(R"({"action": "tag", "key": "tp", "value": "8", "at": ")" + k_at + "\"}"));
  EXPECT_EQ(j["tag_history"][4]["action"], "untag");

  r = run_cli_with({"--db", db.string(), "show", k_canonical_run}, CliEnv{true, "", false, {}, {}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\ntags       note=a=b c quant=int4\ntag history\n  " + k_at +
                                  "  tag quant=fp8\n  " + k_at + "  tag tp=8\n  " + k_at +
                                  "  tag quant=int4\n  " + k_at + "  tag note=a=b c\n  " + k_at +
                                  "  untag tp=8\n"))
      << r.out;

  r = rfdb(db.string(), {"runs", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto runs = json::parse(r.out);
  ASSERT_EQ(runs.size(), 3U);
  EXPECT_EQ(runs[0]["run_id"], k_canonical_run);
  EXPECT_EQ(runs[0]["tags"], json::parse(R"({"note": "a=b c", "quant": "int4"})"));
  EXPECT_EQ(runs[1]["tags"], json::object());
}

TEST(Tags, BadTagsAreUsageErrorsAndChangeNothing)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ingest_runs(db, k_all_runs);
  ASSERT_EQ(rfdb(db.string(), {"tag", k_gemm_run, "quant=fp8"}).code, 0);
  const std::string before = dump_tables(db);
  const std::string long_value(257, 'x');
  const std::vector<std::pair<std::vector<std::string>, std::string>> usage = {
      {{"tag", k_gemm_run, "quant"}, "tag 'quant' is not key=value"},
      {{"tag", k_gemm_run, "=fp8"}, "tag '=fp8': the key is empty"},
      {{"tag", k_gemm_run, "quant="}, "tag 'quant=': the value is empty"},
      {{"tag", k_gemm_run, "quant=  "}, "tag 'quant=  ': the value is empty"},
      {{"tag", k_gemm_run, "qu ant=fp8"}, "the key may hold only letters, digits, '_', '-' and '.'"},
      {{"tag", k_gemm_run, "_quant=fp8"}, "the key must start with a letter or digit"},
      {{"tag", k_gemm_run, std::string(65, 'k') + "=1"}, "the key is longer than 64 bytes"},
      {{"tag", k_gemm_run, "note=" + long_value}, "the value is longer than 256 bytes"},
      {{"tag", k_gemm_run, "note=a\tb"}, "the value holds a control character"},
      {{"tag", k_gemm_run, "note=x\xc2\x9by"}, "the value holds a control character"}, // U+009B, a C1 CSI
      {{"tag", k_gemm_run, "note=x\xc2\x85"}, "the value holds a control character"},  // U+0085
      {{"tag", k_gemm_run, "note=\xff"}, "the value is not valid UTF-8"},
      {{"tag", k_gemm_run, "tp=8", "tp=4"}, "tag key 'tp' is given twice"},
      {{"tag", k_gemm_run, "tp=8", "bad"}, "tag 'bad' is not key=value"},
      {{"untag", k_gemm_run, "quant=fp8"}, "tag key 'quant=fp8'"},
      {{"untag", k_gemm_run, "quant", "quant"}, "tag key 'quant' is given twice"},
      {{"tag", "e2e_Qwen-Qwen3", "tp=8"}, "run id prefix 'e2e_Qwen-Qwen3' is ambiguous"},
      {{"runs", "--tag", "quant"}, "tag 'quant' is not key=value"},
  };
  for (const auto& [args, message] : usage) {
    const auto r = rfdb(db.string(), args);
    EXPECT_EQ(r.code, 2) << args[2] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, message)) << r.err;
  }
  auto r = rfdb(db.string(), {"tag", "e2e_nope", "tp=8"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "rfdb: error: tag: no run 'e2e_nope'\n")) << r.err;
  EXPECT_EQ(r.code, rfdb(db.string(), {"retract", "e2e_nope", "--reason", "x"}).code) << "as retract";
  r = rfdb(db.string(), {"untag", k_gemm_run, "quant", "tp"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "run '" + k_gemm_run + "' has no tag 'tp'")) << r.err;
  EXPECT_EQ(dump_tables(db), before) << "quant=fp8 stays: an untag with an unset key removes nothing";
  // The longest key and value are taken.
  r = rfdb(db.string(), {"tag", k_gemm_run, std::string(64, 'k') + "=" + std::string(256, 'v')});
  EXPECT_EQ(r.code, 0) << r.err;
  // A missing database is not created by a refused tag.
  r = rfdb((tmp / "none.sqlite").string(), {"tag", k_gemm_run, "quant"});
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(fs::exists(tmp / "none.sqlite"));
}

// The dev runs, two of them tagged at ingest, the others by `rfdb tag`: `runs --tag` keeps the
// runs holding every tag given; priors and the report are those of the untagged store.
TEST(Tags, RunsTagFiltersTheDevRunsAndPriorsIgnoreTags)
{
  TempDir tmp;
  const auto db = tmp / "tagged.sqlite";
  const auto plain = tmp / "plain.sqlite";
  auto r = rfdb(db.string(), {"ingest", "-q", "--tag", "quant=fp8", "--tag", "family=qwen3.5",
                              dev_run(k_d6).string(), dev_run(k_d7).string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = json::parse(r.out);
  ASSERT_EQ(report["paths"].size(), 2U);
  EXPECT_EQ(report["paths"][1]["tagged"], json::array({"quant=fp8 (added)", "family=qwen3.5 (added)"}));
  r = rfdb(db.string(), {"ingest", "-q", dev_run(k_d8).string(), dev_run(k_d9).string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["paths"][0]["tagged"], json::array()) << "no --tag, nothing tagged";
  ASSERT_EQ(rfdb(db.string(), {"tag", k_d9, "quant=int4", "arch=moe"}).code, 0);
  ASSERT_EQ(rfdb(db.string(), {"tag", k_d7, "arch=moe"}).code, 0);
  ASSERT_EQ(rfdb(db.string(), {"tag", k_d8, "quant=bf16"}).code, 0);
  r = rfdb(plain.string(), {"ingest", "-q", dev_run(k_d6).string(), dev_run(k_d7).string(),
                            dev_run(k_d8).string(), dev_run(k_d9).string()});
  ASSERT_EQ(r.code, 0) << r.err;

  const auto runs = [&](std::vector<std::string> tags) {
    std::vector<std::string> args{"runs", "--format", "json"};
    for (auto& t : tags) {
      args.push_back("--tag");
      args.push_back(std::move(t));
    }
    const auto res = rfdb(db.string(), args);
    EXPECT_EQ(res.code, 0) << res.err;
    return run_ids(res);
  };
  using ids = std::vector<std::string>;
  EXPECT_EQ(runs({}), (ids{k_d9, k_d7, k_d6, k_d8})) << "by run_date";
  EXPECT_EQ(runs({"quant=fp8"}), (ids{k_d7, k_d6}));
  EXPECT_EQ(runs({"quant=fp8", "arch=moe"}), (ids{k_d7}));
  EXPECT_EQ(runs({"arch=moe"}), (ids{k_d9, k_d7}));
  EXPECT_EQ(runs({"family=qwen3.5", "quant=int4"}), ids{});
  EXPECT_EQ(runs({"quant=FP8"}), ids{}) << "values match exactly";
  EXPECT_EQ(runs({"Quant=fp8"}), ids{}) << "keys match exactly";

  r = run_cli_with({"--db", db.string(), "-q", "runs"}, CliEnv{true, "", false, {}, {}});
  ASSERT_EQ(r.code, 0) << r.err;
  RFDB_EXPECT_GOLDEN("cli/runs_tags.txt", r.out);
  r = run_cli_with({"--db", db.string(), "-q", "runs", "--tag", "arch=moe"}, CliEnv{true, "", false, {}, {}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  tags\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  arch=moe quant=int4\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  arch=moe family=qwen3.5 quant=fp8\n")) << r.out;

  // Tags are user metadata: priors, the report and every derived row are the untagged store's.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"priors", "--format", "json"},
                                             {"priors", "--by", "class,gfx", "--format", "json"},
                                             {"report"},
                                             {"export", "--format", "json"}}) {
    const auto a = rfdb(db.string(), args);
    const auto b = rfdb(plain.string(), args);
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_EQ(a.out, b.out) << args[0];
  }
}

TEST(Tags, AReIngestKeepsTheTagsAndIngestTagsAnUnchangedRun)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  fs::create_directories(tmp / "runs");
  const fs::path run = copy_run(k_canonical_run, tmp / "runs");
  const auto roofline = run / "profile/round_0/profile_roofline.json";
  const std::string stage_b = read_bytes(roofline);
  write_bytes(roofline, read_bytes(fixtures_dir() / "variants/canonical_profile_roofline.stage_A.json"));
  auto r = rfdb(db.string(), {"ingest", "-q", "--tag", "quant=fp8", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(rfdb(db.string(), {"tag", k_canonical_run, "tp=1"}).code, 0);

  // New content: the run's rows are derived again, its tags stay.
  write_bytes(roofline, stage_b);
  r = run_cli_with({"--db", db.string(), "ingest", run.string()}, CliEnv{true, "", false, {}, {}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, k_canonical_run + " updated: 1 new file(s), 1 superseded")) << r.out;
  EXPECT_EQ(current_tags(db, k_canonical_run), "quant=fp8 tp=1");
  EXPECT_EQ(tag_log(db, k_canonical_run), "tag quant=fp8 " + k_at + "|tag tp=1 " + k_at);

  // Unchanged files: --tag is applied all the same (a transaction of its own), and logged once.
  r = run_cli_with({"--db", db.string(), "ingest", "--tag", "quant=int4", "--tag", "tp=1", run.string()},
                   CliEnv{true, "", false, {}, {}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, k_canonical_run + " unchanged: 0 new file(s)")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n  tagged quant=int4 (replaced)\n  tagged tp=1 (unchanged)\n")) << r.out;
  EXPECT_EQ(current_tags(db, k_canonical_run), "quant=int4 tp=1");
  EXPECT_EQ(tag_log(db, k_canonical_run),
            "tag quant=fp8 " + k_at + "|tag tp=1 " + k_at + "|tag quant=int4 " + k_at);

  // A dry run tags nothing; a knowledge path is not tagged (a warning).
  const std::string before = dump_tables(db);
  write_bytes(roofline, read_bytes(fixtures_dir() / "variants/canonical_profile_roofline.stage_A.json"));
  r = rfdb(db.string(), {"ingest", "-q", "--dry-run", "--tag", "quant=bf16", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["paths"][0]["tagged"], json::array({"quant=bf16 (replaced)"}));
  EXPECT_EQ(dump_tables(db), before);
  r = rfdb(db.string(), {"ingest", "--tag", "quant=bf16",
                         (fixtures_dir() / "knowledge" / "backend_playbook.md").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "--tag applies to runs: this knowledge path is not tagged")) << r.err;
  EXPECT_EQ(current_tags(db, k_canonical_run), "quant=int4 tp=1");
  // A malformed --tag is a usage error before anything is read.
  r = rfdb((tmp / "new.sqlite").string(), {"ingest", "--tag", "quant", run.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "tag 'quant' is not key=value")) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "new.sqlite"));
}

// The same tag commands on PostgreSQL give SQLite's tags, history and filters.
TEST(PostgresTags, TagUntagAndRunsTagMatchSqlite)
{
  RFDB_REQUIRE_PG(url);
  TempDir tmp;
  const auto sqlite = (tmp / "team.sqlite").string();
  const std::string pg = pg_url_for(url, pg_create_database(url, "tags"));
  for (const std::string& db : {sqlite, pg}) {
    std::vector<std::string> args{"ingest", "-q", "--tag", "quant=fp8",
                                  run_fixture(k_canonical_run).string()};
    ASSERT_EQ(rfdb(db, args).code, 0) << db;
    ASSERT_EQ(
        rfdb(db, {"ingest", "-q", run_fixture(k_gemm_run).string(), run_fixture(k_attn_run).string()}).code,
        0);
    ASSERT_EQ(rfdb(db, {"tag", k_gemm_run, "quant=bf16", "tp=1"}).code, 0);
    ASSERT_EQ(rfdb(db, {"tag", k_canonical_run, "quant=int4", "tp=1"}).code, 0);
    ASSERT_EQ(rfdb(db, {"untag", k_gemm_run, "quant"}).code, 0);
    EXPECT_EQ(rfdb(db, {"untag", k_gemm_run, "quant"}).code, 1);
  }
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"show", k_canonical_run, "--format", "json"},
           {"show", k_gemm_run, "--format", "json"},
           {"runs", "--tag", "tp=1", "--format", "json"},
           {"runs", "--tag", "tp=1", "--tag", "quant=int4", "--format", "json"}}) {
    const auto a = rfdb(sqlite, args);
    const auto b = rfdb(pg, args);
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(a.out, b.out) << args[0] << " " << args[1];
  }
  const auto r = rfdb(pg, {"runs", "--tag", "tp=1", "--tag", "quant=int4", "--format", "json"});
  EXPECT_EQ(run_ids(r), std::vector<std::string>{k_canonical_run});
  EXPECT_EQ(pg_query(pg, "SELECT count(*) FROM tag_log"), "6\n");
}

} // namespace rfdb::test
