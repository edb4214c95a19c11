// Tests for the legacy-knowledge parsers (src/ingest/knowledge*.cpp) against
// the project's own fixtures in tests/fixtures/knowledge/.
#include "ingest/knowledge/knowledge.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#ifndef RFDB_FIXTURES_DIR
#define RFDB_FIXTURES_DIR "tests/fixtures"
#endif

namespace rfdb::ingest::knowledge {
namespace {

const std::string k_dir = std::string(RFDB_FIXTURES_DIR) + "/knowledge/";

std::string read_fixture(const std::string& relative)
{
  std::ifstream in(k_dir + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << relative;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Finding card(const std::string& name, std::vector<Warning>& warnings)
{
  auto r = parse_card("learned/" + name, read_fixture("learned/" + name), warnings);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().describe());
  return r ? *r : Finding{};
}

bool any_warning_contains(const std::vector<Warning>& warnings, const std::string& text)
{
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const Warning& w) { return w.describe().find(text) != std::string::npos; });
}

TEST(KnowledgeCard, LegacyHeaderDerivesKeyFromMiddleDots)
{
  std::vector<Warning> w;
  const Finding f = card("legacy-gemm-tune-gfx942.md", w);
  EXPECT_EQ(f.origin, "card");
  EXPECT_EQ(f.identity, "legacy-gemm-tune-gfx942.md");
  EXPECT_EQ(f.name, "legacy-gemm-tune-gfx942"); // no `name`: the file stem
  EXPECT_EQ(f.key_raw, "dense bf16 GEMM · gfx942 · sglang");
  EXPECT_EQ(f.kernel_class_raw, "dense bf16 GEMM");
  EXPECT_EQ(f.op_class, "gemm");
  EXPECT_EQ(f.gfx, "gfx942");
  EXPECT_EQ(f.regime_raw, "sglang");
  EXPECT_EQ(f.regime, "unknown");
  EXPECT_EQ(f.type, "lever");
  EXPECT_EQ(f.stars, 3);
  EXPECT_EQ(f.confirms, 3);
  EXPECT_FALSE(f.attempts.has_value()); // absent stays absent
  EXPECT_EQ(f.last_seen, "2026-02-11");
  EXPECT_EQ(f.lifecycle, "active");
  EXPECT_DOUBLE_EQ(*f.e2e_min_pct, 1.85);
  EXPECT_DOUBLE_EQ(*f.e2e_max_pct, 1.85);
  EXPECT_FALSE(f.iso_min.has_value());
  // Indented lines continue the bullet; the dead-end bullet is kept as an
  // imported negative, behind its prefix.
  EXPECT_EQ(f.lever, "the serving stack dispatches its bf16 projections through a per-shape "
                     "table; regenerate the table on the captured decode shapes instead of "
                     "writing a kernel.");
  EXPECT_EQ(f.verify, "count table hits in the server log (more than zero = engaged).");
  EXPECT_EQ(f.cautions, std::vector<std::string>{"dead-end: the framework-level tuning hook is bypassed by "
                                                 "this dispatcher, so it never engages."});
  ASSERT_EQ(f.sources_cited.size(), 1U);
  EXPECT_EQ(f.sources_cited[0], "fixture run alpha, 2026-02-11 (paired A/B)");
  EXPECT_EQ(f.text.substr(0, 10), "# Fixture:");
  EXPECT_TRUE(w.empty());
}

TEST(KnowledgeCard, FullHeaderSkipsCommentLinesAndReadsCounters)
{
  std::vector<Warning> w;
  const Finding f = card("full-header-quant-cast-gfx950.md", w);
  EXPECT_EQ(f.name, "full-header-quant-cast-gfx950");
  EXPECT_EQ(f.kernel_class_raw, "quantize / cast");
  EXPECT_EQ(f.op_class, "elementwise");
  EXPECT_EQ(f.gfx, "gfx950");
  EXPECT_EQ(f.regime, "prefill");
  EXPECT_EQ(f.stars, 2);
  EXPECT_EQ(f.confirms_cited, 2);
  EXPECT_EQ(f.confirms_blind, 1);
  EXPECT_EQ(f.losses, 0);
  EXPECT_EQ(f.attempts, 3);
  EXPECT_FALSE(f.confirms.has_value());
  EXPECT_DOUBLE_EQ(*f.iso_min, 1.08);
  EXPECT_DOUBLE_EQ(*f.iso_max, 1.22);
  EXPECT_FALSE(f.e2e_min_pct.has_value());
  const auto fields = nlohmann::ordered_json::parse(f.fields);
  EXPECT_EQ(fields.size(), 17U); // the two `# ---` lines are not keys
  EXPECT_EQ(fields.begin().key(), "name");
  // Split on the FIRST colon only: the value keeps its own ": ".
  EXPECT_EQ(fields["description"], "Fixture: fold the fp8 activation cast into the producer "
                                   "kernel's epilogue: two launches become one");
  EXPECT_EQ(fields["keywords"], "[fp8, cast, epilogue-fusion, gfx950]"); // as read
}

TEST(KnowledgeCard, HybridOrderWithPythonListsMatchesFullHeader)
{
  std::vector<Warning> w;
  const Finding f = card("hybrid-split-kv-decode-gfx1100.md", w);
  EXPECT_EQ(f.name, "Fixture split-KV count for decode attention (hybrid order)");
  EXPECT_EQ(f.kernel_class_raw, "attention-decode");
  EXPECT_EQ(f.op_class, "attn");
  EXPECT_EQ(f.gfx, "gfx1100"); // from the platforms item 'RX7900/gfx1100'
  EXPECT_EQ(f.regime_raw, "decode, page_size=16, conc=32");
  EXPECT_EQ(f.regime, "decode");
  EXPECT_EQ(f.last_seen, "2026-03-15");
  ASSERT_EQ(f.sources_cited.size(), 1U);
  EXPECT_EQ(f.sources_cited[0], "(launcher) fixture run delta, 2026-03-15");
}

TEST(KnowledgeCard, BothListSyntaxesGiveTheSameItems)
{
  const std::vector<std::string> expected = {"gfx950", "ROCm 7.2", "a, b"};
  EXPECT_EQ(parse_list_value("['gfx950', 'ROCm 7.2', 'a, b']"), expected);
  EXPECT_EQ(parse_list_value("[\"gfx950\", \"ROCm 7.2\", \"a, b\"]"), expected);
  EXPECT_EQ(parse_list_value("[gfx950, ROCm 7.2]"), (std::vector<std::string>{"gfx950", "ROCm 7.2"}));
  EXPECT_TRUE(parse_list_value("[]").empty());
  EXPECT_EQ(parse_list_value("gfx942"), std::vector<std::string>{"gfx942"});
}

TEST(KnowledgeCard, CountersAreCoercedToZeroWithAWarning)
{
  std::vector<Warning> w;
  const Finding f = card("hybrid-split-kv-decode-gfx1100.md", w);
  EXPECT_EQ(f.attempts, 0); // "two" → 0, as kb.py does
  EXPECT_EQ(f.losses, 1);
  EXPECT_EQ(f.confirms_cited, 1);
  EXPECT_EQ(f.confirms_blind, 0);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].severity, Severity::warning);
  EXPECT_EQ(w[0].line, 9);
  EXPECT_EQ(w[0].describe(),
            "learned/hybrid-split-kv-decode-gfx1100.md:9: attempts 'two' is not an integer; read as 0");
}

