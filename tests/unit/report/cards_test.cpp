#include "unit/report/sample_input.hpp"

#include "ingest/knowledge/knowledge.hpp"
#include "report/cards.hpp"
#include "report/playbook.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace rfdb::report {
namespace {

// The canonical input plus a legacy card that merges into the gfx942 line
// and one that forms its own line.
ReportInput input_with_legacy()
{
  auto in = testing::canonical_input();
  auto merged = testing::make_card("legacy-tune.md", "gemm", "gfx942", "decode", "Per-shape hipBLASLt tune",
                                   2, "2025-11-01");
  merged.sources_cited = {"run legacy_2025, 2025-11-01 - fresh-server A/B"};
  merged.cautions = {"also verify accuracy after a library switch"};
  auto own = testing::make_card("legacy-attn.md", "attn", "gfx942", "prefill", "triton prefill attention", 2,
                                "2025-12-01");
  in.imported = {merged, own};
  return in;
}

const CardFile& file_named(const std::vector<CardFile>& files, std::string_view name)
{
  const auto it =
      std::find_if(files.begin(), files.end(), [&](const CardFile& f) { return f.file_name == name; });
  if (it == files.end()) {
    throw std::runtime_error("no file " + std::string(name));
  }
  return *it;
}

TEST(Cards, OneCardPerFindingPlusIndex)
{
  const auto files = render_cards(input_with_legacy());
  std::vector<std::string> names;
  for (const auto& f : files) {
    names.push_back(f.file_name);
  }
  // The MoE tune (gate rejected) and the attention kernel (no e2e result) are
  // not What works, so they get no card.
  EXPECT_EQ(names, (std::vector<std::string>{"per-shape-hipblaslt-tune-gemm-gfx942-decode.md",
                                             "triton-prefill-attention-attn-gfx942-prefill.md", "INDEX.md"}));
}

TEST(Cards, FrontMatterAndBodyOfAMergedFinding)
{
  const auto files = render_cards(input_with_legacy());
  EXPECT_EQ(
      file_named(files, "per-shape-hipblaslt-tune-gemm-gfx942-decode.md").content,
      "---\n"
      "name: per-shape-hipblaslt-tune-gemm-gfx942-decode\n"
      "description: gemm \u00b7 gfx942 \u00b7 decode: per-shape hipBLASLt tune (\u2605\u2605\u2605, isolated "
      "1.120\u00d7, e2e +2.10 %)\n"
      "keywords: [gemm, gfx942, decode, tuning, hipblaslt]\n"
      "kernels: [gemm_a8w8_kernel]\n"
      "platforms: [gfx942]\n"
      "kernel_class: gemm\n"
      "regime: decode\n"
      "key: gemm \u00b7 gfx942 \u00b7 decode\n"
      "type: lever\n"
      "confidence: \u2605\u2605\u2605\n"
      "effect: isolated 1.120\u00d7; e2e +2.10 %; 1 run + imported knowledge (1 finding)\n"
      "confirms: 2\n"
      "lifecycle: active\n"
      "last_seen: 2026-01-10\n"
      "lever_key: per shape hipblaslt tune\n"
      "spellings: [Per-shape hipBLASLt tune, per-shape hipBLASLt tune]\n"
      "imported: [legacy-tune.md]\n"
      "generator: rfdb\n"
      "---\n"
      "\n"
      "# per-shape hipBLASLt tune (gemm \u00b7 gfx942 \u00b7 decode)\n"
      "\n"
      "- lever: per-shape hipBLASLt tune\n"
      "- apply: Try it where the run matches gemm \u00b7 gfx942 \u00b7 decode; a tuning lever; backend "
      "hipblaslt; measured on gemm_a8w8_kernel; see imported legacy-tune.md for how it was applied.\n"
      "- verify: Re-measure the isolated speedup (noise band 3.4 %) and the end-to-end throughput delta "
      "(noise band 0.5 %) on the target workload with the A/B gate, and confirm the lever engaged.\n"
      "- caution: also verify accuracy after a library switch\n"
      "- source: run_gfx942_a\n"
      "- source: run legacy_2025, 2025-11-01 - fresh-server A/B\n");
}

TEST(Cards, DescriptionStaysWithin160CodePoints)
{
  auto in = testing::canonical_input();
  in.attempts[0].lever = std::string(300, 'x') + " \u2605 tail";
  const auto files = render_cards(in);
  const std::string& card = files.front().content;
  const std::size_t from = card.find("description: ") + 13;
  const std::string description = card.substr(from, card.find('\n', from) - from);
  const auto code_points = std::count_if(description.begin(), description.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  });
  EXPECT_EQ(code_points, 160);
  EXPECT_NE(description.find("\u2026 (\u2605\u2605\u2605, isolated"), std::string::npos);
  EXPECT_LE(files.front().file_name.size(), 60u + 1u + 20u + 3u);
}

