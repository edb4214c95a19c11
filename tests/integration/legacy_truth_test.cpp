// Imported knowledge held to the run rules (issue 27), checked record by
// record against tests/fixtures/legacy-samples/TRUTH.json: every learned
// card, kernel card, drained proposal and legacy playbook line of the public
// samples, classified by hand (measured positive, in noise, negative,
// method, seam fact, routing note, archived) with its own numbers, the
// numbers it borrows from another card, and its same-as group.
//
// The store holds the four dev runs and all of legacy-samples, as a user who
// imports the team's knowledge next to realistic runs would have it.
#include "support/helpers.hpp"
#include "support/report_parts.hpp"

#include "report/analysis.hpp"
#include "report/findings.hpp"
#include "report/lines.hpp"
#include "util/utf8.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using report::Analysis;

// Every number of a TRUTH value: a number, a [lo, hi] pair or {before, after}.
void numbers_of(const json& v, std::vector<double>& out)
{
  if (v.is_number()) {
    out.push_back(v.get<double>());
  } else if (v.is_array() || v.is_object()) {
    for (const auto& e : v) {
      numbers_of(e, out);
    }
  }
}

bool near_any(double x, const std::vector<double>& values, double tol)
{
  return std::any_of(values.begin(), values.end(), [&](double v) { return std::abs(v - x) <= tol; });
}

class LegacyTruth : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s_tmp = new TempDir();
    s_db = *s_tmp / "legacy.sqlite";
    std::vector<std::string> args{"--db", s_db.string(), "ingest", "-q"};
    for (const auto& e : fs::directory_iterator(fixtures_dir() / "dev-runs")) {
      if (e.is_directory()) {
        args.push_back(e.path().string());
      }
    }
    std::sort(args.begin() + 4, args.end());
    const fs::path samples = fixtures_dir() / "legacy-samples";
    args.push_back((samples / "learned").string());
    args.push_back((samples / "kernel_learned").string());
    args.push_back((samples / "backend_playbook.legacy.md").string());
    const auto r = run_cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    s_truth = new json(json::parse(read_bytes(samples / "TRUTH.json")));
    s_analysis = new Analysis(analysis_of(s_db));
  }
  static void TearDownTestSuite()
  {
    delete s_analysis;
    delete s_truth;
    delete s_tmp;
    s_tmp = nullptr;
  }

  // The stored identity of a TRUTH record ("" when the parser keeps none).
  static std::string identity_of(const json& record)
  {
    const std::string id = record["id"];
    if (id.starts_with("backend_playbook.legacy.md#")) {
      // "backend_playbook.legacy.md#DATE#KERNEL": the line whose bracket
      // starts with DATE (or "*" for a seed) and whose kernel field starts
      // with KERNEL.
      const auto second = id.find('#', 27);
      std::string date = id.substr(27, second - 27);
      const std::string kernel = id.substr(second + 1);
      date = date == "seed" ? "*" : date;
      return query_value(s_db, "SELECT identity FROM learned_findings WHERE identity LIKE "
                               "'backend_playbook.legacy.md#" +
                                   date + "|%' AND instr(identity, '|" + kernel + "') > 0 LIMIT 1");
    }
    if (id.find("_inbox/") != std::string::npos) {
      std::string base = id.substr(id.rfind('/') + 1);
      base.resize(base.size() - std::string(".drained").size());
      return base + "#/cards/0";
    }
    return id.substr(id.rfind('/') + 1);
  }
  static std::string column(const std::string& identity, const std::string& col)
  {
    std::string quoted;
    for (const char c : identity) {
      quoted += c == '\'' ? std::string("''") : std::string(1, c);
    }
    return query_value(s_db, "SELECT " + col +
                                 " FROM learned_findings WHERE superseded = 0 AND identity = '" + quoted +
                                 "'");
  }
  static const report::Finding* line_of(const std::string& identity)
  {
    for (const auto& f : s_analysis->findings) {
      if (std::count(f.imported_identities.begin(), f.imported_identities.end(), identity) > 0) {
        return &f;
      }
    }
    return nullptr;
  }
  static const report::MethodNote* note_of(const std::string& identity)
  {
    for (const auto& n : s_analysis->methods) {
      if (std::count(n.identities.begin(), n.identities.end(), identity) > 0) {
        return &n;
      }
    }
    return nullptr;
  }
  static bool in_cautions(const std::string& identity)
  {
    const std::string shown = report::short_identity(identity).substr(0, 50);
    return std::any_of(s_analysis->cautions.begin(), s_analysis->cautions.end(),
                       [&](const report::Caution& c) {
                         // An imported caution's short_name is the finding's identity.
                         return c.kind == report::CautionKind::imported_negative &&
                                c.short_name == identity && c.text.find(shown) != std::string::npos &&
                                c.lever_key.find("#dead-end:") == std::string::npos &&
                                c.lever_key.find("#effect-loss") == std::string::npos;
                       });
  }
  // The records' own numbers by metric: isolated (×) and e2e (%).
  static std::vector<double> own_numbers(const json& record, const std::string& metric)
  {
    std::vector<double> out;
    for (const auto& e : record["effects"]) {
      if (e["metric"] == metric) {
        numbers_of(e["value"], out);
      }
    }
    return out;
  }

  static TempDir* s_tmp;
  static fs::path s_db;
  static json* s_truth;
  static Analysis* s_analysis;
};