TEST(KnowledgeCard, StarTiersCountU2605)
{
  EXPECT_EQ(parse_stars("★"), 1);
  EXPECT_EQ(parse_stars("★★"), 2);
  EXPECT_EQ(parse_stars("★★★"), 3);
  EXPECT_EQ(parse_stars("★★★★"), 3);
  EXPECT_EQ(parse_stars("high"), std::nullopt);
  EXPECT_EQ(parse_stars("☆☆"), std::nullopt); // white stars are not tiers
  std::vector<Warning> w;
  EXPECT_EQ(card("multiline-moe-fp8-gfx90a.md", w).stars, 1);
  const auto no_stars = parse_card("x.md", "---\nkey: a · gfx942 · decode\nconfidence: high\n---\n", w);
  ASSERT_TRUE(no_stars.has_value());
  EXPECT_FALSE(no_stars->stars.has_value());
  EXPECT_TRUE(any_warning_contains(w, "x.md:3: confidence 'high' holds no"));
}

TEST(KnowledgeCard, VeryLongSingleLineValueIsKeptWhole)
{
  std::vector<Warning> w;
  const Finding f = card("hybrid-split-kv-decode-gfx1100.md", w);
  EXPECT_GT(f.effect.size(), 3000U);
  EXPECT_EQ(f.effect.substr(0, 35), "iso 1.12× on the decode bucket and");
  EXPECT_EQ(f.effect.substr(f.effect.size() - 13), "END-OF-EFFECT");
  // The headline figure (the first one the effect states) is what it read.
  ASSERT_TRUE(f.iso_min.has_value());
  EXPECT_DOUBLE_EQ(*f.iso_min, 1.12);
  EXPECT_EQ(f.classification, "positive_measured");
}

