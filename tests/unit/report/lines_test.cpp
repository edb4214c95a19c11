// The run sets of the What works lines: run ids numbered once, kept as a
// short list and then as a bitmap, listed in std::set order.
#include "report/lines.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rfdb::report::detail {

namespace {

std::vector<std::string> insert_all(RunSet& set, RunIds& ids, const std::shared_ptr<RunIds>& owner,
                                    const std::vector<std::string>& runs)
{
  std::set<std::string> expected;
  for (const auto& r : runs) {
    set.insert(ids.id_of(r), owner);
    expected.insert(r);
  }
  return {expected.begin(), expected.end()};
}

} // namespace

TEST(RunSet, AFewRunsAreCountedOnceAndListedInOrder)
{
  auto ids = std::make_shared<RunIds>();
  RunSet set;
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(set.count("run_a"), 0U);
  const auto expected = insert_all(set, *ids, ids, {"run_c", "run_a", "run_c", "run_b", "run_a"});
  EXPECT_EQ(set.size(), 3U);
  EXPECT_EQ(set.sorted(), expected);
  EXPECT_EQ(set.sorted(), (std::vector<std::string>{"run_a", "run_b", "run_c"}));
  EXPECT_EQ(set.count("run_b"), 1U);
  EXPECT_EQ(set.count("run_d"), 0U);
}

TEST(RunSet, ManyRunsSharingNumbersWithAnotherSetKeepTheirOwnMembers)
{
  auto ids = std::make_shared<RunIds>();
  RunSet all;
  RunSet odd;
  std::vector<std::string> runs;
  std::vector<std::string> odd_runs;
  for (int i = 40; i > 0; --i) { // descending: the numbers are not in name order
    runs.push_back("e2e_model_2026" + std::to_string(1000 + i));
    if (i % 2 == 1) {
      odd_runs.push_back(runs.back());
    }
  }
  runs.push_back(runs.front()); // a repeat after the bitmap took over
  const auto expected = insert_all(all, *ids, ids, runs);
  const auto expected_odd = insert_all(odd, *ids, ids, odd_runs);
  EXPECT_EQ(all.size(), 40U);
  EXPECT_EQ(odd.size(), 20U);
  EXPECT_EQ(all.sorted(), expected);
  EXPECT_EQ(odd.sorted(), expected_odd);
  EXPECT_EQ(odd.sorted().front(), "e2e_model_20261001");
  EXPECT_EQ(odd.count("e2e_model_20261002"), 0U);
  EXPECT_EQ(all.count("e2e_model_20261002"), 1U);
  // A run numbered after the sets were listed is listed in order too.
  all.insert(ids->id_of("e2e_model_20260999"), ids);
  EXPECT_EQ(all.sorted().front(), "e2e_model_20260999");
  EXPECT_EQ(all.size(), 41U);
}

// The report numbers its runs in its run list's order: with a run's place
// as the hint, the number is that place; a wrong or missing hint, or a run
// not in the list, is looked up as before, and the sets list the same ids.
TEST(RunIds, SeededNamesAreNumberedInTheirOrderAndHintsAreChecked)
{
  const auto names =
      std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"run_c", "run_a", "run_b"});
  auto ids = std::make_shared<RunIds>(names);
  EXPECT_EQ(ids->id_of("run_a", 1), 1U);
  EXPECT_EQ(ids->id_of("run_b", 0), 2U); // wrong hint: looked up
  EXPECT_EQ(ids->id_of("run_c"), 0U);    // no hint
  EXPECT_EQ(ids->id_of("run_z", 1), 3U); // not in the list: the next number
  EXPECT_EQ(ids->find("run_b", 2), std::optional<std::uint32_t>(2U));
  EXPECT_EQ(ids->find("run_z"), std::optional<std::uint32_t>(3U));
  EXPECT_EQ(ids->find("run_y", 0), std::nullopt);
  EXPECT_EQ(ids->name(3), "run_z");
  RunSet set;
  for (const auto& [run, hint] : std::vector<std::pair<std::string, std::uint32_t>>{
           {"run_z", 3}, {"run_b", 2}, {"run_c", 0}, {"run_b", RunIds::k_no_hint}}) {
    set.insert(ids->id_of(run, hint), ids);
  }
  EXPECT_EQ(set.sorted(), (std::vector<std::string>{"run_b", "run_c", "run_z"}));
  EXPECT_EQ(set.count("run_a"), 0U);
  EXPECT_EQ(set.count("run_c"), 1U);
}

} // namespace rfdb::report::detail