TempDir* LegacyTruth::s_tmp = nullptr;
fs::path LegacyTruth::s_db;
json* LegacyTruth::s_truth = nullptr;
Analysis* LegacyTruth::s_analysis = nullptr;

TEST_F(LegacyTruth, EveryRecordIsStoredWithItsClassification)
{
  int checked = 0;
  for (const auto& record : *s_truth) {
    const std::string identity = identity_of(record);
    if (identity.empty() && record.value("optional", false)) {
      continue; // the undated table row: not a "Learned" line
    }
    ASSERT_FALSE(identity.empty()) << record["id"];
    EXPECT_EQ(column(identity, "classification"), record["kind"].get<std::string>())
        << record["id"] << ": " << column(identity, "classification_reason");
    EXPECT_FALSE(column(identity, "classification_reason").empty()) << record["id"];
    ++checked;
  }
  EXPECT_EQ(checked, 36);
}

TEST_F(LegacyTruth, EveryRecordLandsInItsSection)
{
  for (const auto& record : *s_truth) {
    const std::string identity = identity_of(record);
    if (identity.empty()) {
      continue;
    }
    const std::string kind = record["kind"];
    const report::Finding* line = line_of(identity);
    const report::MethodNote* note = note_of(identity);
    const bool caution = in_cautions(identity);
    SCOPED_TRACE(record["id"].get<std::string>());
    if (kind == "positive_measured") {
      EXPECT_NE(line, nullptr);
      EXPECT_EQ(note, nullptr);
      EXPECT_FALSE(caution);
    } else if (kind == "in_noise" || kind == "negative") {
      EXPECT_EQ(line, nullptr);
      EXPECT_EQ(note, nullptr);
      EXPECT_TRUE(caution);
    } else if (kind == "archived") {
      EXPECT_EQ(line, nullptr);
      EXPECT_EQ(note, nullptr);
      EXPECT_FALSE(caution);
    } else {
      EXPECT_EQ(line, nullptr);
      ASSERT_NE(note, nullptr);
      EXPECT_EQ(domain::to_string(note->kind), kind);
      EXPECT_FALSE(caution);
    }
  }
}

// What works shows only measured positives, with numbers from their own
// sources: a line without runs shows only figures its records state, and no
// line shows a number the truth file lists as borrowed from another card.
TEST_F(LegacyTruth, WhatWorksLinesShowOwnNumbersOnly)
{
  std::map<std::string, const json*> by_identity;
  for (const auto& record : *s_truth) {
    if (const std::string identity = identity_of(record); !identity.empty()) {
      by_identity[identity] = &record;
    }
  }
  int imported_lines = 0;
  for (const auto& f : s_analysis->findings) {
    if (f.imported_identities.empty()) {
      continue;
    }
    ++imported_lines;
    SCOPED_TRACE(f.lever);
    std::vector<double> iso;
    std::vector<double> e2e;
    std::vector<double> borrowed;
    for (const auto& id : f.imported_identities) {
      ASSERT_EQ(by_identity.count(id), 1u) << id;
      const json& record = *by_identity[id];
      EXPECT_EQ(record["kind"], "positive_measured") << id;
      const auto i = own_numbers(record, "isolated_speedup");
      const auto e = own_numbers(record, "e2e_delta_pct");
      iso.insert(iso.end(), i.begin(), i.end());
      e2e.insert(e2e.end(), e.begin(), e.end());
      for (const auto& b : record["borrowed_numbers"]) {
        numbers_of(b["value"], borrowed);
      }
    }
    for (const auto& v : {f.iso_min, f.iso_max, f.e2e_min_pct, f.e2e_max_pct}) {
      if (v) {
        EXPECT_FALSE(near_any(*v, borrowed, 0.005)) << *v << " is another card's number";
      }
    }
    if (!f.run_ids.empty()) {
      continue; // run figures: the run lines' own tests
    }
    for (const auto& v : {f.iso_min, f.iso_max}) {
      if (v) {
        EXPECT_TRUE(near_any(*v, iso, 0.0051)) << "isolated " << *v;
      }
    }
    for (const auto& v : {f.e2e_min_pct, f.e2e_max_pct}) {
      if (v) {
        EXPECT_TRUE(near_any(*v, e2e, 0.0051)) << "e2e " << *v;
      }
    }
    EXPECT_TRUE(f.iso_min || f.e2e_min_pct) << "a measured positive shows a measured figure";
  }
  EXPECT_GE(imported_lines, 10);
}