TEST(KnowledgeCard, MultiLineValueIsFoldedIntoOne)
{
  std::vector<Warning> w;
  const Finding f = card("multiline-moe-fp8-gfx90a.md", w);
  EXPECT_EQ(f.effect, "1.047x isolated on the small-token buckets, measured over three passes; "
                      "end to end −0.064 % e2e (inside the noise band, so not banked).");
  EXPECT_DOUBLE_EQ(*f.iso_min, 1.047);
  EXPECT_DOUBLE_EQ(*f.e2e_min_pct, -0.064);
  EXPECT_DOUBLE_EQ(*f.e2e_max_pct, -0.064);
  EXPECT_EQ(f.kernel_class_raw, "moe-grouped-gemm-fp8");
  EXPECT_EQ(f.op_class, "moe");
  EXPECT_EQ(f.gfx, "gfx90a");
  EXPECT_EQ(f.regime, "decode");
  EXPECT_EQ(f.type, "routing");
  EXPECT_EQ(f.confirms, 1);
}

TEST(KnowledgeCard, RepeatableSourceAndColumnZeroContinuation)
{
  std::vector<Warning> w;
  const Finding f = card("full-header-quant-cast-gfx950.md", w);
  ASSERT_EQ(f.sources_cited.size(), 2U);
  EXPECT_EQ(f.sources_cited[0], "fixture run beta, 2026-02-20");
  EXPECT_EQ(f.sources_cited[1], "fixture run gamma, 2026-03-02 (blind reproduction)");
  ASSERT_EQ(f.cautions.size(), 1U);
  EXPECT_EQ(f.cautions[0], "also verify the scale tensor layout: a per-token scale needs the row "
                           "index in the epilogue.\na second record: the fallback path must keep "
                           "the old scale layout.");
  const Finding m = card("method-ab-pinning.md", w);
  ASSERT_EQ(m.cautions.size(), 2U); // interleaved with a source bullet
  EXPECT_EQ(m.cautions[1], "also verify both legs use the same server flags.");
  EXPECT_EQ(m.op_class, "method");
  EXPECT_EQ(m.regime, "both"); // key regime "any"
  EXPECT_EQ(m.gfx, "");        // "any gfx" names none
  EXPECT_EQ(m.confirms, 5);    // confirms before effect in the header
}

TEST(KnowledgeCard, ArchivedLifecycle)
{
  std::vector<Warning> w;
  const Finding f = card("archived-topk-routing-gfx942.md", w);
  EXPECT_EQ(f.lifecycle, "archived");
  EXPECT_EQ(f.op_class, "elementwise");
  EXPECT_EQ(f.regime_raw, "n/a");
  EXPECT_EQ(f.regime, "unknown");
  EXPECT_DOUBLE_EQ(*f.iso_min, 0.851);
  EXPECT_DOUBLE_EQ(*f.iso_max, 0.851);
  EXPECT_EQ(f.last_seen, "2025-12-01");
}

TEST(KnowledgeCard, StatusFieldIsNotALifecycle)
{
  std::vector<Warning> w;
  const auto r = parse_card("s.md", "---\nkey: a · gfx942 · decode\nstatus: DEPRECATED-HERE\n---\n", w);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->lifecycle, "active");
  EXPECT_TRUE(any_warning_contains(w, "s.md:3: status 'DEPRECATED-HERE' is not a lifecycle"));
}

TEST(KnowledgeCard, BrokenLineErrorNamesFileAndLine)
{
  std::vector<Warning> w;
  const auto r = parse_card("learned/broken-no-colon.md", read_fixture("learned/broken-no-colon.md"), w);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(r.error().describe(), "learned/broken-no-colon.md:4: front-matter line has no 'key:' "
                                  "(this line has no colon and breaks the card)");
}

