// Legacy knowledge end to end through the CLI (issue 5): a learned-cards
// directory with a broken card, --strict, idempotence, a changed (and a
// reverted) card, the legacy playbook, the merge with run evidence in
// `rfdb report`, and the `report --cards` → `ingest` round trip.
#include "support/helpers.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

fs::path knowledge_fixture(const std::string& rel)
{
  return fixtures_dir() / "knowledge" / rel;
}

CliResult rfdb(const fs::path& db, std::vector<std::string> args)
{
  if (!args.empty() && args[0] == "ingest") {
    args.insert(args.begin() + 1, {"--format", "table"}); // the result lines a terminal shows
  }
  args.insert(args.begin(), {"--db", db.string()});
  return run_cli(args);
}

// Columns (comma-separated SQL expressions) of the current finding
// `identity`, '|'-joined, "NULL" for a null.
std::string finding(const fs::path& db, const std::string& identity, const std::string& columns)
{
  std::string expr;
  std::string column;
  int depth = 0;
  for (const char c : columns + ",") {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0) {
      expr += (expr.empty() ? "" : " || '|' || ") + ("ifnull(" + column + ", 'NULL')");
      column.clear();
    } else {
      column += c;
    }
  }
  return query_value(db, "SELECT " + expr + " FROM learned_findings WHERE superseded = 0 AND identity = '" +
                             identity + "'");
}

std::string count(const fs::path& db, const std::string& where)
{
  return query_value(db, "SELECT count(*) FROM learned_findings WHERE " + where);
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

// The report line that contains `part` ("" when none does).
std::string line_with(const std::string& text, const std::string& part)
{
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (contains(line, part)) {
      return line;
    }
  }
  return "";
}

CliResult ingest_runs(const fs::path& db)
{
  return rfdb(db, {"ingest", "-q", run_fixture(k_canonical_run).string(), run_fixture(k_gemm_run).string(),
                   run_fixture(k_attn_run).string()});
}

std::map<std::string, std::pair<std::string, fs::file_time_type>> snapshot(const fs::path& dir)
{
  std::map<std::string, std::pair<std::string, fs::file_time_type>> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out[e.path().filename().string()] = {read_bytes(e.path()), fs::last_write_time(e.path())};
  }
  return out;
}

} // namespace