// Same-as groups share one line; two measured positives of different groups
// never do.
TEST_F(LegacyTruth, SameAsGroupsMergeAndNothingElseDoes)
{
  std::map<std::string, std::string> identity_of_id;
  for (const auto& record : *s_truth) {
    identity_of_id[record["id"]] = identity_of(record);
  }
  for (const auto& record : *s_truth) {
    if (record["kind"] != "positive_measured" || identity_of(record).empty()) {
      continue;
    }
    const report::Finding* line = line_of(identity_of(record));
    ASSERT_NE(line, nullptr) << record["id"];
    std::set<std::string> group{identity_of(record)};
    for (const auto& s : record["same_as"]) {
      if (const auto it = identity_of_id.find(s["id"]); it != identity_of_id.end() && !it->second.empty()) {
        group.insert(it->second);
      }
    }
    for (const auto& other : *s_truth) {
      const std::string id = identity_of(other);
      if (other["kind"] != "positive_measured" || id.empty()) {
        continue;
      }
      const bool same = group.count(id) > 0 ||
                        std::any_of(other["same_as"].begin(), other["same_as"].end(), [&](const json& s) {
                          return identity_of_id[s["id"]] == identity_of(record);
                        });
      EXPECT_EQ(line_of(id) == line, same) << record["id"] << " vs " << other["id"];
    }
  }
}

// The int4 MoE card and its legacy playbook line restate the Kimi-K2.6 run
// rfdb stores: one line, that run's evidence, not a second source.
TEST_F(LegacyTruth, ACardRestatingAStoredRunIsThatRunsEvidence)
{
  const report::Finding* line = line_of("moe-int4-w4a16-tune-gfx942.md");
  ASSERT_NE(line, nullptr);
  const std::string kimi = "e2e_Kimi-K2.6_20260621_142207_774130_3902";
  EXPECT_EQ(line->restated_runs, std::vector<std::string>{kimi});
  EXPECT_EQ(line->run_ids, std::vector<std::string>{kimi});
  EXPECT_EQ(line->confirms, 1) << "the card's confirmations restate the run";
  EXPECT_EQ(line->stars, 3);
  EXPECT_EQ(line->tier_reason.find("capped"), std::string::npos);
  ASSERT_TRUE(line->e2e_min_pct && line->e2e_max_pct);
  EXPECT_NEAR(*line->e2e_min_pct, 16.049, 1e-3);
  EXPECT_NEAR(*line->e2e_max_pct, 16.049, 1e-3) << "the card's +16-18 % restates, it does not widen";
  // The bf16 card names another dtype and another model: a line of its own.
  const report::Finding* bf16 = line_of("moe-bf16-tune-gfx942.md");
  ASSERT_NE(bf16, nullptr);
  EXPECT_NE(bf16, line);
  ASSERT_TRUE(bf16->e2e_min_pct);
  EXPECT_NEAR(*bf16->e2e_min_pct, 7.01, 1e-9);
}

// A measured positive whose effect line leads with a loss keeps its line and
// gets a caution quoting the loss (the mxfp4 card's 8th confirmation).
TEST_F(LegacyTruth, APositiveWhoseEffectLeadsWithALossAlsoGetsACaution)
{
  const report::Finding* line = line_of("moe-mxfp4-grouped-authored-gfx950-vllm.md");
  ASSERT_NE(line, nullptr);
  ASSERT_TRUE(line->e2e_min_pct && line->e2e_max_pct);
  EXPECT_DOUBLE_EQ(*line->e2e_min_pct, 26.9);
  EXPECT_DOUBLE_EQ(*line->e2e_max_pct, 92.5);
  const auto& cautions = s_analysis->cautions;
  const auto it = std::find_if(cautions.begin(), cautions.end(), [](const report::Caution& c) {
    return c.lever_key.find("#effect-loss") != std::string::npos;
  });
  ASSERT_NE(it, cautions.end());
  EXPECT_NE(it->text.find("moe-mxfp4-grouped-authored-gfx950-vllm.md"), std::string::npos) << it->text;
  EXPECT_NE(it->text.find("CLOSES THE GEMM LANE"), std::string::npos) << it->text;
}

TEST_F(LegacyTruth, TitlesAreWhole)
{
  for (const auto& n : s_analysis->methods) {
    EXPECT_LE(util::utf8_length(n.title), 160u) << n.title;
    EXPECT_EQ(std::count(n.title.begin(), n.title.end(), '('),
              std::count(n.title.begin(), n.title.end(), ')'))
        << n.title;
    EXPECT_EQ(std::count(n.title.begin(), n.title.end(), '`') % 2, 0) << n.title;
  }
  const report::MethodNote* paged = note_of("paged-attn-nonpow2-gfx942.md");
  ASSERT_NE(paged, nullptr);
  EXPECT_EQ(paged->title,
            "vLLM paged attention with a non-pow2 KV block \u2192 the live path is the editable "
            "in-tree Triton kernel");
}

} // namespace
} // namespace rfdb::test