TEST(KnowledgeCard, UnreadableCardsAreErrorsWithLines)
{
  std::vector<Warning> w;
  const auto none = parse_card("a.md", "\n# Title\n- source: x\n", w);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().describe(), "a.md:2: no front matter: the card must start with a '---' line");
  const auto unclosed = parse_card("b.md", "---\nkey: x\n", w);
  ASSERT_FALSE(unclosed.has_value());
  EXPECT_EQ(unclosed.error().context, std::vector<std::string>{"b.md:1"});
  const auto bad_bytes = parse_card("c.md", "---\nkey: x\neffect: \xff\xfe\n---\n", w);
  ASSERT_FALSE(bad_bytes.has_value());
  EXPECT_EQ(bad_bytes.error().context, std::vector<std::string>{"c.md:3"});
  // README's fenced template is not the card's front matter.
  const auto readme = parse_card("README.md", read_fixture("learned/README.md"), w);
  ASSERT_FALSE(readme.has_value());
  EXPECT_EQ(readme.error().context, std::vector<std::string>{"README.md:1"});
}

TEST(KnowledgeCard, BomBlankLinesAndBodyRulesAreTolerated)
{
  std::vector<Warning> w;
  const auto r = parse_card("d.md",
                            "\xEF\xBB\xBF\n\n---\r\nkey: x · gfx942 · prefill\r\nconfidence: ★★\r\n"
                            "---\r\nbody\n---\nmore: text\n---\n- source: s\n",
                            w);
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  EXPECT_EQ(r->regime, "prefill");
  EXPECT_EQ(r->stars, 2);
  EXPECT_EQ(nlohmann::json::parse(r->fields).size(), 2U); // body `---` lines ignored
  EXPECT_EQ(r->sources_cited, std::vector<std::string>{"s"});
}

TEST(KnowledgePlaybook, SeedAndDatedLinesWhileTheCommentTemplateIsIgnored)
{
  std::vector<Warning> w;
  const auto r =
      parse_legacy_playbook("knowledge/backend_playbook.md", read_fixture("backend_playbook.md"), w);
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  ASSERT_EQ(r->size(), 4U); // 3 dated + 1 seed; template and 4-field line not entries
  const Finding& moe = (*r)[0];
  EXPECT_EQ(moe.origin, "playbook");
  EXPECT_EQ(moe.last_seen, "2026-03-10");
  EXPECT_EQ(moe.model, "acme-Tiny-MoE-16B");
  EXPECT_EQ(moe.model_class, "moe");
  EXPECT_EQ(moe.gfx, "gfx942");
  EXPECT_EQ(moe.kernel_class_raw, "fused-MoE grouped GEMM (E=64, N=512; int8 weights)");
  EXPECT_EQ(moe.op_class, "moe");
  EXPECT_EQ(moe.regime, "decode");
  EXPECT_EQ(moe.stars, 2);
  EXPECT_EQ(moe.type, "routing");
  EXPECT_EQ(moe.name, "ROUTING: tune the per-shape fused-MoE config table before authoring.");
  EXPECT_DOUBLE_EQ(*moe.iso_min, 1.42);
  EXPECT_DOUBLE_EQ(*moe.e2e_min_pct, 6.30);
  const Finding& method = (*r)[1];
  EXPECT_EQ(method.op_class, "method");
  EXPECT_EQ(method.regime, "both");
  EXPECT_EQ(method.type, "method");
  const Finding& gemm = (*r)[2];
  EXPECT_EQ(gemm.regime, "both"); // prefill+decode
  EXPECT_EQ(gemm.op_class, "gemm");
  EXPECT_DOUBLE_EQ(*gemm.e2e_max_pct, 1.85);
  EXPECT_EQ(gemm.text.substr(gemm.text.size() - 37), "tok/s) continued on an indented line.");
  const Finding& seed = (*r)[3];
  EXPECT_EQ(seed.stars, 1);
  EXPECT_EQ(seed.model, "");
  EXPECT_EQ(seed.model_class, "dense");
  EXPECT_EQ(seed.last_seen, "");
  EXPECT_EQ(seed.op_class, "gemm");
  EXPECT_EQ(seed.identity, "backend_playbook.md#*||dense|gfx942|dense_gemm|any|Start from the "
                           "tuned library table; author a kernel only if");
  EXPECT_EQ(nlohmann::json::parse(seed.fields)["seed"], true);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].line, 25);
  EXPECT_EQ(w[0].message, "entry has 4 ' | ' fields, expected 6; skipped");
}