TEST(Cards, IndexLinesSitBetweenTheMarkers)
{
  const auto files = render_cards(input_with_legacy());
  const std::string& index = file_named(files, "INDEX.md").content;
  const std::size_t begin = index.find(k_cards_begin);
  const std::size_t end = index.find(k_cards_end);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  EXPECT_LT(begin, end);
  EXPECT_EQ(index.rfind("# Learned cards\n", 0), 0u);
  const std::string block = index.substr(begin, end - begin);
  EXPECT_NE(
      block.find(
          "\n## gemm \u00b7 gfx942 \u00b7 decode\n\n- \u2605\u2605\u2605 "
          "per-shape-hipblaslt-tune-gemm-gfx942-decode \u2014 isolated 1.120\u00d7; e2e +2.10 %; 1 run + "
          "imported knowledge (1 finding) (per-shape-hipblaslt-tune-gemm-gfx942-decode.md)\n"),
      std::string::npos);
  // Every card is listed exactly once, and nothing is listed outside the markers.
  for (const auto& f : files) {
    if (f.file_name != k_index_file) {
      EXPECT_NE(block.find("(" + f.file_name + ")"), std::string::npos) << f.file_name;
      EXPECT_EQ(index.find("(" + f.file_name + ")", end), std::string::npos);
    }
  }
}

TEST(Cards, RerunOnItsOwnOutputRewritesNothing)
{
  const auto files = render_cards(input_with_legacy());
  const auto first = plan_card_sync(files, {});
  EXPECT_EQ(first.writes.size(), files.size());
  const auto second = plan_card_sync(render_cards(input_with_legacy()), first.writes);
  EXPECT_TRUE(second.writes.empty());
  EXPECT_TRUE(second.archived.empty());
  EXPECT_EQ(second.unchanged.size(), files.size());
  // A later as_of changes freshness, not the cards.
  auto later = input_with_legacy();
  later.as_of = "2026-06-30";
  EXPECT_TRUE(plan_card_sync(render_cards(later), first.writes).writes.empty());
}

TEST(Cards, VanishedFindingIsArchivedNotDeleted)
{
  const auto before = plan_card_sync(render_cards(input_with_legacy()), {}).writes;
  auto in = input_with_legacy();
  in.imported.pop_back(); // the legacy-attn finding is gone
  const auto plan = plan_card_sync(render_cards(in), before);
  ASSERT_EQ(plan.archived, std::vector<std::string>{"triton-prefill-attention-attn-gfx942-prefill.md"});
  ASSERT_EQ(plan.writes.size(), 2u); // INDEX.md and the archived card
  EXPECT_EQ(plan.writes[0].file_name, "INDEX.md");
  EXPECT_EQ(plan.writes[0].content.find("triton-prefill-attention"), std::string::npos);
  const CardFile& archived = plan.writes[1];
  EXPECT_EQ(archived.file_name, "triton-prefill-attention-attn-gfx942-prefill.md");
  EXPECT_NE(archived.content.find("\nlifecycle: archived\n"), std::string::npos);
  EXPECT_EQ(archived.content.find("lifecycle: active"), std::string::npos);
  const std::string original = file_named(before, archived.file_name).content;
  EXPECT_EQ(archive_card(original), archived.content);
  // Running again with the archived card in place changes nothing.
  std::vector<CardFile> now = before;
  for (auto& f : now) {
    for (const auto& w : plan.writes) {
      if (w.file_name == f.file_name) {
        f = w;
      }
    }
  }
  const auto again = plan_card_sync(render_cards(in), now);
  EXPECT_TRUE(again.writes.empty());
}