TEST(KnowledgeIngest, LearnedDirImportsGoodCardsAndSkipsTheBrokenOne)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto r = rfdb(db, {"ingest", knowledge_fixture("learned").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  // 6 cards + 2 proposals; README, _archive.md, INDEX.md and the broken card skipped.
  EXPECT_TRUE(contains(r.out, "added: 8 new file(s), 0 superseded, 0 unchanged, 4 skipped; 8 findings"))
      << r.out;
  EXPECT_EQ(count(db, "1"), "8");
  EXPECT_EQ(count(db, "origin = 'card'"), "6");
  EXPECT_EQ(count(db, "origin = 'proposal'"), "2");
  EXPECT_EQ(count(db, "identity LIKE 'broken%'"), "0");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE rel_path LIKE '%broken%'"), "0");

  // Warnings name file and line; skipped support files get a note.
  EXPECT_TRUE(contains(r.err, "rfdb: warning: learned/broken-no-colon.md:line 4: skipped: front-matter line "
                              "has no 'key:' (this line has no colon and breaks the card)"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: note: learned/README.md: README, not a card; skipped")) << r.err;
  EXPECT_TRUE(
      contains(r.err, "rfdb: note: learned/_archive.md: eviction log (_archive.md), not a card; skipped"));
  EXPECT_TRUE(
      contains(r.err, "learned/INDEX.md:line 8: names ghost-card-gfx942.md, which is not in the card"));
  EXPECT_TRUE(contains(r.err, "learned/INDEX.md:line 13: index entry names no card file"));
  EXPECT_TRUE(contains(r.err, "learned/INDEX.md: does not list card multiline-moe-fp8-gfx90a.md"));
  EXPECT_TRUE(contains(r.err, "learned/hybrid-split-kv-decode-gfx1100.md:line 9: attempts 'two' is not an "
                              "integer; read as 0"));

  // Legacy header: class and gfx only in `key`; a non-regime third part.
  EXPECT_EQ(finding(db, "legacy-gemm-tune-gfx942.md",
                    "op_class,gfx,regime,regime_raw,kernel_class_raw,stars,confirms,e2e_min_pct,last_seen,"
                    "lifecycle,sources_cited"),
            "gemm|gfx942|unknown|sglang|dense bf16 GEMM|3|3|1.85|2026-02-11|active|"
            "[\"fixture run alpha, 2026-02-11 (paired A/B)\"]");
  // Full header: counters, an iso range, two sources, a two-record caution.
  EXPECT_EQ(
      finding(db, "full-header-quant-cast-gfx950.md",
              "op_class,gfx,regime,stars,confirms,confirms_cited,confirms_blind,losses,attempts,iso_min,"
              "iso_max,e2e_min_pct,last_seen"),
      "elementwise|gfx950|prefill|2|NULL|2|1|0|3|1.08|1.22|NULL|2026-03-02");
  EXPECT_EQ(finding(db, "full-header-quant-cast-gfx950.md", "sources_cited"),
            "[\"fixture run beta, 2026-02-20\",\"fixture run gamma, 2026-03-02 (blind reproduction)\"]");
  EXPECT_TRUE(contains(finding(db, "full-header-quant-cast-gfx950.md", "cautions"),
                       "row index in the epilogue.\\na second record: the fallback path"));
  // Hybrid order: free-text regime, quoted lists, a 'two' counter, a
  // multi-kB effect whose headline (first) figure is what it read.
  EXPECT_EQ(
      finding(db, "hybrid-split-kv-decode-gfx1100.md",
              "name,op_class,gfx,regime,regime_raw,kernel_class_raw,attempts,losses,iso_min,sources_cited"),
      "Fixture split-KV count for decode attention (hybrid order)|attn|gfx1100|decode|"
      "decode, page_size=16, conc=32|attention-decode|0|1|1.12|"
      "[\"(launcher) fixture run delta, 2026-03-15\"]");
  EXPECT_GT(std::stoi(finding(db, "hybrid-split-kv-decode-gfx1100.md", "length(effect)")), 5000);
  EXPECT_EQ(finding(db, "hybrid-split-kv-decode-gfx1100.md", "substr(effect, -13)"), "END-OF-EFFECT");
  // Multi-line effect: iso × and a signed e2e % read across the lines.
  EXPECT_EQ(finding(db, "multiline-moe-fp8-gfx90a.md", "op_class,gfx,regime,type,stars,iso_min,e2e_max_pct"),
            "moe|gfx90a|decode|routing|1|1.047|-0.064");
  EXPECT_EQ(
      finding(db, "method-ab-pinning.md", "op_class,gfx,regime,stars,confirms,json_array_length(cautions)"),
      "method|NULL|both|3|5|2");
  EXPECT_EQ(finding(db, "archived-topk-routing-gfx942.md", "op_class,gfx,regime,lifecycle,iso_min"),
            "elementwise|gfx942|unknown|archived|0.851");
  // The drained (accepted) proposal is active; the pending one is archived.
  EXPECT_EQ(
      finding(
          db, "e2e-fixture-splitkv-20260301.json#/cards/0",
          "op_class,gfx,regime,stars,attempts,e2e_min_pct,last_seen,lifecycle,json_array_length(cautions)"),
      "attn|gfx1100|decode|2|2|3.1|2026-03-01|active|2");
  EXPECT_EQ(finding(db, "e2e-fixture-pending-20260305.json#/cards/0", "op_class,lifecycle"), "gemm|archived");
}

TEST(KnowledgeIngest, StrictFailsAndLeavesTheDatabaseByteForByteUnchanged)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", knowledge_fixture("backend_playbook.md").string()}).code, 0);
  const std::string bytes = read_bytes(db);
  const std::string tables = dump_tables(db);
  const auto r = rfdb(db, {"ingest", "--strict", knowledge_fixture("learned").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "learned: 8 warning(s) with --strict; nothing was written")) << r.err;
  EXPECT_TRUE(contains(r.err, "learned/broken-no-colon.md:line 4: skipped")) << r.err;
  EXPECT_EQ(read_bytes(db), bytes);
  EXPECT_EQ(dump_tables(db), tables);
  EXPECT_EQ(count(db, "origin = 'card'"), "0");
}

TEST(KnowledgeIngest, ReingestingTheSameDirChangesNothing)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", knowledge_fixture("learned").string()}).code, 0);
  const std::string before = dump_tables(db);
  const auto r = rfdb(db, {"ingest", knowledge_fixture("learned").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "unchanged: 0 new file(s), 0 superseded, 8 unchanged, 4 skipped; 0 findings"))
      << r.out;
  EXPECT_EQ(dump_tables(db), before);
}

// Findings an rfdb before migration 0012 stored carry no classification:
// the next ingest of the unchanged files reads them anew, in place.
TEST(KnowledgeIngest, FindingsStoredWithoutAClassificationAreReadAnewOnTheNextIngest)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"ingest", knowledge_fixture("learned").string()}).code, 0);
  const std::string classified =
      query_value(db, "SELECT group_concat(identity || '=' || classification, ',') FROM "
                      "(SELECT identity, classification FROM learned_findings ORDER BY identity)");
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    conn.exec(
        "UPDATE learned_findings SET classification = NULL, classification_reason = NULL, iso_min = NULL");
  }
  const auto r = rfdb(db, {"ingest", knowledge_fixture("learned").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM learned_findings WHERE classification IS NULL"), "0");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM learned_findings WHERE superseded = 1"), "0");
  EXPECT_EQ(query_value(db, "SELECT group_concat(identity || '=' || classification, ',') FROM "
                            "(SELECT identity, classification FROM learned_findings ORDER BY identity)"),
            classified);
  EXPECT_EQ(finding(db, "full-header-quant-cast-gfx950.md", "iso_min"), "1.08");
  // Read once: the ingest after that finds nothing to do.
  const std::string before = dump_tables(db);
  EXPECT_EQ(rfdb(db, {"ingest", knowledge_fixture("learned").string()}).code, 0);
  EXPECT_EQ(dump_tables(db), before);
}

