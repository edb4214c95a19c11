// `rfdb runs` and `rfdb show`: list runs and print one run with its verdicts and attempts.
#include "cli/cmd_runs.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "cli/show_attempt.hpp"
#include "cli/show_finding.hpp"
#include "domain/noise.hpp"
#include "domain/roofline.hpp"
#include "domain/tags.hpp"
#include "domain/vocab.hpp"
#include "store/runs.hpp"
#include "store/stack.hpp"
#include "store/tags.hpp"
#include "util/table.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
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

// The stack columns `runs --stack` and `show` print, in this order; the
// backend's own package comes first under the column "backend_version".
constexpr std::array<std::string_view, 6> k_stack_columns = {"torch",  "rocm",   "aiter",
                                                             "triton", "flydsl", "rocprof-compute"};

// A stack row as a table shows it: the public version (local segment cut:
// 0.26.1.dev37), rocm its release, a path as is; "-" when the run lacks it.
std::string stack_cell(const store::StackRow* row)
{
  if (row == nullptr) {
    return "-";
  }
  if (row->via && row->release) {
    return *row->release;
  }
  auto v = domain::parse_version(row->raw);
  if (v) {
    return v->public_text();
  }
  if (auto found = domain::find_version(row->raw)) {
    return found->public_text();
  }
  return row->raw;
}

// {package: {raw, release, source, via}} by package (docs/json.md).
ordered_json stack_json(const std::vector<store::StackRow>& stack)
{
  ordered_json j = ordered_json::object();
  for (const auto& r : stack) {
    j[r.package] = {{"raw", r.raw},
                    {"release", json_or_null(r.release)},
                    {"source", r.source},
                    {"via", json_or_null(r.via)}};
  }
  return j;
}

// {key: value} by key (docs/json.md).
ordered_json tags_json(const std::vector<domain::Tag>& tags)
{
  ordered_json j = ordered_json::object();
  for (const auto& t : tags) {
    j[t.key] = t.value;
  }
  return j;
}

// [{action, key, value, at}] oldest first (docs/json.md).
ordered_json tag_history_json(const std::vector<store::TagEvent>& events)
{
  ordered_json arr = ordered_json::array();
  for (const auto& e : events) {
    arr.push_back({{"action", e.action}, {"key", e.key}, {"value", e.value}, {"at", e.at}});
  }
  return arr;
}

// The tags cell of `rfdb runs`: "quant=fp8 tp=8", "-" for none.
std::string tags_cell(const std::vector<domain::Tag>& tags)
{
  std::string out;
  for (const auto& t : tags) {
    out += (out.empty() ? "" : " ") + t.key + "=" + t.value;
  }
  return out.empty() ? "-" : util::escape_for_display(out);
}

// {pct, source}: the e2e band a run's deltas are judged against (docs/json.md).
ordered_json band_json(const domain::E2eBand& band)
{
  return {{"pct", band.pct}, {"source", domain::to_string(band.source)}};
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
  j["e2e_band"] = band_json(domain::run_e2e_band(r.measured_spread_pct));
  j["tags"] = tags_json(r.tags);
  return j;
}

std::string fixed(double value, int dp)
{
  return fmt::format("{:.{}f}", value, dp);
}

// An attempt's e2e delta against the run's band: {judgement, band_pct, band}
// (domain::judge_e2e), null without e2e evidence.
ordered_json e2e_judgement_json(const std::optional<double>& delta, const domain::E2eBand& band)
{
  if (!delta) {
    return nullptr;
  }
  return {{"judgement", domain::to_string(domain::judge_e2e(*delta, band))},
          {"band_pct", band.pct},
          {"band", domain::to_string(band.source)}};
}

// The e2e_vs_band cell: "beyond 0.94 % measured", "inside 0.50 % fixed",
// "loss ≤ -0.5 %" (the fixed edge); "-" without e2e evidence.
std::string e2e_vs_band(const std::optional<double>& delta, const domain::E2eBand& band)
{
  if (!delta) {
    return "-";
  }
  const auto j = domain::judge_e2e(*delta, band);
  if (j == domain::E2eJudgement::loss) {
    return fmt::format("loss ≤ -{:g} %", domain::k_e2e_noise_pct);
  }
  return fmt::format("{} {} % {}", domain::to_string(j), fixed(band.pct, 2), domain::to_string(band.source));
}

