// Issue 30: profiler-aware measured verdicts. rocprof-compute before 3.5 under-counts
// HBM bytes on gfx950 (GEAK PR #468), so a measured roofline from it is flagged
// profiler_hbm_undercount at ingest, stays stored and shown, and its observation is
// left out of the priors unless --include-biased-profiler.
//
// Three copies of tests/fixtures/case-mix (one MoE head, a two-case measured
// baseline with roofline_pct 0.476, confidence medium, one authored candidate),
// each with its profiler version and isolated speedup rewritten:
//   A gfx950, tool_version "rocprofiler-compute version: 3.4.0", s 1.2 → e 0.5712 (flagged)
//   B gfx950, tool.version.text "rocprofiler-compute version: 3.5.0", s 1.5 → e 0.714
//   C gfx942, tool_version "rocprofiler-compute version: 3.4.0", s 1.8 → e 0.8568
// and a fourth, D (gfx950, no version stated), in a database of its own.
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

namespace rfdb::test {
namespace {

using nlohmann::json;

constexpr const char* k_source = "e2e_Test-CaseMix-MoE_20260901_120000_4242_cmix";
constexpr const char* k_run_a = "e2e_Test-Profiler-MoE_20260901_120000_4242_p34a";
constexpr const char* k_run_b = "e2e_Test-Profiler-MoE_20260902_120000_4243_p35b";
constexpr const char* k_run_c = "e2e_Test-Profiler-MoE_20260903_120000_4244_p34c";
constexpr const char* k_run_d = "e2e_Test-Profiler-MoE_20260904_120000_4245_unkd";

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

void edit_json(const std::filesystem::path& file, const std::function<void(json&)>& edit)
{
  json doc = json::parse(read_bytes(file));
  edit(doc);
  write_bytes(file, doc.dump(2));
}

// A copy of the case-mix run as `name` under `dir`, on `gfx`, with `version`
// written as tool_version (or as tool.version.text when `in_tool`; none when
// empty) and the candidate's isolated speedup `s`.
std::filesystem::path make_run(const std::filesystem::path& dir, const std::string& name,
                               const std::string& gfx, const std::string& version, bool in_tool, double s)
{
  const auto run = dir / name;
  std::filesystem::copy(fixtures_dir() / "case-mix" / k_source, run,
                        std::filesystem::copy_options::recursive);
  edit_json(run / "env_report.json", [&](json& env) { env["gfx"] = gfx; });
  edit_json(
      run / "kernels" / "fused_moe_kernel_task" / "roofline" / "baseline_roofline.json", [&](json& doc) {
        if (version.empty()) {
          return;
        }
        if (in_tool) {
          doc["tool"] = {
              {"path", "/opt/rocm/bin/rocprof-compute"},
              {"source", "PATH"},
              {"version", {{"exit_code", 0}, {"text", version}, {"timed_out", false}, {"warning", ""}}}};
        } else {
          doc["tool_version"] = version;
        }
      });
  edit_json(run / "overlay" / "cand_fused_moe_kernel" / "integrate_result.json",
            [&](json& r) { r["isolated_speedup"] = s; });
  return run;
}

const json& prior_row(const json& priors, const std::string& gfx)
{
  for (const auto& r : priors.at("priors")) {
    if (r.at("op_class") == "moe" && (gfx.empty() ? r.at("gfx").is_null() : r.at("gfx") == gfx)) {
      return r;
    }
  }
  throw std::runtime_error("no moe row for gfx '" + gfx + "'");
}

// shrink(p, W, q) = (k·p + W·q) / (k + W), k = 2 (docs/estimator.md).
double shrink(double p, double w, double q)
{
  return (2.0 * p + w * q) / (2.0 + w);
}

TEST(ProfilerBias, Rocprof34OnGfx950IsFlaggedShownAndLeftOutOfPriors)
{
  TempDir tmp;
  const auto db = tmp / "bias.sqlite";
  const auto runs = tmp / "runs";
  std::filesystem::create_directories(runs);
  const auto a = make_run(runs, k_run_a, "gfx950", "rocprofiler-compute version: 3.4.0", false, 1.2);
  const auto b = make_run(runs, k_run_b, "gfx950", "rocprofiler-compute version: 3.5.0", true, 1.5);
  const auto c = make_run(runs, k_run_c, "gfx942", "rocprofiler-compute version: 3.4.0", false, 1.8);
  for (const auto& run : {a, b, c}) {
    const auto ing = run_cli({"--db", db.string(), "ingest", run.string()});
    ASSERT_EQ(ing.code, 0) << ing.err;
  }

  // Stored per measured verdict: the version its document states and the flag.
  const auto flag = [&](const std::string& run) {
    return query_value(db, "SELECT profiler_hbm_undercount || ' ' || coalesce(profiler_version, 'NULL') FROM "
                           "verdicts WHERE source_kind = 'measured' AND run_id = '" +
                               run + "'");
  };
  EXPECT_EQ(flag(k_run_a), "1 rocprofiler-compute version: 3.4.0");
  EXPECT_EQ(flag(k_run_b), "0 rocprofiler-compute version: 3.5.0"); // tool.version.text
  EXPECT_EQ(flag(k_run_c), "0 rocprofiler-compute version: 3.4.0"); // gfx942: no under-count
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM verdicts WHERE source_kind = 'analytic' AND "
                            "profiler_hbm_undercount = 1"),
            "0");
  // Carried to the attempt and its observation row.
  EXPECT_EQ(query_value(db, "SELECT group_concat(run_id || '=' || profiler_hbm_undercount, ',') FROM "
                            "(SELECT run_id, profiler_hbm_undercount FROM observations ORDER BY run_id)"),
            std::string(k_run_a) + "=1," + k_run_b + "=0," + k_run_c + "=0");
  EXPECT_EQ(query_value(db, "SELECT sum(profiler_hbm_undercount) FROM attempts"), "1");
  EXPECT_EQ(query_value(db, "SELECT DISTINCT confidence FROM verdicts WHERE source_kind = 'measured'"),
            "medium"); // w = 0.6 below