TEST(KnowledgeIngest, ChangedCardSupersedesAndRevertedCardIsCurrentAgain)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto dir = tmp / "learned";
  fs::copy(knowledge_fixture("learned"), dir, fs::copy_options::recursive);
  const auto card = dir / "legacy-gemm-tune-gfx942.md";
  const std::string original = read_bytes(card);
  ASSERT_EQ(rfdb(db, {"ingest", dir.string()}).code, 0);

  std::string changed = original;
  changed.replace(changed.find("confirms: 3"), 11, "confirms: 4");
  write_bytes(card, changed);
  auto r = rfdb(db, {"ingest", dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "updated: 1 new file(s), 1 superseded, 7 unchanged, 4 skipped; 1 findings"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "  superseded learned/legacy-gemm-tune-gfx942.md\n")) << r.out;
  const std::string id = "identity = 'legacy-gemm-tune-gfx942.md'";
  EXPECT_EQ(count(db, id), "2");
  EXPECT_EQ(
      query_value(db, "SELECT group_concat(confirms) FROM learned_findings WHERE superseded = 1 AND " + id),
      "3");
  EXPECT_EQ(finding(db, "legacy-gemm-tune-gfx942.md", "confirms"), "4");
  EXPECT_EQ(count(db, "superseded = 0"), "8"); // the other findings are untouched
  EXPECT_EQ(query_value(db,
                        "SELECT count(*) FROM sources WHERE rel_path = 'learned/legacy-gemm-tune-gfx942.md'"
                        " AND superseded_by IS NULL"),
            "1");

  // Back to the first content: that stored version is current again.
  write_bytes(card, original);
  r = rfdb(db, {"ingest", dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  superseded learned/legacy-gemm-tune-gfx942.md\n")) << r.out;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM learned_findings WHERE superseded = 0 AND " + id), "1");
  EXPECT_EQ(finding(db, "legacy-gemm-tune-gfx942.md", "confirms"), "3");
  EXPECT_EQ(
      query_value(db, "SELECT hex(sha256) FROM sources WHERE rel_path = 'learned/legacy-gemm-tune-gfx942.md'"
                      " AND superseded_by IS NULL"),
      query_value(db, "SELECT hex(sha256) FROM sources WHERE rel_path = 'learned/legacy-gemm-tune-gfx942.md'"
                      " ORDER BY source_id LIMIT 1"));
  EXPECT_EQ(count(db, id), "2") << "the revived version's rows are read anew, not added beside the old ones";
  const std::string tables = dump_tables(db);
  EXPECT_EQ(rfdb(db, {"ingest", dir.string()}).code, 0);
  EXPECT_EQ(dump_tables(db), tables);

  // More flip-flops keep one row per stored version.
  for (int cycle = 0; cycle < 2; ++cycle) {
    write_bytes(card, changed);
    ASSERT_EQ(rfdb(db, {"ingest", dir.string()}).code, 0);
    EXPECT_EQ(finding(db, "legacy-gemm-tune-gfx942.md", "confirms"), "4");
    write_bytes(card, original);
    ASSERT_EQ(rfdb(db, {"ingest", dir.string()}).code, 0);
    EXPECT_EQ(finding(db, "legacy-gemm-tune-gfx942.md", "confirms"), "3");
  }
  EXPECT_EQ(count(db, id), "2");
  EXPECT_EQ(count(db, "superseded = 0"), "8");
}

