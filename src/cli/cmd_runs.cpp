// `rfdb runs` and `rfdb show`: list runs and print one run with its verdicts and attempts.
#include "cli/cmd_runs.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "cli/show_attempt.hpp"
#include "domain/vocab.hpp"
#include "store/runs.hpp"
#include "util/table.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace rfdb::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

std::string opt_text(const std::optional<std::string>& v)
{
  return v.value_or("-");
}
std::string throughput(const std::optional<double>& v)
{
  return v ? fmt::format("{:.1f}", *v) : "-";
}
ordered_json retractions_json(const std::vector<store::RetractionEvent>& events)
{
  ordered_json arr = ordered_json::array();
  for (const auto& e : events) {
    arr.push_back({{"action", e.action}, {"reason", json_or_null(e.reason)}, {"at", e.at}});
  }
  return arr;
}
std::string workload(const std::optional<std::int64_t>& isl, const std::optional<std::int64_t>& osl,
                     const std::optional<std::int64_t>& conc)
{
  auto part = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "?"; };
  return part(isl) + "/" + part(osl) + "/" + part(conc);
}

// Append gfx, backend, backend_version, workload {isl, osl, conc} and the
// baseline/final throughput (tok/s) and speedup of a run (RunSummary or
// RunDetail) to `j`, in this order.
template <typename Run> void append_run_setup(ordered_json& j, const Run& r)
{
  j["gfx"] = json_or_null(r.gfx);
  j["backend"] = json_or_null(r.backend);
  j["backend_version"] = json_or_null(r.backend_version);
  j["workload"] = {
      {"isl", json_or_null(r.isl)}, {"osl", json_or_null(r.osl)}, {"conc", json_or_null(r.conc)}};
  j["baseline_throughput_tok_s"] = json_or_null(r.baseline_throughput_tok_s);
  j["final_throughput_tok_s"] = json_or_null(r.final_throughput_tok_s);
  j["throughput_speedup"] = json_or_null(r.throughput_speedup);
}

ordered_json run_summary_json(const store::RunSummary& r)
{
  ordered_json j{
      {"run_id", r.run_id}, {"run_date", json_or_null(r.run_date)}, {"model", json_or_null(r.model)}};
  append_run_setup(j, r);
  j["validation"] = r.validation_class;
  j["counts"] = {
      {"rounds", r.rounds}, {"verdicts", r.verdicts}, {"attempts", r.attempts}, {"sources", r.sources}};
  j["retracted"] = r.retracted_reason.has_value();
  j["retracted_reason"] = json_or_null(r.retracted_reason);
  return j;
}

ordered_json show_json(const store::RunDetail& r)
{
  ordered_json kernels = ordered_json::array();
  for (const auto& k : r.kernels) {
    kernels.push_back({{"round", k.round},
                       {"short_name", k.short_name},
                       {"name", k.name},
                       {"pct_gpu_time", k.pct_gpu_time},
                       {"classification", json_or_null(k.classification)},
                       {"editable", json_or_null(k.editable)}});
  }
  ordered_json verdicts = ordered_json::array();
  for (const auto& v : r.verdicts) {
    verdicts.push_back({{"round", json_or_null(v.round)},
                        {"short_name", v.short_name},
                        {"op_class", v.op_class},
                        {"stage", v.stage},
                        {"source", v.source_kind},
                        {"roofline_pct", json_or_null(v.roofline_pct)},
                        {"target_eff", json_or_null(v.target_eff)},
                        {"attainable_speedup", json_or_null(v.attainable_speedup)},
                        {"expected_e2e_gain_pct", json_or_null(v.expected_e2e_gain_pct)},
                        {"headroom_class", v.headroom_class},
                        {"bound_type", v.bound_type},
                        {"confidence", v.confidence},
                        {"suspect", v.suspect},
                        {"disputed", v.disputed},
                        {"headroom_ratio", json_or_null(v.headroom_ratio)},
                        {"guidance", json_or_null(v.guidance)},
                        {"observed_limit", json_or_null(v.observed_limit)}});
  }
  ordered_json attempts = ordered_json::array();
  for (const auto& a : r.attempts) {
    const auto& p = a.prediction;
    ordered_json row{{"short_name", a.short_name},
                     {"lever", a.lever},
                     {"backend", json_or_null(a.backend)},
                     {"isolated_speedup", json_or_null(a.isolated_speedup)},
                     {"e2e_delta_pct", json_or_null(a.e2e_delta_pct)},
                     {"verdict", domain::to_string(a.verdict)},
                     {"sources", a.sources},
                     {"prediction",
                      {{"roofline_pct", json_or_null(p.roofline_pct)},
                       {"target_eff", json_or_null(p.target_eff)},
                       {"attainable_speedup", json_or_null(p.attainable_speedup)},
                       {"expected_e2e_gain_pct", json_or_null(p.expected_e2e_gain_pct)},
                       {"headroom_class", json_or_null(p.headroom_class)},
                       {"confidence", json_or_null(p.confidence)},
                       {"pct_gpu_time", json_or_null(p.pct_gpu_time)},
                       {"source", json_or_null(p.source_kind)},
                       {"stage", json_or_null(p.stage)},
                       {"bound_type", json_or_null(p.bound_type)}}},
                     {"attempt", a.attempt_key},
                     {"kind", domain::to_string(a.kind)},
                     {"candidate", json_or_null(a.candidate)},
                     {"candidate_short_name", json_or_null(a.candidate_short_name)},
                     {"task", json_or_null(a.task)},
                     {"winner_kind", json_or_null(a.winner_kind)},
                     {"round", json_or_null(a.round)},
                     {"measured", a.measured},
                     {"gate", json_or_null(a.gate)}};
    append_attempt_outcome(row, a);
    attempts.push_back(std::move(row));
  }
  ordered_json j{{"run_id", r.run_id},
                 {"run_date", json_or_null(r.run_date)},
                 {"model", json_or_null(r.model)},
                 {"model_arch_class", json_or_null(r.model_arch_class)}};
  append_run_setup(j, r);
  j["validation_status"] = json_or_null(r.validation_status);
  j["retracted"] = r.retracted_reason.has_value();
  j["retraction_history"] = retractions_json(r.retraction_history);
  j["kernels"] = std::move(kernels);
  j["verdicts"] = std::move(verdicts);
  j["attempts"] = std::move(attempts);
  return j;
}

