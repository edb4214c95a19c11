// GEAK's retire rule (domain/kb_ledger.hpp; docs/kb.md, GEAK-KB §4.3, §5): the newest rule's
// window of tested outcomes, its lifetime fallback, the older rule, and is_retired.
#include "domain/kb_ledger.hpp"

#include <gtest/gtest.h>

namespace rfdb::domain {

namespace {

Ledger with_history(std::initializer_list<const char*> outcomes)
{
  Ledger l;
  int i = 0;
  for (const char* o : outcomes) {
    l.history.push_back(LedgerEntry{"2026-09-0" + std::to_string(++i) + "T00:00:00Z", o, "kernel_lane"});
  }
  return l;
}

} // namespace

TEST(KbLedger, TwoNegativesInTheWindowRetire)
{
  EXPECT_EQ(ledger_retire_reason(with_history({"failed", "not_reproduced"})),
            "ledger: last 2 attempts all negative");
  EXPECT_EQ(ledger_retire_reason(with_history({"failed", "failed", "not_reproduced"})),
            "ledger: last 3 attempts all negative");
}

TEST(KbLedger, OneNegativeIsBelowTheThreshold)
{
  EXPECT_EQ(ledger_retire_reason(with_history({"failed"})), std::nullopt);
  // The fixture meta.yaml of GEAK-KB §10.4: one failure, no validation, history of one.
  Ledger l = with_history({"failed"});
  l.recalls = 1;
  l.failures = 1;
  EXPECT_EQ(ledger_retire_reason(l), std::nullopt);
}

TEST(KbLedger, AValidationInsideTheWindowKeepsTheRecord)
{
  EXPECT_EQ(ledger_retire_reason(with_history({"validated", "failed", "failed"})), std::nullopt);
  EXPECT_EQ(ledger_retire_reason(with_history({"failed", "validated", "failed"})), std::nullopt);
}

TEST(KbLedger, AnOldWinOutsideTheWindowNoLongerVetoes)
{
  // The window is the last 3 tested outcomes: the validation is the 4th newest.
  EXPECT_EQ(ledger_retire_reason(with_history({"validated", "failed", "not_reproduced", "failed"})),
            "ledger: last 3 attempts all negative");
}

TEST(KbLedger, InapplicableOutcomesAreSkipped)
{
  // inapplicable is a verdict on the pairing, not on the record: it neither fills the window ...
  EXPECT_EQ(ledger_retire_reason(with_history({"validated", "failed", "inapplicable", "inapplicable"})),
            std::nullopt);
  // ... nor pushes a validation out of it.
  EXPECT_EQ(
      ledger_retire_reason(with_history({"validated", "failed", "not_reproduced", "inapplicable", "failed"})),
      "ledger: last 3 attempts all negative");
  EXPECT_EQ(ledger_retire_reason(with_history({"failed", "inapplicable", "inapplicable", "failed"})),
            "ledger: last 2 attempts all negative");
}

TEST(KbLedger, NoUsableHistoryFallsBackToTheLifetimeCounters)
{
  Ledger l;
  l.failures = 1;
  l.not_reproduced = 1;
  EXPECT_EQ(ledger_retire_reason(l),
            "ledger: 2 negative attempts (failures + not_reproduced), no validation");
  l.validations = 1;
  EXPECT_EQ(ledger_retire_reason(l), std::nullopt);
  Ledger one;
  one.failures = 1;
  EXPECT_EQ(ledger_retire_reason(one), std::nullopt);
  // A history of inapplicable outcomes only is no usable history either.
  Ledger only_inapplicable = with_history({"inapplicable", "inapplicable"});
  only_inapplicable.failures = 2;
  EXPECT_EQ(ledger_retire_reason(only_inapplicable),
            "ledger: 2 negative attempts (failures + not_reproduced), no validation");
}

TEST(KbLedger, AHigherThresholdWidensTheWindow)
{
  const Ledger l = with_history({"validated", "failed", "failed", "failed"});
  EXPECT_EQ(ledger_retire_reason(l, 3), "ledger: last 3 attempts all negative");
  EXPECT_EQ(ledger_retire_reason(l, 4), std::nullopt); // window of 4 holds the validation
}

TEST(KbLedger, TheOlderRule)
{
  Ledger l;
  l.recalls = 2;
  l.not_reproduced = 2;
  EXPECT_EQ(ledger_retire_reason_old(l), "ledger (old rule): 2 not reproduced, no validation");
  Ledger tried;
  tried.recalls = 4;
  tried.failures = 2;
  tried.inapplicable = 1;
  EXPECT_EQ(ledger_retire_reason_old(tried), "ledger (old rule): 3 tried, no validation");
  tried.inapplicable = 2; // tried = 2
  EXPECT_EQ(ledger_retire_reason_old(tried), std::nullopt);
  // "No validation ever": an old win vetoes forever under the old rule, not under the new one.
  Ledger old_win = with_history({"validated", "failed", "failed", "failed"});
  old_win.recalls = 4;
  old_win.validations = 1;
  old_win.failures = 3;
  EXPECT_EQ(ledger_retire_reason_old(old_win), std::nullopt);
  EXPECT_EQ(ledger_retire_reason(old_win), "ledger: last 3 attempts all negative");
}

TEST(KbLedger, IsRetiredAndTheRecordsOwnReasonFirst)
{
  EXPECT_TRUE(is_retired(false, ""));
  EXPECT_TRUE(is_retired(std::nullopt, "duplicate_direction:x"));
  EXPECT_FALSE(is_retired(true, "  "));
  EXPECT_FALSE(is_retired(std::nullopt, ""));
  const Ledger negative = with_history({"failed", "failed"});
  EXPECT_EQ(record_retired_why(false, "curate: 2 negative", negative), "curate: 2 negative");
  EXPECT_EQ(record_retired_why(false, "", Ledger{}), "retained: false");
  EXPECT_EQ(record_retired_why(true, "", negative), "ledger: last 2 attempts all negative");
  EXPECT_EQ(record_retired_why(true, "", Ledger{}), std::nullopt);
}

} // namespace rfdb::domain