TEST(KnowledgeIngest, LegacyPlaybookImportsDatedAndSeedLinesOnly)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto r = rfdb(db, {"ingest", knowledge_fixture("backend_playbook.md").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "added: 1 new file(s), 0 superseded, 0 unchanged, 0 skipped; 4 findings"))
      << r.out;
  EXPECT_TRUE(contains(r.err, "backend_playbook.md:line 25: entry has 4 ' | ' fields, expected 6; skipped"));
  EXPECT_EQ(count(db, "origin = 'playbook'"), "4");
  // The mid-list format comment and the table cell are not entries.
  EXPECT_EQ(count(db, "key_raw LIKE '%YYYY%' OR model = 'model' OR key_raw LIKE 'not%'"), "0");
  EXPECT_EQ(query_value(db, "SELECT source_id FROM learned_findings GROUP BY source_id"), "1");

  const std::string p = "backend_playbook.md#";
  EXPECT_EQ(
      query_value(db, "SELECT ifnull(name, '') || '|' || op_class || '|' || gfx || '|' || regime || '|' ||"
                      " stars || '|' || last_seen || '|' || model || '|' || model_class || '|' || iso_min ||"
                      " '|' || e2e_min_pct || '|' || type FROM learned_findings WHERE identity LIKE '" +
                          p + "2026-03-10%'"),
      "ROUTING: tune the per-shape fused-MoE config table before authoring.|moe|gfx942|decode|2|2026-03-10|"
      "acme-Tiny-MoE-16B|moe|1.42|6.3|routing");
  EXPECT_EQ(query_value(db, "SELECT op_class || '|' || regime || '|' || type FROM learned_findings"
                            " WHERE identity LIKE '" +
                                p + "2026-03-08%'"),
            "method|both|method");
  EXPECT_EQ(query_value(db, "SELECT op_class || '|' || regime || '|' || regime_raw || '|' || e2e_min_pct ||"
                            " '|' || (text LIKE '%continued on an indented line.') FROM learned_findings"
                            " WHERE identity LIKE '" +
                                p + "2026-03-01%'"),
            "gemm|both|prefill+decode|1.85|1");
  // Seed: one star, no date or model, named by its first sentence.
  EXPECT_EQ(query_value(db, "SELECT name || '|' || op_class || '|' || regime || '|' || stars || '|' ||"
                            " ifnull(last_seen, 'NULL') || '|' || ifnull(model, 'NULL') FROM learned_findings"
                            " WHERE identity LIKE '" +
                                p + "*%'"),
            "Start from the tuned library table; author a kernel only if the table "
            "plateaus.|gemm|both|1|NULL|NULL");
}

// The "## What works" section of a playbook.
std::string what_works(const std::string& md)
{
  const std::size_t from = md.find("## What works");
  return md.substr(from, md.find("## Cautions") - from);
}