  // rfdb show: the JSON fields and the text's mark and note.
  const auto show_json = run_cli({"--db", db.string(), "show", k_run_a, "--format", "json"});
  ASSERT_EQ(show_json.code, 0) << show_json.err;
  bool seen = false;
  const json shown = json::parse(show_json.out);
  for (const auto& v : shown.at("verdicts")) {
    if (v.at("source") == "measured") {
      EXPECT_EQ(v.at("profiler_hbm_undercount"), true);
      EXPECT_EQ(v.at("profiler_version"), "rocprofiler-compute version: 3.4.0");
      seen = true;
    } else {
      EXPECT_EQ(v.at("profiler_hbm_undercount"), false);
      EXPECT_TRUE(v.at("profiler_version").is_null());
    }
  }
  EXPECT_TRUE(seen) << show_json.out;
  const auto show = run_cli({"--db", db.string(), "--format", "table", "show", k_run_a});
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "underperforming (profiler_hbm_undercount)")) << show.out;
  EXPECT_TRUE(contains(show.out, "profiler_hbm_undercount: 1 measured verdict from rocprof-compute < 3.5 on "
                                 "gfx950 (rocprofiler-compute version: 3.4.0): HBM bytes under-counted"))
      << show.out;
  const auto show_b = run_cli({"--db", db.string(), "--format", "table", "show", k_run_b});
  ASSERT_EQ(show_b.code, 0) << show_b.err;
  EXPECT_FALSE(contains(show_b.out, "profiler_hbm_undercount")) << show_b.out;

  // rfdb query verdicts_all carries the flag.
  const auto q = run_cli({"--db", db.string(), "query", "verdicts_all", "--format", "json"});
  ASSERT_EQ(q.code, 0) << q.err;
  int flagged = 0;
  const json all_verdicts = json::parse(q.out);
  for (const auto& row : all_verdicts) {
    flagged += row.at("profiler_hbm_undercount").get<int>();
  }
  EXPECT_EQ(flagged, 1);

  // Priors: A is left out by default, counted with --include-biased-profiler.
  const double seed = 0.90; // moe
  const auto priors = run_cli({"--db", db.string(), "priors", "--by", "class,gfx", "--format", "json"});
  ASSERT_EQ(priors.code, 0) << priors.err;
  const json p = json::parse(priors.out);
  EXPECT_EQ(p.at("parameters").at("include_biased_profiler"), false);
  // class: {B 0.714, C 0.8568}, W 1.2, q75 = 0.8568.
  EXPECT_EQ(prior_row(p, "").at("n"), 2);
  EXPECT_NEAR(prior_row(p, "").at("target_eff").get<double>(), shrink(seed, 1.2, 0.8568), 1e-4);
  // gfx950: shrink(shrink(seed, C), B) = 0.8494.
  const double from_gfx942 = shrink(seed, 0.6, 0.8568);
  EXPECT_EQ(prior_row(p, "gfx950").at("n"), 1);
  EXPECT_NEAR(prior_row(p, "gfx950").at("statistic").get<double>(), 0.714, 1e-4);
  EXPECT_NEAR(prior_row(p, "gfx950").at("target_eff").get<double>(), shrink(from_gfx942, 0.6, 0.714), 1e-4);
  EXPECT_NEAR(prior_row(p, "gfx950").at("target_eff").get<double>(), 0.8494, 1e-4);

  const auto with = run_cli(
      {"--db", db.string(), "priors", "--by", "class,gfx", "--format", "json", "--include-biased-profiler"});
  ASSERT_EQ(with.code, 0) << with.err;
  const json w = json::parse(with.out);
  EXPECT_EQ(w.at("parameters").at("include_biased_profiler"), true);
  // class: {A 0.5712, B 0.714, C 0.8568}, W 1.8, q75 = 0.8568.
  EXPECT_EQ(prior_row(w, "").at("n"), 3);
  EXPECT_NEAR(prior_row(w, "").at("target_eff").get<double>(), shrink(seed, 1.8, 0.8568), 1e-4);
  // gfx950: {A, B}, W 1.2, q75 = 0.714: 0.8240.
  EXPECT_EQ(prior_row(w, "gfx950").at("n"), 2);
  EXPECT_EQ(prior_row(w, "gfx950").at("measured"), 2);
  EXPECT_NEAR(prior_row(w, "gfx950").at("target_eff").get<double>(), shrink(from_gfx942, 1.2, 0.714), 1e-4);
  EXPECT_NEAR(prior_row(w, "gfx950").at("target_eff").get<double>(), 0.8240, 1e-4);

  // --explain names the excluded attempt and why.
  const auto explain =
      run_cli({"--db", db.string(), "--format", "table", "priors", "--explain", "moe:gfx950"});
  ASSERT_EQ(explain.code, 0) << explain.err;
  EXPECT_TRUE(contains(explain.out,
                       "biased_profiler (profiler_hbm_undercount: rocprof-compute < 3.5 on gfx950 "
                       "under-counts HBM bytes; --include-biased-profiler counts it)"))
      << explain.out;
  EXPECT_TRUE(contains(explain.out, k_run_a)) << explain.out;

  // The playbook names the count where it states the observations.
  const auto report = run_cli({"--db", db.string(), "report"});
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_TRUE(contains(report.out, "3 attempts, 2 observations). A key without")) << report.out;
  EXPECT_TRUE(contains(report.out,
                       " 1 observation on measured rooflines from rocprof-compute < 3.5 on gfx950 "
                       "left out (HBM under-count, `profiler_hbm_undercount`; `rfdb priors "
                       "--include-biased-profiler` counts it)."))
      << report.out;
}