ordered_json show_json(const store::RunDetail& r)
{
  const auto spread = store::measured_spread_pct(r.bench);
  const domain::E2eBand band = domain::run_e2e_band(spread);
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
                        {"profiler_version", json_or_null(v.profiler_version)},
                        {"profiler_hbm_undercount", v.profiler_hbm_undercount},
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
                     {"gate", json_or_null(a.gate)},
                     {"e2e_judgement", e2e_judgement_json(a.e2e_delta_pct, band)}};
    append_attempt_outcome(row, a);
    attempts.push_back(std::move(row));
  }
  ordered_json j{{"run_id", r.run_id},
                 {"run_date", json_or_null(r.run_date)},
                 {"model", json_or_null(r.model)},
                 {"model_arch_class", json_or_null(r.model_arch_class)}};
  append_run_setup(j, r);
  j["validation_status"] = json_or_null(r.validation_status);
  j["stack"] = stack_json(r.stack);
  j["retracted"] = r.retracted_reason.has_value();
  j["retraction_history"] = retractions_json(r.retraction_history);
  j["tags"] = tags_json(r.tags);
  j["tag_history"] = tag_history_json(r.tag_history);
  j["kernels"] = std::move(kernels);
  j["verdicts"] = std::move(verdicts);
  j["attempts"] = std::move(attempts);
  ordered_json bench = ordered_json::array();
  for (const auto& b : r.bench) {
    bench.push_back({{"role", b.role},
                     {"label", json_or_null(b.label)},
                     {"samples", b.samples},
                     {"median_tok_s", json_or_null(b.median_tok_s)},
                     {"spread_pct", json_or_null(b.spread_pct)}});
  }
  j["noise"] = {{"e2e_band_pct", band.pct},
                {"e2e_band_source", domain::to_string(band.source)},
                {"measured_spread_pct", json_or_null(spread)},
                {"bench", std::move(bench)},
                {"limitations", r.limitations}};
  return j;
}

// `rfdb show`'s noise block: the e2e band that judges the run (its measured
// spread or the fixed band), each bench summary's samples, median and
// spread, and the run's stated limitations.
// A line under the verdicts when some are flagged profiler_hbm_undercount:
// how many, from which profiler versions, and what it means for priors.
void print_profiler_note(const store::RunDetail& r, std::ostream& out)
{
  std::size_t n = 0;
  std::vector<std::string> versions;
  for (const auto& v : r.verdicts) {
    if (!v.profiler_hbm_undercount) {
      continue;
    }
    ++n;
    const std::string text = util::escape_for_display(v.profiler_version.value_or("?"));
    if (std::find(versions.begin(), versions.end(), text) == versions.end()) {
      versions.push_back(text);
    }
  }
  if (n == 0) {
    return;
  }
  fmt::print(out,
             "profiler_hbm_undercount: {} measured verdict{} from rocprof-compute < {} on {} ({}): HBM bytes "
             "under-counted (TCC_BUBBLE, GEAK PR #468), so roofline_pct reads low and headroom high; "
             "`rfdb priors` leaves their observations out unless --include-biased-profiler\n",
             n, n == 1 ? "" : "s", domain::k_hbm_fixed_profiler_version, domain::k_hbm_undercount_gfx,
             util::join(versions, "; "));
}