TEST(KnowledgePlaybook, IdentitySurvivesReorderingAndRepeatsAreSkipped)
{
  const std::string a = "- [2026-01-02 | m | dense | gfx942 | dense GEMM | decode] first text\n";
  const std::string b = "- [2026-01-01 | m | dense | gfx942 | dense GEMM | decode] second text\n";
  std::vector<Warning> w;
  const auto ab = parse_legacy_playbook("p.md", a + "\n" + b, w);
  const auto ba = parse_legacy_playbook("p.md", "intro\n" + b + a, w);
  ASSERT_TRUE(ab && ba);
  ASSERT_EQ(ab->size(), 2U);
  EXPECT_EQ((*ab)[0].identity, (*ba)[1].identity);
  EXPECT_EQ((*ab)[1].identity, (*ba)[0].identity);
  EXPECT_TRUE(w.empty());
  const auto twice = parse_legacy_playbook("p.md", a + a, w);
  ASSERT_TRUE(twice.has_value());
  EXPECT_EQ(twice->size(), 1U);
  EXPECT_TRUE(any_warning_contains(w, "p.md:2: entry repeats an earlier one"));
}

TEST(KnowledgeProposal, DrainedProposalWithoutTrailingNewline)
{
  const std::string content = read_fixture("learned/_inbox/e2e-fixture-splitkv-20260301.json.drained");
  ASSERT_NE(content.back(), '\n');
  std::vector<Warning> w;
  const auto r = parse_proposal("learned/_inbox/e2e-fixture-splitkv-20260301.json.drained", content, w);
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  ASSERT_EQ(r->size(), 1U); // cards[1] is not an object
  const Finding& f = (*r)[0];
  EXPECT_EQ(f.origin, "proposal");
  EXPECT_EQ(f.identity, "e2e-fixture-splitkv-20260301.json#/cards/0"); // .drained dropped
  EXPECT_EQ(f.name, "fixture-splitkv-window-cap-attention-decode-gfx1100-decode");
  EXPECT_EQ(f.op_class, "attn");
  EXPECT_EQ(f.gfx, "gfx1100");
  EXPECT_EQ(f.regime, "decode");
  EXPECT_EQ(f.stars, 2);
  EXPECT_EQ(f.attempts, 2); // "2" coerced
  EXPECT_EQ(f.lifecycle, "active");
  EXPECT_EQ(f.last_seen, "2026-03-01");
  EXPECT_DOUBLE_EQ(*f.e2e_min_pct, 3.10);
  EXPECT_EQ(f.cautions.size(), 2U);
  EXPECT_EQ(f.sources_cited, std::vector<std::string>{"run e2e_fixture_splitkv_20260301, 2026-03-01"});
  EXPECT_NE(f.text.find("- pitfall: first record\nsecond record"), std::string::npos);
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].message, "/cards/1 is not an object; skipped");
}

TEST(KnowledgeProposal, NotAcceptedIsStoredArchivedWithANote)
{
  std::vector<Warning> w;
  const auto r = parse_proposal("_inbox/e2e-fixture-pending-20260305.json",
                                read_fixture("learned/_inbox/e2e-fixture-pending-20260305.json"), w);
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  ASSERT_EQ(r->size(), 1U);
  EXPECT_EQ((*r)[0].lifecycle, "archived");
  EXPECT_EQ((*r)[0].last_seen, "2026-03-05"); // from the proposal's date
  EXPECT_EQ((*r)[0].identity, "e2e-fixture-pending-20260305.json#/cards/0");
  ASSERT_EQ(w.size(), 1U);
  EXPECT_EQ(w[0].severity, Severity::note);
  EXPECT_NE(w[0].message.find("validation_status is 'pending'"), std::string::npos);
}

// Fuzzing (tools/fuzz, fuzz_proposal): a counter beyond an int was cast from a double (undefined
// behaviour for 1e300) or wrapped (5000000000 read as 705032704). Like a counter string of more
// than nine digits, it now reads as 0 with a warning; up to ±999,999,999 is kept.
TEST(KnowledgeProposal, CounterBeyondAnIntIsReadAsZeroWithAWarning)
{
  std::vector<Warning> w;
  const auto r = parse_proposal("_inbox/e2e-fuzz-20260101.json",
                                R"({"run_id": "e2e_fuzz", "validation_status": "accepted", "cards": [
                                  {"name": "n", "confirms": 1e300, "losses": 5000000000,
                                   "confirms_cited": -1e10, "confirms_blind": -2.0, "attempts": 999999999}]})",
                                w);
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  ASSERT_EQ(r->size(), 1U);
  const Finding& f = (*r)[0];
  EXPECT_EQ(f.confirms, 0);
  EXPECT_EQ(f.losses, 0);
  EXPECT_EQ(f.confirms_cited, 0);
  EXPECT_EQ(f.confirms_blind, -2);
  EXPECT_EQ(f.attempts, 999999999);
  EXPECT_TRUE(any_warning_contains(w, "/cards/0/confirms '1e+300' is not an integer; read as 0"));
  EXPECT_TRUE(any_warning_contains(w, "/cards/0/losses '5000000000' is not an integer; read as 0"));
  EXPECT_TRUE(any_warning_contains(w, "/cards/0/confirms_cited '-10000000000.0' is not an integer"));
}