TEST(Cards, ForeignFilesAreNeverTouched)
{
  const auto files = render_cards(input_with_legacy());
  const std::vector<CardFile> existing{
      {"per-shape-hipblaslt-tune-gemm-gfx942-decode.md", "---\nname: mine\n---\n"},
      {"hand-written.md", "---\nname: hand\nlifecycle: active\n---\n"},
      {"README.md", "# readme\n"}};
  const auto plan = plan_card_sync(files, existing);
  EXPECT_EQ(plan.conflicts, std::vector<std::string>{"per-shape-hipblaslt-tune-gemm-gfx942-decode.md"});
  EXPECT_TRUE(plan.archived.empty());
  for (const auto& w : plan.writes) {
    EXPECT_NE(w.file_name, "hand-written.md");
    EXPECT_NE(w.file_name, "README.md");
    EXPECT_NE(w.file_name, "per-shape-hipblaslt-tune-gemm-gfx942-decode.md");
  }
}

TEST(Cards, MergeIndexReplacesOnlyTheMarkedBlock)
{
  const std::string generated = "# G\n\n<!-- CARDS:BEGIN -->\n\n- new\n\n<!-- CARDS:END -->\n";
  EXPECT_EQ(merge_index("# Mine\n\nintro\n\n<!-- CARDS:BEGIN -->\n- old\n<!-- CARDS:END -->\n\nfooter\n",
                        generated),
            "# Mine\n\nintro\n\n<!-- CARDS:BEGIN -->\n\n- new\n\n<!-- CARDS:END -->\n\nfooter\n");
  EXPECT_EQ(merge_index("# Hand index\n- a card (a.md)", generated),
            "# Hand index\n- a card (a.md)\n\n<!-- CARDS:BEGIN -->\n\n- new\n\n<!-- CARDS:END -->\n");
}

TEST(Cards, ArchiveCardAddsLifecycleWhenMissing)
{
  EXPECT_EQ(archive_card("---\nname: x\ngenerator: rfdb\n---\n\n# x\n"),
            "---\nname: x\ngenerator: rfdb\nlifecycle: archived\n---\n\n# x\n");
  EXPECT_TRUE(is_rfdb_card("---\nname: x\ngenerator: rfdb\n---\n"));
  EXPECT_FALSE(is_rfdb_card("---\nname: x\n---\ngenerator: rfdb\n"));
  EXPECT_EQ(slugify("Per-Shape  hipBLASLt (tune)!", 60), "per-shape-hipblaslt-tune");
  EXPECT_EQ(slugify("aaaa-bbbb-cccc", 11), "aaaa-bbbb");
}

// ---- round trip: our own cards ingested again change nothing ----------------

// What the store holds for an ingested card (issue 5), from the ingest parser.
ImportedFinding imported_from(const ingest::knowledge::Finding& f)
{
  ImportedFinding out;
  out.origin = f.origin;
  out.identity = f.identity;
  out.name = f.name;
  out.op_class = f.op_class;
  out.gfx = f.gfx;
  out.regime = f.regime;
  out.lever = f.lever;
  out.effect = f.effect;
  out.stars = f.stars;
  out.iso_min = f.iso_min;
  out.iso_max = f.iso_max;
  out.e2e_min_pct = f.e2e_min_pct;
  out.e2e_max_pct = f.e2e_max_pct;
  out.confirms = f.confirms;
  out.last_seen = f.last_seen;
  out.lifecycle = f.lifecycle;
  out.sources_cited = f.sources_cited;
  out.cautions = f.cautions;
  out.key_raw = f.key_raw;
  out.type = f.type;
  out.apply = f.apply;
  out.text = f.text;
  const auto fields = nlohmann::json::parse(f.fields);
  out.generator = fields.value("generator", "");
  out.lever_key = fields.value("lever_key", "");
  out.description = fields.value("description", "");
  out.kind = domain::parse_knowledge_kind(f.classification).value_or(domain::KnowledgeKind::routing_note);
  out.kind_reason = f.classification_reason;
  return out;
}

std::vector<ImportedFinding> ingest_cards(const std::vector<CardFile>& files)
{
  std::vector<ImportedFinding> out;
  for (const auto& file : files) {
    if (file.file_name == k_index_file) {
      continue;
    }
    std::vector<ingest::knowledge::Warning> warnings;
    auto parsed = ingest::knowledge::parse_card(file.file_name, file.content, warnings);
    EXPECT_TRUE(parsed.has_value()) << file.file_name;
    if (parsed) {
      out.push_back(imported_from(*parsed));
    }
  }
  return out;
}