TEST(ProfilerBias, AnUnknownProfilerVersionIsNotFlagged)
{
  TempDir tmp;
  const auto db = tmp / "unknown.sqlite";
  const auto runs = tmp / "runs";
  std::filesystem::create_directories(runs);
  const auto d = make_run(runs, k_run_d, "gfx950", "", false, 1.3);
  const auto ing = run_cli({"--db", db.string(), "ingest", d.string()});
  ASSERT_EQ(ing.code, 0) << ing.err;
  EXPECT_EQ(query_value(db,
                        "SELECT profiler_hbm_undercount || ' ' || coalesce(profiler_version, 'NULL') FROM "
                        "verdicts WHERE source_kind = 'measured'"),
            "0 NULL");
  EXPECT_EQ(query_value(db, "SELECT profiler_hbm_undercount FROM observations"), "0");
  const auto report = run_cli({"--db", db.string(), "report"});
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_FALSE(contains(report.out, "left out (HBM under-count")) << report.out;
}

// A roofline document that states no tool version takes the run's profiler
// from its stack (env_info.txt here): flagged on 3.4.0, not on 3.5.0, and the
// verdict's own profiler_version stays empty (docs/playbook.md, "Profiler").
TEST(ProfilerBias, AVerdictWithoutAVersionTakesTheRunsProfiler)
{
  TempDir tmp;
  const auto runs = tmp / "runs";
  std::filesystem::create_directories(runs);
  const auto flag_for = [&](const std::string& env_info_line, const std::string& tag) {
    const auto db = tmp / (tag + ".sqlite");
    const auto run = make_run(runs, std::string("e2e_Test-Profiler-MoE_20260905_120000_4246_") + tag,
                              "gfx950", "", false, 1.3);
    write_bytes(run / "env_info.txt", env_info_line + "\n");
    const auto ing = run_cli({"--db", db.string(), "ingest", run.string()});
    EXPECT_EQ(ing.code, 0) << ing.err;
    return query_value(db, "SELECT profiler_hbm_undercount || ' ' || coalesce(profiler_version, 'NULL') FROM "
                           "verdicts WHERE source_kind = 'measured'");
  };
  EXPECT_EQ(flag_for("rocprof-compute 3.4.0", "s340"), "1 NULL");
  EXPECT_EQ(flag_for("rocprof-compute 3.5.0", "s350"), "0 NULL");
}

} // namespace
} // namespace rfdb::test
