// Imported knowledge written to be misread (tests/fixtures/knowledge/adversarial,
// README there): every card, proposal and playbook line gets the kind a
// careful reader would give it, with the figures it states as its own. Each
// case was a misclassification before the classifier learned it.
#include "support/helpers.hpp"

#include <gtest/gtest.h>

#include <map>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;

class AdversarialKnowledge : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s_tmp = new TempDir();
    s_db = *s_tmp / "adversarial.sqlite";
    const fs::path dir = fixtures_dir() / "knowledge" / "adversarial";
    const auto r = run_cli({"--db", s_db.string(), "ingest", "-q", (dir / "learned").string(),
                            (dir / "backend_playbook.md").string()});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite()
  {
    delete s_tmp;
    s_tmp = nullptr;
  }
  static std::string column(const std::string& identity_prefix, const std::string& col)
  {
    return query_value(s_db, "SELECT " + col + " FROM learned_findings WHERE identity LIKE '" +
                                 identity_prefix + "%'");
  }
  static TempDir* s_tmp;
  static fs::path s_db;
};

TempDir* AdversarialKnowledge::s_tmp = nullptr;
fs::path AdversarialKnowledge::s_db;

TEST_F(AdversarialKnowledge, EveryCaseGetsTheKindACarefulReaderWouldGive)
{
  // Not read yet, so never a false positive: c17 (a ×1.35 prefix), c18 (a
  // throughput ratio), c25 (the result only in a bullet), c45 (tok/s only).
  const std::map<std::string, std::string> expected = {
      {"c01-analogy-quote.md", "routing_note"},
      {"c02-no-divergence.md", "positive_measured"},
      {"c03-not-overlapping.md", "positive_measured"},
      {"c04-throughput-dropped.md", "negative"},
      {"c05-endash-minus.md", "negative"},
      {"c06-kernel-time-signed.md", "in_noise"},
      {"c07-memory-first.md", "in_noise"},
      {"c08-loss-then-win.md", "positive_measured"},
      {"c09-headroom-then-loss.md", "negative"},
      {"c10-times-slower.md", "negative"},
      {"c11-dead-end-type.md", "negative"},
      {"c12-lifecycle-deprecated.md", "archived"},
      {"c13-status-supersedes.md", "positive_measured"},
      {"c14-range-cross-zero.md", "in_noise"},
      {"c15-spaced-endash-range.md", "in_noise"},
      {"c16-equals-figures.md", "positive_measured"},
      {"c17-prefix-times.md", "routing_note"},
      {"c18-throughput-ratio.md", "routing_note"},
      {"c19-not-within-noise.md", "positive_measured"},
      {"c20-noise-comparison.md", "positive_measured"},
      {"c21-rejected-alternative.md", "positive_measured"},
      {"c22-type-methodology.md", "method"},
      {"c23-method-with-numbers.md", "method"},
      {"c24-desc-vs-effect.md", "negative"},
      {"c25-empty-effect-source.md", "routing_note"},
      {"c26-nbsp-percent.md", "positive_measured"},
      {"c27-accuracy-first.md", "positive_measured"},
      {"c28-share-e2e-time.md", "positive_measured"},
      {"c29-dtype-in-effect-merge.md", "positive_measured"},
      {"c30-restate-spaced-model.md", "positive_measured"},
      {"c31-restate-by-toks.md", "positive_measured"},
      {"c32-w4a8-dtype.md", "positive_measured"},
      {"c33-long-title.md", "positive_measured"},
      {"c34-eg-title.md", "positive_measured"},
      {"c35-approx-unsigned.md", "positive_measured"},
      {"c36-noise-band-phrase.md", "positive_measured"},
      {"c37-regressed-unsigned.md", "negative"},
      {"c38-iso-after-e2e.md", "positive_measured"},
      {"c39a-shared-key-splitk.md", "positive_measured"},
      {"c39b-shared-key-bias-fusion.md", "positive_measured"},
      {"c40-restate-hyphen-model.md", "positive_measured"},
      {"c41-projection.md", "routing_note"},
      {"c42-upper-bound.md", "routing_note"},
      {"c43-step-time.md", "positive_measured"},
      {"c44-percent-slower.md", "negative"},
      {"c45-toks-only.md", "routing_note"},
      {"c46-not-a-null.md", "positive_measured"},
      {"c47-tunableop-off.md", "positive_measured"},
      {"c48-tunableop-warmup-off.md", "positive_measured"},
      {"j01-analogy-proposal.json#/cards/0", "routing_note"},
      {"j02-lifecycle-deprecated.json#/cards/0", "archived"},
      {"j03-desc-analogy-effect-own.json#/cards/0", "in_noise"},
      {"j04-title-parens.json#/cards/0", "positive_measured"},
      {"backend_playbook.md#2026-07-01", "negative"}, // a ROUTING lead that states an e2e loss
      {"backend_playbook.md#2026-07-02", "positive_measured"},
      {"backend_playbook.md#2026-07-03", "positive_measured"},
      {"backend_playbook.md#2026-07-04", "in_noise"},
      {"backend_playbook.md#2026-07-05", "positive_measured"}, // +0.2 % at first, +1.8 % after the fix
      {"backend_playbook.md#2026-07-06", "negative"},
  };
  for (const auto& [identity, kind] : expected) {
    EXPECT_EQ(column(identity, "classification"), kind)
        << identity << ": " << column(identity, "classification_reason");
  }
  EXPECT_EQ(query_value(s_db, "SELECT count(*) FROM learned_findings"), std::to_string(expected.size()));
}

TEST_F(AdversarialKnowledge, TheFiguresReadAreTheFindingsOwn)
{
  // An unsigned loss, an en dash as a minus, a range across zero.
  EXPECT_EQ(column("c04-", "e2e_min_pct"), "-3.2");
  EXPECT_EQ(column("c05-", "e2e_min_pct"), "-1.4");
  EXPECT_EQ(column("c14-", "e2e_min_pct || ',' || e2e_max_pct"), "-0.3,0.9");
  // A slowdown stated as "1.3× slower" is 1/1.3.
  EXPECT_EQ(column("c10-", "printf('%.4f', iso_max)"), "0.7692");
  // The description's first-session reading is replaced by the effect's re-measurement.
  EXPECT_EQ(column("c24-", "e2e_min_pct"), "-0.8");
  // "+3.1% e2e, iso 1.45×": both figures.
  EXPECT_EQ(column("c38-", "iso_min || ',' || e2e_min_pct"), "1.45,3.1");
  // Quoted from another card: no figure of its own.
  EXPECT_EQ(column("c01-", "ifnull(iso_min, 'null') || ',' || ifnull(e2e_min_pct, 'null')"), "null,null");
  // Kernel time, memory and step time are not the e2e delta.
  EXPECT_EQ(column("c06-", "e2e_min_pct"), "0.3");
  EXPECT_EQ(column("c43-", "e2e_min_pct"), "3.9");
}

} // namespace
} // namespace rfdb::test