void print_show_text(const store::RunDetail& r, std::ostream& out)
{
  fmt::print(out, "run        {}\n", r.run_id);
  fmt::print(out, "date       {}\n", opt_text(r.run_date));
  fmt::print(out, "model      {} ({}, {})\n", model_id(r.model), opt_text(r.model_arch_class),
             opt_text(r.model_dtype));
  fmt::print(out, "gpu        {} {}\n", opt_text(r.gfx), opt_text(r.device_name));
  fmt::print(out, "backend    {} {}  tp {}\n", opt_text(r.backend), opt_text(r.backend_version),
             r.tp ? std::to_string(*r.tp) : "-");
  fmt::print(out, "workload   isl/osl/conc {}\n", workload(r.isl, r.osl, r.conc));
  fmt::print(out, "throughput {} → {} tok/s ({}×), validation {}\n", throughput(r.baseline_throughput_tok_s),
             throughput(r.final_throughput_tok_s), fmt_speedup(r.throughput_speedup), r.validation_class);
  if (r.retracted_reason) {
    fmt::print(out, "RETRACTED  {} ({})\n", util::escape_for_display(*r.retracted_reason),
               opt_text(r.retracted_at));
  }
  if (!r.retraction_history.empty()) {
    fmt::print(out, "history\n");
    for (const auto& e : r.retraction_history) {
      fmt::print(out, "  {}  {}{}\n", e.at, e.action,
                 e.reason ? ": " + util::escape_for_display(*e.reason) : "");
    }
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& v : r.verdicts) {
    rows.push_back({v.round.value_or(v.phase.value_or("-")), v.short_name, v.op_class,
                    v.stage + (domain::is(v.source_kind, domain::SourceKind::measured) ? "/meas" : ""),
                    fmt_percent(v.pct_gpu_time), fmt_fraction(v.roofline_pct), fmt_fraction(v.target_eff),
                    fmt_speedup(v.attainable_speedup), fmt_percent(v.expected_e2e_gain_pct),
                    v.headroom_class + (v.suspect ? " (suspect)" : "") + (v.disputed ? " (disputed)" : ""),
                    v.bound_type});
  }
  using util::Align;
  fmt::print(out, "\nverdicts\n{}",
             util::render_table({{"round"},
                                 {"kernel"},
                                 {"op_class"},
                                 {"stage"},
                                 {"pct_gpu_time", Align::right},
                                 {"roofline_pct", Align::right},
                                 {"target_eff", Align::right},
                                 {"attainable_×", Align::right},
                                 {"exp_e2e_%", Align::right},
                                 {"headroom_class"},
                                 {"bound_type"}},
                                rows));
  rows.clear();
  for (const auto& a : r.attempts) {
    rows.push_back({a.short_name, a.lever, fmt_speedup(a.isolated_speedup), fmt_percent(a.e2e_delta_pct),
                    fmt_speedup(a.prediction.attainable_speedup), a.prediction.headroom_class.value_or("-"),
                    std::string(domain::to_string(a.verdict))});
  }
  fmt::print(out, "\nattempts\n{}",
             util::render_table({{"kernel"},
                                 {"lever"},
                                 {"isolated_×", Align::right},
                                 {"e2e_%", Align::right},
                                 {"pred_attainable_×", Align::right},
                                 {"pred_headroom"},
                                 {"verdict"}},
                                rows));
}

} // namespace