// Found while fuzzing (tools/fuzz, fuzz_proposal reads what parse_proposal does): proposals were
// parsed by nlohmann without the depth cap of the eval-dir reader, and a card nested a million
// levels deep overflowed the stack when dumped (rfdb ingest died of SIGSEGV). Now refused.
TEST(KnowledgeProposal, NestingDeeperThanTheJsonCapIsAnError)
{
  const std::size_t depth = 1'000'000;
  const std::string content = R"({"run_id": "e2e_deep", "cards": [{"name": "n", "x": )" +
                              std::string(depth, '[') + std::string(depth, ']') + "}]}";
  std::vector<Warning> w;
  const auto r = parse_proposal("_inbox/e2e-deep.json", content, w);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(r.error().context, std::vector<std::string>{"_inbox/e2e-deep.json"});
  EXPECT_NE(r.error().message.find("nesting deeper than 128"), std::string::npos) << r.error().message;
}

// Found by fuzz_proposal (tools/fuzz, crash-d543aac6…): a number beyond a double made nlohmann
// throw out_of_range, which parse_proposal did not catch (std::terminate: ingest aborted).
TEST(KnowledgeProposal, NumberBeyondADoubleIsAnErrorNotACrash)
{
  std::vector<Warning> w;
  const auto r =
      parse_proposal("_inbox/e2e-big.json", R"({"run_id": "e2e_big", "date": 1e3086, "cards": []})", w);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(r.error().context, std::vector<std::string>{"_inbox/e2e-big.json"});
  EXPECT_NE(r.error().message.find("non-finite number"), std::string::npos) << r.error().message;
}

TEST(KnowledgeProposal, InvalidJsonNamesThePointerAndTheLine)
{
  std::vector<Warning> w;
  const auto bad = parse_proposal("p.json", "{\n  \"cards\": [\n    {\"a\": 1,,}\n]}", w);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().context, std::vector<std::string>{"p.json"});
  EXPECT_EQ(bad.error().message.substr(0, 34), "/cards/0: line 3:13: invalid JSON:");
  const auto no_cards = parse_proposal("q.json", "{\"run_id\": \"x\"}", w);
  ASSERT_FALSE(no_cards.has_value());
  EXPECT_EQ(no_cards.error().code, ErrorCode::invalid_input);
}

TEST(KnowledgeIndex, CrossCheckWarnsAboutUnlistedCardsAndDanglingLines)
{
  const std::vector<std::string> cards = {
      "learned/legacy-gemm-tune-gfx942.md",        "learned/full-header-quant-cast-gfx950.md",
      "learned/hybrid-split-kv-decode-gfx1100.md", "learned/multiline-moe-fp8-gfx90a.md",
      "learned/archived-topk-routing-gfx942.md",   "learned/method-ab-pinning.md"};
  const IndexCheck c = cross_check_index("learned/INDEX.md", read_fixture("learned/INDEX.md"), cards);
  EXPECT_EQ(c.listed,
            (std::vector<std::string>{"archived-topk-routing-gfx942.md", "full-header-quant-cast-gfx950.md",
                                      "legacy-gemm-tune-gfx942.md", "method-ab-pinning.md"}));
  EXPECT_EQ(c.unlisted,
            (std::vector<std::string>{"hybrid-split-kv-decode-gfx1100.md", "multiline-moe-fp8-gfx90a.md"}));
  ASSERT_EQ(c.dangling.size(), 1U); // README.md and guides/fp8_tuning.md are not cards
  EXPECT_EQ(c.dangling[0].line, 8);
  EXPECT_EQ(c.dangling[0].card, "ghost-card-gfx942.md");
  EXPECT_EQ(c.bullets_without_card, std::vector<int>{13});
  EXPECT_EQ(c.warnings.size(), 4U);
  EXPECT_TRUE(
      any_warning_contains(c.warnings, "learned/INDEX.md: does not list card multiline-moe-fp8-gfx90a.md"));
  EXPECT_TRUE(any_warning_contains(c.warnings, "learned/INDEX.md:8: names ghost-card-gfx942.md"));
}

