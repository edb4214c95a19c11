// `rfdb rescore` as text tables or JSON (declared in calibrate/rescore_format.hpp).
#include "calibrate/rescore_format.hpp"

#include "util/table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace rfdb::calibrate {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t k_stored = static_cast<std::size_t>(PriorSet::stored);
constexpr std::size_t k_today = static_cast<std::size_t>(PriorSet::today);
constexpr std::size_t k_before = static_cast<std::size_t>(PriorSet::before);

double round_dp(double x, int dp)
{
  const double scale = std::pow(10.0, dp);
  const double r = std::round(x * scale) / scale;
  return r == 0.0 ? 0.0 : r;
}

std::string fixed(const std::optional<double>& x, int dp)
{
  return x ? fmt::format("{:.{}f}", round_dp(*x, dp), dp) : std::string("-");
}

Json number(const std::optional<double>& x)
{
  return x ? Json(round_dp(*x, 4)) : Json(nullptr);
}

Json text_or_null(const std::string& s)
{
  return s.empty() ? Json(nullptr) : Json(s);
}

bool listed(const RescoredVerdict& r, RescoreRows rows)
{
  return rows == RescoreRows::all || !r.changes.empty();
}

// "a / b / c" of one field over the three sets ("-" where a set has none).
template <typename Fn> std::string three(const RescoredVerdict& r, Fn&& field)
{
  std::vector<std::string> parts;
  for (const auto& s : r.under) {
    parts.push_back(s.available ? field(s) : std::string("-"));
  }
  return fmt::format("{}", fmt::join(parts, " / "));
}

const char* set_letter(PriorSet set)
{
  return set == PriorSet::today ? "b" : "c";
}

std::string change_text(const RescoreChange& c)
{
  std::string s = fmt::format("{}: {} {} -> {}", set_letter(c.set), c.decision, c.from, c.to);
  if (c.saturated) {
    s += c.to == "saturated" ? " (into saturated)" : " (out of saturated)";
  }
  return s;
}

std::vector<std::string> row_of(const RescoredVerdict& r)
{
  const auto& v = r.verdict;
  std::vector<std::string> row{v.round,
                               v.short_name,
                               v.op_class,
                               fixed(v.pct_gpu_time, 2),
                               fixed(v.roofline_pct, 4),
                               three(r, [](const ScoredVerdict& s) { return fixed(s.target_eff, 4); })};
  if (!r.no_band.empty()) {
    row.push_back(fmt::format("no band ({})", r.no_band));
    return row;
  }
  row.push_back(three(r, [](const ScoredVerdict& s) { return s.headroom_class; }));
  row.push_back(three(r, [](const ScoredVerdict& s) { return fixed(s.attainable_speedup, 3); }));
  row.push_back(three(r, [](const ScoredVerdict& s) { return fixed(s.expected_e2e_gain_pct, 2); }));
  if (r.head) {
    row.push_back(three(r, [](const ScoredVerdict& s) { return s.rank ? std::to_string(*s.rank) : "-"; }));
    row.push_back(three(r, [](const ScoredVerdict& s) { return s.skip ? (*s.skip ? "skip" : "try") : "-"; }));
  } else {
    row.emplace_back("not a head");
    row.emplace_back("-");
  }
  std::vector<std::string> changes;
  for (const auto& c : r.changes) {
    changes.push_back(change_text(c));
  }
  row.push_back(changes.empty() ? std::string("-") : fmt::format("{}", fmt::join(changes, "; ")));
  return row;
}

// One prior set's figures; `as_of` (the priors' date) only for today and before.
Json scored_json(const ScoredVerdict& s, bool banded, const std::optional<std::string>& as_of)
{
  Json j;
  if (as_of) {
    j["as_of"] = text_or_null(*as_of);
  }
  j["target_eff"] = number(s.target_eff);
  j["prior_key"] = text_or_null(s.prior_key);
  j["prior_source"] = text_or_null(s.prior_source);
  j["headroom_class"] = banded ? Json(s.headroom_class) : Json(nullptr);
  j["attainable_speedup"] = number(s.attainable_speedup);
  j["expected_e2e_gain_pct"] = number(s.expected_e2e_gain_pct);
  j["rank"] = s.rank ? Json(*s.rank) : Json(nullptr);
  j["skip"] = s.skip ? Json(*s.skip) : Json(nullptr);
  return j;
}