Result<int> run_runs(const RunsOptions& opts, Context& ctx)
{
  RFDB_TRY(check_date_window(opts.since, "--since", opts.until, "--until"));
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  store::RunFilter filter;
  filter.include = opts.retracted ? store::IncludeRetracted::only
                   : opts.all     ? store::IncludeRetracted::yes
                                  : store::IncludeRetracted::no;
  auto set = [](std::optional<std::string>& field, const std::string& v) {
    if (!v.empty()) {
      field = v;
    }
  };
  set(filter.gfx, opts.gfx);
  set(filter.model, opts.model);
  set(filter.backend, opts.backend);
  set(filter.since, opts.since);
  set(filter.until, opts.until);
  auto runs = store::list_runs(*db, filter);
  if (!runs) {
    return fail(runs.error());
  }
  if (domain::is(*format, domain::OutputFormat::json)) {
    ordered_json arr = ordered_json::array();
    for (const auto& r : *runs) {
      arr.push_back(run_summary_json(r));
    }
    fmt::print(ctx.out, "{}\n", arr.dump(2));
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : *runs) {
    rows.push_back({r.run_id + (r.retracted_reason ? " (retracted)" : ""), opt_text(r.run_date),
                    model_id(r.model), opt_text(r.gfx), opt_text(r.backend), workload(r.isl, r.osl, r.conc),
                    std::to_string(r.verdicts), std::to_string(r.attempts),
                    fmt_speedup(r.throughput_speedup)});
    if (opts.retracted) {
      rows.back().push_back(r.retracted_reason.value_or(""));
    }
  }
  using util::Align;
  std::vector<util::Column> columns = {{"run_id"},
                                       {"date"},
                                       {"model"},
                                       {"gfx"},
                                       {"backend"},
                                       {"isl/osl/conc"},
                                       {"verdicts", Align::right},
                                       {"attempts", Align::right},
                                       {"speedup_×", Align::right}};
  if (opts.retracted) {
    columns.push_back({"retracted_reason"});
  }
  fmt::print(ctx.out, "{}", util::render_table(columns, rows));
  if (!ctx.quiet) {
    fmt::print(ctx.err, "{} run(s) in {}\n", runs->size(), store::display_name(ctx.db_path));
  }
  return 0;
}

void add_runs_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<RunsOptions>();
  auto* cmd =
      app.add_subcommand("runs", "List stored runs (run_id, model, gfx, backend, workload, date, counts)");
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->add_flag("--all", opts->all, "Also list retracted runs");
  cmd->add_flag("--retracted", opts->retracted, "Only list retracted runs (with their reason)");
  cmd->add_option("--gfx", opts->gfx,
                  "Only runs on this GPU: a gfx target (gfx950) or a device name (MI355X)")
      ->type_name("GFX")
      ->transform(gfx_validator());
  cmd->add_option("--model", opts->model, "Only runs whose model name contains TEXT (any case)")
      ->type_name("TEXT")
      ->check(non_empty("part of a model name"));
  cmd->add_option("--backend", opts->backend, "Only runs on this serving stack, e.g. vllm")
      ->check(non_empty("a serving stack such as vllm"));
  cmd->add_option("--since", opts->since, "Only runs on or after DATE")->check(iso_date_validator());
  cmd->add_option("--until", opts->until, "Only runs on or before DATE")->check(iso_date_validator());
  cmd->footer("Examples:\n  rfdb runs\n  rfdb runs --gfx gfx950 --since 2026-06-01\n"
              "  rfdb runs --model qwen --backend vllm\n  rfdb runs --retracted\n"
              "  rfdb runs | jq '.[].run_id'          # JSON when piped");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_runs(*opts, ctx); }; });
}

Result<int> run_show(const ShowOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  auto opened = open_run_for_read(ctx, opts.run_id);
  if (!opened) {
    return fail(opened.error());
  }
  auto run = store::get_run(opened->db, opened->run_id);
  if (!run) {
    return fail(run.error());
  }
  if (!opts.attempt.empty()) {
    return show_attempt(opened->db, *run, opts.attempt, *format, ctx);
  }
  if (domain::is(*format, domain::OutputFormat::json)) {
    fmt::print(ctx.out, "{}\n", show_json(*run).dump(2));
  } else {
    print_show_text(*run, ctx.out);
  }
  return 0;
}

void add_show_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<ShowOptions>();
  auto* cmd = app.add_subcommand("show", "Show one run: kernels, roofline verdicts, attempts, retractions");
  cmd->add_option("RUN", opts->run_id, "Run id (eval dir basename) or any unique prefix of it")->required();
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->add_option("--attempt", opts->attempt,
                  "Only this attempt, in full with every cited file and JSON pointer (the ATTEMPT of a "
                  "playbook reference RUN#ATTEMPT)")
      ->type_name("KEY");
  cmd->footer("Examples:\n  rfdb show e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260612_101500_48213_k3xq\n"
              "  rfdb show e2e_Qwen-Qwen3.5          # a unique prefix is enough\n"
              "  rfdb show RUN --format json | jq '.attempts[] | {short_name, isolated_speedup}'\n"
              "  rfdb show RUN --attempt cand:cand_fused_moe_kernel\n\n"
              "JSON fields: docs/json.md.");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_show(*opts, ctx); }; });
}

} // namespace rfdb::cli
