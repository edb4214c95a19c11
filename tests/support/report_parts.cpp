// The report's input built with its attempts folded in parts (test support).
#include "support/report_parts.hpp"

#include "calibrate/from_store.hpp"
#include "calibrate/priors.hpp"
#include "calibrate/rescore.hpp"
#include "report/analysis.hpp"
#include "report/cards.hpp"
#include "report/findings.hpp"
#include "report/from_store.hpp"
#include "report/playbook.hpp"
#include "store/database.hpp"
#include "store/report_evidence.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace rfdb::test {

namespace fs = std::filesystem;

// The playbook and cards of the store's evidence, its attempts dealt in
// turn to `parts` folds (part 0 the builder's own add_attempt, the others
// AttemptFolds taken back at the end), as `rfdb report` reads it.
namespace {

report::Analysis analysis_in_parts(const fs::path& db_path, std::size_t parts, bool for_cards,
                                   bool drop_first)
{
  auto db = store::Database::open_read_only(db_path.string());
  EXPECT_TRUE(db.has_value());
  const store::EvidenceFilter filter;
  report::ReportInputBuilder builder("", std::nullopt, std::nullopt, for_cards);
  store::ReportEvidenceSink sink;
  sink.run = [&](store::RunSummary&& r) { builder.add_run(std::move(r)); };
  sink.finding = [&](store::ReportFinding&& f) { builder.add_finding(f); };
  EXPECT_TRUE(store::read_report_evidence(*db, filter, sink, store::ReportRows::runs));
  report::VerdictFold verdicts = builder.fold_verdicts();
  EXPECT_TRUE(report::fold_report_verdicts(*db, filter, verdicts));
  const store::AttemptIdRange every{std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max()};
  if (drop_first) { // a read from another snapshot, forgotten
    EXPECT_TRUE(store::read_report_attempts(*db, filter, every,
                                            [&](store::Attempt&& a) { builder.add_attempt(std::move(a)); }));
    builder.drop_attempts();
  }
  std::vector<report::AttemptFold> folds;
  for (std::size_t i = 1; i < parts; ++i) {
    folds.push_back(builder.fold_attempts());
  }
  std::size_t n = 0;
  EXPECT_TRUE(store::read_report_attempts(*db, filter, every, [&](store::Attempt&& a) {
    const std::size_t part = n++ % parts;
    if (part == 0) {
      builder.add_attempt(std::move(a));
    } else {
      folds[part - 1].add(std::move(a));
    }
  }));
  EXPECT_GT(n, parts * 3) << "too few attempts to deal";
  EXPECT_TRUE(store::read_report_evidence(*db, filter, sink, store::ReportRows::findings));
  for (auto& f : folds) {
    builder.take_attempts(std::move(f));
  }
  auto observations = calibrate::load_observations(*db, filter);
  EXPECT_TRUE(observations.has_value());
  calibrate::PriorsParams params;
  params.level = calibrate::PriorsLevel::op_class_gfx;
  auto priors = calibrate::compute_priors_from_table(*observations, params);
  EXPECT_TRUE(priors.has_value());
  report::ReportInput input = builder.finish(std::move(verdicts), std::move(*priors));
  // The routing replay, as report::generate adds it after the read.
  auto replay =
      calibrate::playbook_replay(*db, input.priors, calibrate::PlaybookReplayScope{input.as_of, "", {}});
  EXPECT_TRUE(replay.has_value());
  if (replay) {
    input.routing_replay = std::move(*replay);
  }
  return report::analyze(std::move(input));
}

} // namespace

report::Analysis analysis_of(const fs::path& db_path)
{
  return analysis_in_parts(db_path, 1, false, false);
}

std::string report_in_parts(const fs::path& db_path, std::size_t parts, bool for_cards, bool drop_first)
{
  const report::Analysis analysis = analysis_in_parts(db_path, parts, for_cards, drop_first);
  std::string all = report::render_playbook(analysis);
  if (for_cards) {
    for (const auto& card : report::render_cards(analysis)) {
      all += "==> " + card.file_name + " <==\n" + card.content;
    }
  }
  return all;
}

} // namespace rfdb::test