TEST(KnowledgeReport, ImportedCardsMergeWithRunEvidenceUnderTheSameKey)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(ingest_runs(db).code, 0);
  const auto runs_only = rfdb(db, {"report"});
  ASSERT_EQ(runs_only.code, 0) << runs_only.err;
  // The norm patch was stacked at +0.30 %, inside the e2e band: no finding.
  EXPECT_FALSE(contains(what_works(runs_only.out), "code patch (aiter)")) << what_works(runs_only.out);

  const auto in = rfdb(db, {"ingest", knowledge_fixture("merge").string()});
  ASSERT_EQ(in.code, 0) << in.err;
  EXPECT_TRUE(contains(in.out, "added: 4 new file(s), 0 superseded, 0 unchanged, 0 skipped; 4 findings"));
  EXPECT_EQ(finding(db, "legacy-norm-aiter-gfx942.md", "op_class,gfx,regime"), "elementwise|gfx942|prefill");
  EXPECT_EQ(finding(db, "aiter-tuned-gemm-gfx942-prefill.md", "op_class,gfx,regime"), "gemm|gfx942|prefill");

  const auto r = rfdb(db, {"report"});
  ASSERT_EQ(r.code, 0) << r.err;
  // The archived card is stored but neither counted nor shown.
  EXPECT_TRUE(contains(r.out, "2026-06-12 to 2026-08-15; 3 imported findings; as of 2026-08-15.")) << r.out;
  EXPECT_FALSE(contains(r.out, "hipblaslt offline tuning"));
  EXPECT_FALSE(contains(r.out, "hipblaslt-offline-gemm"));
  // One line per lever: the card joins the run's aiter line (matched by
  // backend); ranges widen, the card is labelled imported.
  std::string gemm = r.out.substr(r.out.find("### gemm · gfx942 · prefill\n\n- "));
  gemm = gemm.substr(0, gemm.find("\n\n###"));
  EXPECT_EQ(std::count(gemm.begin(), gemm.end(), '\n'), 2) << gemm; // heading, blank, one line
  const std::string aiter = line_with(gemm, "- ");
  EXPECT_TRUE(aiter.starts_with("- ★★★ backend aiter (env AITER_TUNED_GEMM=1 AITER_CONFIG_GEMM_BF16="
                                "bf16_tuned_gemm.csv) — verified end-to-end win (Director 1.0650×); "))
      << aiter;
  for (const std::string& part : std::vector<std::string>{
           "isolated 1.220–1.280×", "e2e +4.90 % to +6.10 %", "gate accepted", "confirms 2",
           "last_seen 2026-07-03",
           "attempt `" + k_gemm_run + "#cand:cand_Cijk_Alik_Bljk_BBS_BH_MT256x256x64_aiter`",
           "imported `aiter-tuned-gemm-gfx942-prefill.md` (self-rated ★★, 2026-05-20)"}) {
    EXPECT_TRUE(contains(aiter, part)) << part << " not in " << aiter;
  }
  // Two ★★ cards for the same norm lever are one imported source, and with no
  // run behind them (the run's attempt is in the noise) the line stays ★★.
  // Titled by the first card's heading (a legacy card has no name or
  // description), never by its file name.
  const std::string norm = line_with(what_works(r.out), "legacy-norm-aiter-gfx942.md");
  EXPECT_TRUE(
      norm.starts_with("- ★★ Fixture: legacy-header card for the same norm lever, from another team — "
                       "imported, self-rated ★★; "))
      << norm;
  for (const std::string& part : std::vector<std::string>{
           "isolated 1.090–1.120×", "e2e +0.60 % to +0.80 %", "confirms 2",
           "imported `legacy-norm-aiter-gfx942.md`, `rmsnorm-aiter-gfx942-prefill.md`"}) {
    EXPECT_TRUE(contains(norm, part)) << part << " not in " << norm;
  }
}