TEST(KnowledgeIndex, GeneratedEntriesNameCardsBySlug)
{
  const std::string generated = "<!-- CARDS:BEGIN -->\n## dense gemm · gfx942 · decode\n"
                                "- ★★ a-card — +1.0% e2e [cited 1 / blind 0 / lost 0 / attempts 1]\n"
                                "- ★ gone-card — 1.1x [cited 0 / blind 0 / lost 0 / attempts 1]\n"
                                "<!-- CARDS:END -->\n";
  const IndexCheck c = cross_check_index("INDEX.md", generated, {"a-card.md"});
  EXPECT_EQ(c.listed, std::vector<std::string>{"a-card.md"});
  ASSERT_EQ(c.dangling.size(), 1U);
  EXPECT_EQ(c.dangling[0].card, "gone-card.md");
  EXPECT_EQ(c.dangling[0].line, 4);
}

TEST(KnowledgeClassify, FileKindsFromRelativeNames)
{
  EXPECT_EQ(classify_knowledge_file("aiter-bf16-tuned-gemm-gfx942.md"), "card");
  EXPECT_EQ(classify_knowledge_file("learned/32x32-remap-gfx950.md"), "card");
  EXPECT_EQ(classify_knowledge_file("INDEX.md"), "index");
  EXPECT_EQ(classify_knowledge_file("README.md"), "readme");
  EXPECT_EQ(classify_knowledge_file("_archive.md"), "archive");
  EXPECT_EQ(classify_knowledge_file("_inbox/run-1.json"), "proposal");
  EXPECT_EQ(classify_knowledge_file("learned/_inbox/run-1.json.drained"), "proposal");
  EXPECT_EQ(classify_knowledge_file("_inbox/notes.md"), "other");
  EXPECT_EQ(classify_knowledge_file("backend_playbook.md"), "playbook");
  EXPECT_EQ(classify_knowledge_file("backend_playbook.legacy.md"), "playbook");
  EXPECT_EQ(classify_knowledge_file("run-1.json"), "other");
  EXPECT_EQ(classify_knowledge_file(".hidden.md"), "other");
  EXPECT_EQ(classify_knowledge_file("_template.md"), "other");
}

TEST(KnowledgeNormalize, KernelClassSpellings)
{
  for (const char* s : {"dense GEMM", "dense_gemm", "dense bf16 GEMM", "quantized gemm", "mxfp8 linear",
                        "fp8 a8w8 blockscale dense GEMM (up/gate N=34816, K=5120)"}) {
    EXPECT_EQ(normalize_kernel_class(s), "gemm") << s;
  }
  for (const char* s : {"moe_grouped_gemm", "MoE grouped GEMM", "moe-grouped-gemm-mxfp4",
                        "int4_w4a16 fused-MoE GEMM (E=384, N=256)"}) {
    EXPECT_EQ(normalize_kernel_class(s), "moe") << s;
  }
  for (const char* s : {"attention_decode", "attention-decode", "full attention (prefill)", "paged attention",
                        "linear attention", "MLA decode (asm stage1)", "gated-delta linear-attn (FLA)"}) {
    EXPECT_EQ(normalize_kernel_class(s), "attn") << s;
  }
  for (const char* s : {"elementwise_overhead", "reduction / norm", "quantize / cast", "fp8 quant",
                        "topk / routing", "memory movement", "memory_movement"}) {
    EXPECT_EQ(normalize_kernel_class(s), "elementwise") << s;
  }
  for (const char* s : {"method", "sglang e2e A/B harness", "engagement verification",
                        "Amdahl budgeting for the editable-Triton cluster (gated-delta/FLA/mamba)"}) {
    EXPECT_EQ(normalize_kernel_class(s), "method") << s;
  }
  EXPECT_EQ(normalize_kernel_class(""), "unknown");
  EXPECT_EQ(normalize_kernel_class("sampler"), "unknown");
}