Json counts_json(const RescoreChangeCounts& c)
{
  return Json{{"band", c.band}, {"saturated", c.saturated}, {"rank", c.rank}, {"skip", c.skip}};
}

std::string plural(int n, const char* one, const char* many)
{
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string counts_text(const RescoreChangeCounts& c)
{
  return fmt::format("{} ({} into or out of saturated), {}, {}",
                     plural(c.band, "band change", "band changes"), c.saturated,
                     plural(c.rank, "head rank change", "head rank changes"),
                     plural(c.skip, "skip-gate change", "skip-gate changes"));
}

} // namespace

std::string rescore_summary(const RescoreResult& result)
{
  const auto& rs = result.replay_summary;
  const std::string replay =
      rs.runs == 0
          ? std::string("; routing replay: no run with a measured kernel win on a ranked head")
          : fmt::format("; routing replay: {} with a measured kernel win, the winner ranks higher under c in "
                        "{}, lower in {}, the same in {}; mean |expected - realized| a {} %, c {} %",
                        plural(rs.runs, "run", "runs"), rs.up, rs.down, rs.same,
                        fixed(rs.mean_abs_error_pct[k_stored], 2), fixed(rs.mean_abs_error_pct[k_before], 2));
  return fmt::format(
             "{} rescored ({} banded, {}) in {} of {}; {}; today's priors (b, as of {}): {}; "
             "priors before each run (c): {}",
             plural(static_cast<int>(result.verdicts.size()), "verdict", "verdicts"), result.banded,
             plural(result.heads, "head", "heads"), plural(result.rounds, "round", "rounds"),
             plural(result.runs, "run", "runs"),
             plural(result.changed, "verdict with a changed decision", "verdicts with a changed decision"),
             result.as_of.empty() ? "-" : result.as_of, counts_text(result.today),
             counts_text(result.before)) +
         replay;
}

std::string render_rescore_table(const RescoreResult& result, RescoreRows rows)
{
  std::string out =
      fmt::format("target_eff (a) as each run stored it, (b) calibrated as of {}, (c) as of the "
                  "day before each run (--by {})\n",
                  result.as_of.empty() ? "-" : result.as_of, to_string(result.level));
  const std::vector<util::Column> columns{{"round"},
                                          {"kernel"},
                                          {"class"},
                                          {"pct_gpu_time", util::Align::right},
                                          {"roofline_pct", util::Align::right},
                                          {"target_eff a / b / c"},
                                          {"band a / b / c"},
                                          {"attainable x a / b / c"},
                                          {"gain % a / b / c"},
                                          {"rank a / b / c"},
                                          {"skip a / b / c"},
                                          {"changes"}};
  bool any = false;
  for (std::size_t i = 0; i < result.verdicts.size();) {
    const auto& run = result.verdicts[i].verdict;
    std::vector<std::vector<std::string>> table;
    std::string before_as_of = result.verdicts[i].before_as_of;
    std::size_t j = i;
    for (; j < result.verdicts.size() && result.verdicts[j].verdict.run_id == run.run_id; ++j) {
      if (listed(result.verdicts[j], rows)) {
        table.push_back(row_of(result.verdicts[j]));
      }
    }
    if (!table.empty()) {
      out += fmt::format(
          "\n{} ({}, {}; c as of {})\n", run.run_id, run.run_date.empty() ? "no date" : run.run_date,
          run.gfx.empty() ? "gfx unknown" : run.gfx, before_as_of.empty() ? "-" : before_as_of);
      out += util::render_table(columns, table);
      any = true;
    }
    i = j;
  }
  if (!any) {
    out += result.verdicts.empty() ? "\nno profile-round verdict to rescore\n" : "\nno decision changes\n";
  }
  if (!result.replay.empty()) {
    out += "\nrouting replay: the kernel of each run's best realized e2e win and its rank by expected gain\n";
    std::vector<std::vector<std::string>> table;
    for (const auto& r : result.replay) {
      std::vector<std::string> ranks;
      std::vector<std::string> errors;
      for (std::size_t set = 0; set < k_prior_set_count; ++set) {
        ranks.push_back(r.rank[set] ? std::to_string(*r.rank[set]) : "-");
        errors.push_back(r.error_pct[set] ? fmt::format("{:+.2f}", round_dp(*r.error_pct[set], 2)) : "-");
      }
      table.push_back(
          {r.run_id, r.round, r.short_name, fmt::format("{:+.2f}", round_dp(r.realized_e2e_pct, 2)),
           fmt::format("{}", fmt::join(ranks, " / ")), fmt::format("{}", fmt::join(errors, " / "))});
    }
    out += util::render_table({{"run"},
                               {"round"},
                               {"kernel"},
                               {"e2e %", util::Align::right},
                               {"rank a / b / c"},
                               {"expected - realized % a / b / c"}},
                              table);
  }
  out += "\n" + rescore_summary(result) + "\n";
  return out;
}

