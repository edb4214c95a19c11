// report::generate, the one function `rfdb report` and tools/bench call
// (report/pipeline.hpp): it gives the command's playbook byte for byte, with
// its helper threads (an SQLite file) and without them (all on the caller's
// connection), renders the cards only when asked, fills the bench's phase
// timings, and refuses a --gfx no stored run is on.
#include "support/helpers.hpp"

#include "report/pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace rfdb::test {

namespace {

class ReportPipeline : public SampleDatabase {};

store::Database open_sample(const std::filesystem::path& db)
{
  auto opened = store::Database::open_read_only(db.string());
  EXPECT_TRUE(opened) << opened.error().describe();
  return std::move(*opened);
}

} // namespace

TEST_F(ReportPipeline, GenerateGivesTheCommandsPlaybookWithAndWithoutHelperThreads)
{
  const auto cli = run_cli({"--db", s_db.string(), "report", "--as-of", "2026-11-30"});
  ASSERT_EQ(cli.code, 0) << cli.err;
  report::ReportRequest request;
  request.as_of = "2026-11-30";
  auto db = open_sample(s_db);
  report::ReportPhases phases;
  phases.read_s = -1.0;
  auto threaded = report::generate(db, s_db.string(), request, &phases);
  ASSERT_TRUE(threaded) << threaded.error().describe();
  EXPECT_EQ(threaded->playbook, cli.out);
  EXPECT_EQ(threaded->runs, 3U);
  EXPECT_EQ(threaded->as_of, "2026-11-30");
  EXPECT_TRUE(threaded->cards.empty()); // not asked for
  EXPECT_GT(phases.read_s, 0.0);
  EXPECT_GT(phases.priors_s, 0.0);
  EXPECT_GT(phases.analyze_s, 0.0);
  EXPECT_GT(phases.render_s, 0.0);
  // ":memory:" opens no helper connection: everything is read on `db`, in this thread.
  auto serial_db = open_sample(s_db);
  auto serial = report::generate(serial_db, ":memory:", request);
  ASSERT_TRUE(serial) << serial.error().describe();
  EXPECT_EQ(serial->playbook, cli.out);
}

TEST_F(ReportPipeline, CardsAreRenderedOnlyWhenAsked)
{
  auto db = open_sample(s_db);
  report::ReportRequest request;
  request.cards = true;
  auto out = report::generate(db, s_db.string(), request);
  ASSERT_TRUE(out) << out.error().describe();
  ASSERT_FALSE(out->cards.empty());
  EXPECT_TRUE(std::any_of(out->cards.begin(), out->cards.end(),
                          [](const report::CardFile& f) { return f.file_name == "INDEX.md"; }));
  EXPECT_EQ(out->as_of, "2026-08-15"); // the newest run's date
}

TEST_F(ReportPipeline, AGfxWithNoRunIsNotFoundAndNamesTheGpusWithRuns)
{
  auto db = open_sample(s_db);
  report::ReportRequest request;
  request.gfx = "gfx90a";
  auto out = report::generate(db, s_db.string(), request);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::not_found);
  EXPECT_EQ(out.error().message, "no runs on gfx90a");
  EXPECT_EQ(out.error().hint, "GPUs with runs: gfx942, gfx950");
}

} // namespace rfdb::test