TEST(KnowledgeNormalize, RegimeVocabulary)
{
  EXPECT_EQ(domain::normalize_regime("decode"), "decode");
  EXPECT_EQ(domain::normalize_regime("decode-dominated serving isl/osl/conc=8192/1024/64"), "decode");
  EXPECT_EQ(domain::normalize_regime("varlen prefill-dominated"), "prefill");
  EXPECT_EQ(domain::normalize_regime("prefill+decode"), "both");
  EXPECT_EQ(domain::normalize_regime("varlen prefill+decode"), "both");
  EXPECT_EQ(domain::normalize_regime("mixed"), "both");
  EXPECT_EQ(domain::normalize_regime("both"), "both");
  EXPECT_EQ(domain::normalize_regime("any"), "both");
  EXPECT_EQ(domain::normalize_regime("n/a"), "unknown");
  EXPECT_EQ(domain::normalize_regime("launch-bound"), "unknown");
  EXPECT_EQ(domain::normalize_regime("small-batch"), "unknown");
  EXPECT_EQ(domain::normalize_regime(""), "unknown");
}

TEST(KnowledgeNormalize, GfxByPattern)
{
  EXPECT_EQ(extract_gfx("gfx950/MI355X"), "gfx950");
  EXPECT_EQ(extract_gfx("RDNA (GFX1151, iGPU)"), "gfx1151");
  EXPECT_EQ(extract_gfx("MI250 gfx90a"), "gfx90a");
  EXPECT_EQ(extract_gfx("any gfx"), "");
  EXPECT_EQ(extract_all_gfx("gfx942+gfx950, gfx942"), (std::vector<std::string>{"gfx942", "gfx950"}));
  std::vector<Warning> w;
  const auto r = parse_card("m.md", "---\nkey: MoE GEMM · gfx942+gfx950 · decode\n---\n", w);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->gfx, "gfx942");
  EXPECT_TRUE(any_warning_contains(w, "m.md:2: names 2 gfx targets (gfx942, gfx950); keeping gfx942"));
}

TEST(KnowledgeEffect, UnambiguousNumbersOnly)
{
  auto n = extract_effect_numbers("iso 1.08–1.22× over five shapes");
  EXPECT_DOUBLE_EQ(*n.iso_min, 1.08);
  EXPECT_DOUBLE_EQ(*n.iso_max, 1.22);
  n = extract_effect_numbers("+10.40%..+11.45% per round");
  EXPECT_DOUBLE_EQ(*n.e2e_min_pct, 10.40);
  EXPECT_DOUBLE_EQ(*n.e2e_max_pct, 11.45);
  n = extract_effect_numbers("+2.23% e2e VERIFIED (1548.9→1583.5 tok/s); ~+6% cumulative");
  EXPECT_DOUBLE_EQ(*n.e2e_min_pct, 2.23); // the headline is the tagged figure
  n = extract_effect_numbers("1.4655x geomean; per-case 1.30x / 1.55x");
  EXPECT_DOUBLE_EQ(*n.iso_min, 1.4655); // aggregate headline over per-case figures
  // Ambiguous or projected: kept raw.
  n = extract_effect_numbers("+0.4% alone, then +1.8% e2e in a bundle");
  EXPECT_FALSE(n.e2e_min_pct.has_value());
  n = extract_effect_numbers("iso 1.10x and 1.92x on two levers");
  EXPECT_FALSE(n.iso_min.has_value());
  n = extract_effect_numbers("isolated 1.6x → Amdahl ceiling only +4.9% e2e");
  EXPECT_DOUBLE_EQ(*n.iso_min, 1.6);
  EXPECT_FALSE(n.e2e_min_pct.has_value());
  n = extract_effect_numbers("+14.15% e2e (133.82 -> 152.76 tok/s, 1.1415x), 32x32 tiles, 8x MI300X");
  EXPECT_FALSE(n.iso_min.has_value()); // a throughput ratio and dimensions are not iso
  EXPECT_DOUBLE_EQ(*n.e2e_min_pct, 14.15);
}

// last_seen goes through util::parse_iso_date: a day the month lacks is no date.
TEST(KnowledgeCard, LastSeenRejectsADayTheMonthLacks)
{
  const std::string head =
      "---\nkey: dense bf16 GEMM \xC2\xB7 gfx942 \xC2\xB7 sglang\ntype: lever\nlast_seen: ";
  const std::string tail = "\n---\n# Title\n- lever: retune the table\n";
  std::vector<Warning> w;
  auto ok = parse_card("learned/dated.md", head + "2024-02-29 (leap day)" + tail, w);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->last_seen, "2024-02-29");
  auto bad = parse_card("learned/dated.md", head + "2026-02-31" + tail, w);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->last_seen, "");
  EXPECT_TRUE(std::any_of(w.begin(), w.end(), [](const Warning& x) {
    return x.describe().find("2026-02-31") != std::string::npos;
  }));
}

} // namespace
} // namespace rfdb::ingest::knowledge