TEST(RoundTrip, IngestedOwnCardsChangeNeitherReportNorCards)
{
  auto in = input_with_legacy();
  in.imported.push_back(testing::make_card("odd.md", "attn", "gfx950", "prefill",
                                           "use *x* and _y_ <b> see https://example.com/a_b", 1,
                                           "2026-02-01"));
  // A multi-line, kilobyte-long legacy lever: the card keeps all of it.
  in.imported.push_back(testing::make_card("long.md", "elementwise", "", "unknown",
                                           "first line\n" + std::string(1500, 'y') + " last", 2,
                                           "2025-06-01"));
  const std::string report = render_playbook(in);
  const auto cards = render_cards(in);
  const auto reingested = ingest_cards(cards);
  ASSERT_EQ(reingested.size(), cards.size() - 1);
  for (const auto& f : reingested) {
    EXPECT_EQ(f.generator, "rfdb") << f.identity;
  }
  auto round = in;
  round.imported.insert(round.imported.end(), reingested.begin(), reingested.end());
  EXPECT_EQ(render_playbook(round), report);
  const auto plan = plan_card_sync(render_cards(round), cards);
  EXPECT_TRUE(plan.writes.empty());
  EXPECT_TRUE(plan.archived.empty());
}

// A measured positive GEAK kb record that joins no run line (report/kb_lines.hpp).
KbRecordInfo kb_only_record(std::string key, std::string signature)
{
  KbRecordInfo r;
  r.record_key = std::move(key);
  r.lane = "experience";
  r.gfx = "gfx950";
  r.kernel_name = "fused_moe_kernel";
  r.backend = "triton";
  r.framework = "rocm";
  r.framework_version = "7.2";
  r.direction = "BLOCK_SIZE_K retune for decode M";
  r.speedup = 1.874;
  r.content_signature = std::move(signature);
  r.reproductions = 1;
  r.date = "2026-09-03";
  return r;
}

// The card of a kb-only line names its kb records as sources (`- source: kb record ID`), and
// ingesting it again restates them: neither the playbook nor the cards change.
TEST(RoundTrip, AKbOnlyLineCardCitesItsRecordsAndRoundTrips)
{
  auto in = testing::canonical_input();
  const std::string sig = "csha:4b3227c7e42ea185afcd6249b62c0476";
  in.kb_records = {kb_only_record("20260903_141522_3fa9c1", sig),
                   kb_only_record("geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e", sig)};
  const auto cards = render_cards(in);
  const auto& card = file_named(cards, "block-size-k-retune-for-decode-m-moe-gfx950-unknown.md").content;
  EXPECT_NE(card.find("- source: kb record 20260903_141522_3fa9c1\n"
                      "- source: kb record geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e\n"),
            std::string::npos)
      << card;
  EXPECT_NE(card.find("effect: isolated 1.874\u00d7; e2e not measured; 2 kb records\n"), std::string::npos)
      << card;
  const std::string report = render_playbook(in);
  auto round = in;
  const auto reingested = ingest_cards(cards);
  round.imported.insert(round.imported.end(), reingested.begin(), reingested.end());
  EXPECT_EQ(render_playbook(round), report);
  const auto plan = plan_card_sync(render_cards(round), cards);
  EXPECT_TRUE(plan.writes.empty());
  // Without the kb records in scope the same card is evidence of its own (it cites records the
  // store does not hold).
  auto foreign = testing::canonical_input();
  foreign.imported = reingested;
  const std::string alone = render_playbook(foreign);
  EXPECT_NE(alone.find("BLOCK_SIZE_K retune for decode M"), std::string::npos) << alone;
}

TEST(RoundTrip, HandMadeOwnCardIsInvisibleButAnIndependentOneIsNot)
{
  const auto in = testing::canonical_input();
  const std::string report = render_playbook(in);
  auto own = testing::make_card("per-shape-hipblaslt-tune-gemm-gfx942-decode.md", "gemm", "gfx942", "decode",
                                "per-shape hipBLASLt tune", 3, "2026-01-10");
  own.sources_cited = {"run\\_gfx942\\_a"}; // as md_text may escape it
  own.generator = "rfdb";
  auto with_own = in;
  with_own.imported = {own};
  EXPECT_EQ(render_playbook(with_own), report);
  // The same card citing a run the store does not hold is independent evidence.
  own.sources_cited.push_back("run_elsewhere");
  with_own.imported = {own};
  EXPECT_NE(render_playbook(with_own), report);
}

} // namespace
} // namespace rfdb::report