TEST(KnowledgeReport, CardsRoundTripChangesNothing)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto cards = tmp / "cards";
  ASSERT_EQ(ingest_runs(db).code, 0);
  auto r = rfdb(db, {"report", "-o", (tmp / "first.md").string(), "--cards", cards.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, ": 4 written, 0 unchanged, 0 archived")) << r.err;

  r = rfdb(db, {"ingest", cards.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "added: 3 new file(s), 0 superseded, 0 unchanged, 1 skipped; 3 findings"))
      << r.out;
  EXPECT_EQ(r.err, ""); // our INDEX.md lists every card we wrote
  EXPECT_EQ(count(db, "origin = 'card' AND json_extract(fields, '$.generator') = 'rfdb'"), "3");
  EXPECT_EQ(finding(db, "authored-triton-kernel-attn-gfx950-decode.md", "op_class,gfx,regime,stars,lever"),
            "attn|gfx950|decode|3|authored triton kernel");

  const auto files = snapshot(cards);
  const std::string tables = dump_tables(db);
  r = rfdb(db, {"report", "-o", (tmp / "second.md").string(), "--cards", cards.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_bytes(tmp / "second.md"), read_bytes(tmp / "first.md"));
  EXPECT_TRUE(contains(r.err, ": 0 written, 4 unchanged, 0 archived")) << r.err;
  EXPECT_EQ(snapshot(cards), files);
  EXPECT_EQ(dump_tables(db), tables);
  r = rfdb(db, {"ingest", cards.string()});
  EXPECT_TRUE(contains(r.out, "unchanged: 0 new file(s), 0 superseded, 3 unchanged, 1 skipped")) << r.out;
}

} // namespace rfdb::test

namespace rfdb::test {

TEST(KnowledgeReport, NegativeFindingsAreCautionsNotWhatWorks)
{
  TempDir tmp;
  const auto db = (tmp / "rfdb.sqlite").string();
  auto r = run_cli({"--db", db, "ingest", (fixtures_dir() / "knowledge/negative").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM learned_findings"), "2");
  EXPECT_EQ(query_value(db, "SELECT type || ',' || iso_max FROM learned_findings WHERE op_class = 'moe'"),
            "anti-pattern,0.91");
  auto report = run_cli({"--db", db, "report", "--as-of", "2026-06-01"});
  ASSERT_EQ(report.code, 0) << report.err;
  const std::string& md = report.out;
  const std::size_t cautions = md.find("## Cautions");
  EXPECT_EQ(md.substr(0, cautions).find("split-K"), std::string::npos) << md;
  EXPECT_EQ(md.substr(0, cautions).find("end-to-end loss"), std::string::npos) << md;
  EXPECT_NE(md.find("Evidence: no runs; 2 imported findings; as of 2026-06-01."), std::string::npos) << md;
  // Both become conditioned "also verify" notes naming the imported card,
  // titled by the card's name.
  EXPECT_NE(
      md.find(
          "- Also verify the outcome before reusing Fixture anti-pattern: more split-K on a small grouped "
          "GEMM lowered throughput (moe · gfx950 · decode): imported negative evidence (imported card "
          "`split-k-regression-moe-gfx950.md`, 2026-05-02, type anti-pattern) records 0.91x isolated on "
          "the fixture decode shape."),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("- Also verify the outcome before reusing Fixture lever whose only stated outcome is an "
                    "end-to-end loss (gemm · gfx950 · prefill): imported negative evidence (imported card "
                    "`e2e-loss-gemm-gfx950.md`, 2026-05-03, type lever) records -1.4% e2e"),
            std::string::npos)
      << md;
  EXPECT_EQ(query_value(db, "SELECT group_concat(classification, ',') FROM learned_findings"),
            "negative,negative");
}

} // namespace rfdb::test

namespace rfdb::test {

TEST(KnowledgeReport, KnowledgeNewerThanTheLastRunKeepsItsDateAndNeverMovesAsOf)
{
  TempDir tmp;
  const auto db = (tmp / "rfdb.sqlite").string();
  ASSERT_EQ(run_cli({"--db", db, "ingest", run_fixture(k_canonical_run).string()}).code, 0);
  ASSERT_EQ(run_cli({"--db", db, "ingest", (fixtures_dir() / "knowledge/late").string()}).code, 0);
  auto r = run_cli({"--db", db, "report"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(
      r.out.find("; as of 2026-06-12. Imported knowledge dated after it (up to 2026-10-01) is shown with "
                 "its own date."),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("- ★★ Fixture lever dated after every sample run. — imported, self-rated ★★; "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(self-rated ★★, 2026-10-01)"), std::string::npos) << r.out;
  // An explicit --as-of is a snapshot: knowledge after it is left out.
  r = run_cli({"--db", db, "report", "--as-of", "2026-06-12"});
  EXPECT_EQ(r.out.find("fp8 kv-cache"), std::string::npos) << r.out;
}

} // namespace rfdb::test