void print_noise_text(const store::RunDetail& r, std::ostream& out)
{
  const auto spread = store::measured_spread_pct(r.bench);
  const domain::E2eBand band = domain::run_e2e_band(spread);
  fmt::print(
      out, "\nnoise      e2e band {} % ({})\n", fixed(band.pct, 2),
      band.source == domain::BandSource::measured
          ? fmt::format("the run's measured spread, wider than the fixed {:g} %", domain::k_e2e_noise_pct)
      : spread ? fmt::format("the fixed band; the run's measured spread is {} %", fixed(*spread, 2))
               : std::string("the fixed band; no measured spread"));
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : r.bench) {
    std::vector<std::string> samples;
    for (const double v : b.samples) {
      samples.push_back(fixed(v, 1));
    }
    rows.push_back({b.role, b.label.value_or("-"), std::to_string(b.samples.size()),
                    b.median_tok_s ? fixed(*b.median_tok_s, 1) : "-",
                    b.spread_pct ? fixed(*b.spread_pct, 2) : "-",
                    samples.empty() ? "-" : util::join(samples, " ")});
  }
  using util::Align;
  if (!rows.empty()) {
    fmt::print(out, "{}",
               util::render_table({{"bench"},
                                   {"label"},
                                   {"samples", Align::right},
                                   {"median_tok_s", Align::right},
                                   {"spread_%", Align::right},
                                   {"throughput_tok_s"}},
                                  rows));
  }
  fmt::print(out, "limitations{}\n", r.limitations.empty() ? " none stated" : "");
  for (const auto& l : r.limitations) {
    fmt::print(out, "  - {}\n", util::escape_for_display(l));
  }
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
  if (!r.stack.empty()) {
    std::string line;
    for (const auto& row : r.stack) {
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", row.package, stack_cell(&row));
    }
    fmt::print(out, "stack      {}\n", util::escape_for_display(line));
  }
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
  if (!r.tags.empty()) {
    fmt::print(out, "tags       {}\n", tags_cell(r.tags));
  }
  if (!r.tag_history.empty()) {
    fmt::print(out, "tag history\n");
    for (const auto& e : r.tag_history) {
      fmt::print(out, "  {}  {} {}={}\n", e.at, e.action, e.key, util::escape_for_display(e.value));
    }
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& v : r.verdicts) {
    rows.push_back({v.round.value_or(v.phase.value_or("-")), v.short_name, v.op_class,
                    v.stage + (domain::is(v.source_kind, domain::SourceKind::measured) ? "/meas" : ""),
                    fmt_percent(v.pct_gpu_time), fmt_fraction(v.roofline_pct), fmt_fraction(v.target_eff),
                    fmt_speedup(v.attainable_speedup), fmt_percent(v.expected_e2e_gain_pct),
                    v.headroom_class + (v.suspect ? " (suspect)" : "") + (v.disputed ? " (disputed)" : "") +
                        (v.profiler_hbm_undercount ? " (profiler_hbm_undercount)" : ""),
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
  print_profiler_note(r, out);
  rows.clear();
  const domain::E2eBand band = domain::run_e2e_band(store::measured_spread_pct(r.bench));
  for (const auto& a : r.attempts) {
    rows.push_back({a.short_name, a.lever, fmt_speedup(a.isolated_speedup), fmt_percent(a.e2e_delta_pct),
                    e2e_vs_band(a.e2e_delta_pct, band), fmt_speedup(a.prediction.attainable_speedup),
                    a.prediction.headroom_class.value_or("-"), std::string(domain::to_string(a.verdict))});
  }
  fmt::print(out, "\nattempts\n{}",
             util::render_table({{"kernel"},
                                 {"lever"},
                                 {"isolated_×", Align::right},
                                 {"e2e_%", Align::right},
                                 {"e2e_vs_band"},
                                 {"pred_attainable_×", Align::right},
                                 {"pred_headroom"},
                                 {"verdict"}},
                                rows));
  print_noise_text(r, out);
}

// The e2e_band_% cell of `rfdb runs`: the band and which decided it,
// "0.94 measured" (the run's spread, wider than the fixed band) or "0.50 fixed".
std::string e2e_band_cell(const std::optional<double>& spread)
{
  const domain::E2eBand band = domain::run_e2e_band(spread);
  return fixed(band.pct, 2) + " " + std::string(domain::to_string(band.source));
}

// `runs --stack` as a table: identity, then the backend's version and the stack columns.
void print_stack_table(const std::vector<store::RunSummary>& runs, std::ostream& out)
{
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : runs) {
    std::vector<std::string> row{r.run_id + (r.retracted_reason ? " (retracted)" : ""), opt_text(r.run_date),
                                 opt_text(r.gfx), opt_text(r.backend),
                                 stack_cell(store::find_package(r.stack, "backend", r.backend))};
    for (const auto& name : k_stack_columns) {
      row.push_back(stack_cell(store::find_package(r.stack, std::string(name), r.backend)));
    }
    rows.push_back(std::move(row));
  }
  std::vector<util::Column> columns = {{"run_id"}, {"date"}, {"gfx"}, {"backend"}, {"backend_version"}};
  for (const auto& name : k_stack_columns) {
    columns.push_back({std::string(name)});
  }
  fmt::print(out, "{}", util::render_table(columns, rows));
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
  for (const auto& text : opts.stack) {
    auto spec = domain::parse_stack_spec(text);
    if (!spec) {
      return fail(std::move(spec).error().with_hint(
          "e.g. --stack 'vllm>=0.26' --stack 'torch<2.10'; `rfdb runs --stack` prints every run's stack"));
    }
    filter.stack.push_back(std::move(*spec));
  }
  auto tags = domain::parse_tags(opts.tags);
  if (!tags) {
    return fail(std::move(tags).error().with_hint("e.g. --tag quant=fp8 --tag tp=8 (all must hold)"));
  }
  filter.tags = std::move(*tags);
  RFDB_TRY(warn_unstated_stack_packages(*db, filter.stack, ctx));
  auto runs = store::list_runs(*db, filter);
  if (!runs) {
    return fail(runs.error());
  }
  if (domain::is(*format, domain::OutputFormat::json)) {
    ordered_json arr = ordered_json::array();
    for (const auto& r : *runs) {
      arr.push_back(run_summary_json(r));
      if (opts.show_stack) {
        arr.back()["stack"] = stack_json(r.stack);
      }
    }
    fmt::print(ctx.out, "{}\n", arr.dump(2));
    return 0;
  }
  if (opts.show_stack) {
    print_stack_table(*runs, ctx.out);
    if (!ctx.quiet) {
      fmt::print(ctx.err, "{} run(s) in {}\n", runs->size(), store::display_name(ctx.db_path));
    }
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : *runs) {
    rows.push_back({r.run_id + (r.retracted_reason ? " (retracted)" : ""), opt_text(r.run_date),
                    model_id(r.model), opt_text(r.gfx), opt_text(r.backend), workload(r.isl, r.osl, r.conc),
                    std::to_string(r.verdicts), std::to_string(r.attempts), fmt_speedup(r.throughput_speedup),
                    e2e_band_cell(r.measured_spread_pct), tags_cell(r.tags)});
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
                                       {"speedup_×", Align::right},
                                       {"e2e_band_%", Align::right},
                                       {"tags"}};
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
  auto* cmd = app.add_subcommand(
      "runs", "List stored runs (run_id, model, gfx, backend, workload, date, counts, tags)");
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
  auto* stack =
      cmd->add_option(
             "--stack", opts->stack,
             "Print the stack columns (backend version, torch, rocm, aiter, triton, flydsl, "
             "rocprof-compute); with SPEC, also only runs whose stack satisfies it, e.g. 'vllm>=0.26' "
             "(repeatable, all must hold; PEP 440 order, dev builds before their release; "
             "'backend' names the run's own backend)")
          ->type_name("[SPEC]")
          ->expected(0, 1)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
          ->check(stack_spec_validator());
  cmd->add_option("--tag", opts->tags,
                  "Only runs tagged key=value (`rfdb tag`; repeatable, all must hold; exact, case-sensitive)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false); // one tag per --tag: a PATH after it stays a PATH
  cmd->footer("Examples:\n  rfdb runs\n  rfdb runs --gfx gfx950 --since 2026-06-01\n"
              "  rfdb runs --tag quant=fp8 --tag tp=8\n"
              "  rfdb runs --model qwen --backend vllm\n  rfdb runs --retracted\n"
              "  rfdb runs --stack                     # the stack columns\n"
              "  rfdb runs --stack 'vllm>=0.26' --stack 'rocm==7.1.2'\n"
              "  rfdb runs | jq '.[].run_id'          # JSON when piped");
  cmd->final_callback([opts, stack, &ctx, &runner] {
    opts->show_stack = stack->count() > 0;
    std::erase_if(opts->stack, [](const std::string& s) { return s.empty(); });
    runner = [opts, &ctx] { return run_runs(*opts, ctx); };
  });
}

Result<int> run_show(const ShowOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  if (!opts.finding.empty()) { // one GEAK kb record (cli/show_finding.hpp)
    if (opts.run_given || !opts.attempt.empty()) {
      return fail(make_error(ErrorCode::usage, "--finding takes no RUN and no --attempt")
                      .with_hint("rfdb show --finding ID"));
    }
    return show_finding(opts.finding, *format, ctx);
  }
  if (!opts.run_given) {
    return fail(make_error(ErrorCode::usage, "RUN is required").with_hint("see rfdb show --help"));
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
  auto* cmd =
      app.add_subcommand("show", "Show one run: kernels, roofline verdicts, attempts, retractions, tags");
  auto* run = cmd->add_option("RUN", opts->run_id, "Run id (eval dir basename) or any unique prefix of it");
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->add_option("--attempt", opts->attempt,
                  "Only this attempt, in full with every cited file and JSON pointer (the ATTEMPT of a "
                  "playbook reference RUN#ATTEMPT)")
      ->type_name("KEY");
  cmd->add_option("--finding", opts->finding,
                  "Instead of a run, one GEAK kb record (docs/kb.md): its number, session id or exp id, "
                  "or a unique prefix; with its identity, metric, retired status and attestation ledger")
      ->type_name("ID");
  cmd->footer("Examples:\n  rfdb show e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260612_101500_48213_k3xq\n"
              "  rfdb show e2e_Qwen-Qwen3.5          # a unique prefix is enough\n"
              "  rfdb show RUN --format json | jq '.attempts[] | {short_name, isolated_speedup}'\n"
              "  rfdb show RUN --attempt cand:cand_fused_moe_kernel\n"
              "  rfdb show --finding geak-fused_moe_kernel   # a GEAK kb record\n\n"
              "JSON fields: docs/json.md.");
  cmd->final_callback([opts, run, &ctx, &runner] {
    opts->run_given = run->count() > 0;
    runner = [opts, &ctx] { return run_show(*opts, ctx); };
  });
}

} // namespace rfdb::cli