std::string render_rescore_json(const RescoreResult& result, RescoreRows rows)
{
  Json verdicts = Json::array();
  for (const auto& r : result.verdicts) {
    if (!listed(r, rows)) {
      continue;
    }
    const auto& v = r.verdict;
    const bool banded = r.no_band.empty();
    Json changes = Json::array();
    for (const auto& c : r.changes) {
      changes.push_back({{"prior_set", to_string(c.set)},
                         {"decision", c.decision},
                         {"from", c.from},
                         {"to", c.to},
                         {"saturated", c.saturated}});
    }
    verdicts.push_back({
        {"run_id", v.run_id},
        {"run_date", text_or_null(v.run_date)},
        {"gfx", text_or_null(v.gfx)},
        {"round", v.round},
        {"short_name", v.short_name},
        {"op_class", v.op_class},
        {"regime", text_or_null(v.regime)},
        {"source_kind", v.source_kind},
        {"pct_gpu_time", v.pct_gpu_time ? Json(*v.pct_gpu_time) : Json(nullptr)},
        {"roofline_pct", v.roofline_pct ? Json(*v.roofline_pct) : Json(nullptr)},
        {"head", r.head},
        {"no_band", text_or_null(r.no_band)},
        {"stored_verdict",
         {{"target_eff", v.target_eff ? Json(*v.target_eff) : Json(nullptr)},
          {"headroom_class", v.headroom_class},
          {"attainable_speedup", v.attainable_speedup ? Json(*v.attainable_speedup) : Json(nullptr)},
          {"expected_e2e_gain_pct",
           v.expected_e2e_gain_pct ? Json(*v.expected_e2e_gain_pct) : Json(nullptr)}}},
        {"stored", scored_json(r.under[k_stored], banded, std::nullopt)},
        {"today", scored_json(r.under[k_today], banded, result.as_of)},
        {"before", r.under[k_before].available ? scored_json(r.under[k_before], banded, r.before_as_of)
                                               : Json(nullptr)},
        {"changes", std::move(changes)},
    });
  }
  Json replay = Json::array();
  for (const auto& r : result.replay) {
    Json ranks = Json::object();
    Json errors = Json::object();
    for (const PriorSet set : {PriorSet::stored, PriorSet::today, PriorSet::before}) {
      const auto i = static_cast<std::size_t>(set);
      ranks[to_string(set)] = r.rank[i] ? Json(*r.rank[i]) : Json(nullptr);
      errors[to_string(set)] = number(r.error_pct[i]);
    }
    replay.push_back({{"run_id", r.run_id},
                      {"round", r.round},
                      {"short_name", r.short_name},
                      {"realized_e2e_pct", r.realized_e2e_pct},
                      {"rank", std::move(ranks)},
                      {"error_pct", std::move(errors)}});
  }
  const auto& rs = result.replay_summary;
  Json replay_summary{{"runs", rs.runs},
                      {"up", rs.up},
                      {"down", rs.down},
                      {"same", rs.same},
                      {"mean_abs_error_pct",
                       {{"stored", number(rs.mean_abs_error_pct[k_stored])},
                        {"today", number(rs.mean_abs_error_pct[k_today])},
                        {"before", number(rs.mean_abs_error_pct[k_before])}}}};
  Json doc{
      {"as_of", text_or_null(result.as_of)},
      {"by", to_string(result.level)},
      {"run", result.run_id ? Json(*result.run_id) : Json(nullptr)},
      {"listed", rows == RescoreRows::all ? "all" : "changed"},
      {"summary",
       {{"runs", result.runs},
        {"rounds", result.rounds},
        {"verdicts", result.verdicts.size()},
        {"banded", result.banded},
        {"heads", result.heads},
        {"changed", result.changed},
        {"today", counts_json(result.today)},
        {"before", counts_json(result.before)},
        {"replay", std::move(replay_summary)}}},
      {"verdicts", std::move(verdicts)},
      {"replay", std::move(replay)},
  };
  return doc.dump(2) + "\n";
}

} // namespace rfdb::calibrate
