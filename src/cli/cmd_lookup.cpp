// `rfdb lookup`: options, the evidence of the stored runs, and the table or JSON answer.
#include "cli/cmd_lookup.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "cli/show_attempt.hpp"
#include "domain/normalize.hpp"
#include "domain/vocab.hpp"
#include "report/lookup.hpp"
#include "report/lookup_store.hpp"
#include "util/table.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <memory>
#include <set>

namespace rfdb::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

std::optional<std::string> given(const std::string& s)
{
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

std::optional<int> parse_int(std::string_view s)
{
  int v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v <= 0) {
    return std::nullopt;
  }
  return v;
}

std::string stars(int n)
{
  std::string s;
  for (int i = 0; i < n; ++i) {
    s += "\u2605";
  }
  return s;
}

std::string range(const std::optional<double>& med, const std::optional<double>& lo,
                  const std::optional<double>& hi, const char* unit, bool sign)
{
  if (!med) {
    return "-";
  }
  const auto f = [&](double v) {
    return sign ? fmt::format("{:+.2f}{}", v, unit) : fmt::format("{:.3f}{}", v, unit);
  };
  if (*lo == *hi) {
    return f(*med);
  }
  return fmt::format("{} [{}, {}]", f(*med), f(*lo), f(*hi));
}

ordered_json opt_number(const std::optional<double>& v)
{
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json answer_json(const report::LookupQuery& q, const report::LookupAnswer& a)
{
  ordered_json levers = ordered_json::array();
  for (const auto& l : a.levers) {
    levers.push_back({
        {"lever", l.lever},
        {"lever_key", l.lever_key},
        {"lever_kind", l.lever_kind},
        {"apply",
         {{"kind", l.apply_kind},
          {"text", l.apply},
          {"files", l.files},
          {"section", l.apply_section.empty()
                          ? ordered_json(nullptr)
                          : ordered_json{{"file", l.files.front()},
                                         {"changes", l.apply_section},
                                         {"lines", {l.apply_first_line, l.apply_last_line}}}},
          {"export", l.export_command.empty() ? ordered_json(nullptr) : ordered_json(l.export_command)},
          {"show", l.show_command.empty() ? ordered_json(nullptr) : ordered_json(l.show_command)}}},
        {"isolated_speedup",
         {{"median", opt_number(l.iso_median)},
          {"min", opt_number(l.iso_min)},
          {"max", opt_number(l.iso_max)}}},
        {"e2e_gain_pct",
         {{"median", opt_number(l.e2e_median_pct)},
          {"min", opt_number(l.e2e_min_pct)},
          {"max", opt_number(l.e2e_max_pct)}}},
        {"tier", l.stars},
        {"tier_reason", l.tier_reason},
        {"reproductions", l.reproductions},
        {"content_signatures", l.signatures},
        {"sources", {{"runs", l.runs}, {"attempts", l.refs}, {"all", l.sources}}},
        {"attempts", l.attempts},
        {"freshness", l.freshness.empty() ? ordered_json(nullptr) : ordered_json(l.freshness)},
        {"stack", l.stack.empty() ? ordered_json(nullptr) : ordered_json(l.stack)},
        {"kb_records", l.kb_records},
        {"attestations",
         {{"validated", l.validations},
          {"failed", l.failures},
          {"not_reproduced", l.not_reproduced},
          {"inapplicable", l.inapplicable}}},
        {"retired", l.retired},
        {"retired_why", l.retired ? ordered_json(l.retired_why) : ordered_json(nullptr)},
        {"techniques", l.techniques},
        {"throughput_tok_s", l.throughput_tok_s ? ordered_json{{"measured", *l.throughput_tok_s},
                                                               {"baseline", opt_number(l.baseline_tok_s)}}
                                                : ordered_json(nullptr)},
    });
  }
  return ordered_json{
      {"query",
       {{"kernel", q.kernel},
        {"gfx", q.gfx},
        {"backend", json_or_null(q.backend)},
        {"dtype", json_or_null(q.dtype)},
        {"shape", json_or_null(q.shape)},
        {"case", json_or_null(q.case_name)},
        {"model", json_or_null(q.model)},
        {"workload",
         q.isl ? ordered_json{{"isl", *q.isl}, {"osl", *q.osl}, {"conc", *q.conc}} : ordered_json(nullptr)}}},
      {"match", a.match == report::KeyMatch::exact ? "exact" : "normalized"},
      {"kernels", a.kernels},
      {"attempts", a.attempts},
      {"kb_records", a.kb_records},
      {"levers", std::move(levers)},
      {"notes", a.notes},
  };
}

void print_table(const report::LookupQuery& q, const report::LookupAnswer& a, std::ostream& out)
{
  fmt::print(out, "{} on {} ({} match: {}); {} attempt(s){} on the key\n", q.kernel, q.gfx,
             a.match == report::KeyMatch::exact ? "exact" : "normalized", fmt::join(a.kernels, ", "),
             a.attempts, a.kb_records > 0 ? fmt::format(", {} kb record(s)", a.kb_records) : std::string());
  for (const auto& n : a.notes) {
    fmt::print(out, "note: {}\n", n);
  }
  if (a.levers.empty()) {
    fmt::print(out, "no measured win on this key\n");
    return;
  }
  std::vector<std::vector<std::string>> rows;
  int rank = 0;
  for (const auto& l : a.levers) {
    rows.push_back(
        {std::to_string(++rank), l.retired ? "retired" : stars(l.stars), l.lever,
         range(l.iso_median, l.iso_min, l.iso_max, "x", false),
         range(l.e2e_median_pct, l.e2e_min_pct, l.e2e_max_pct, "%", true), std::to_string(l.reproductions),
         l.kb_records.empty()
             ? "-"
             : fmt::format("{}/{}/{}/{}", l.validations, l.failures, l.not_reproduced, l.inapplicable),
         l.freshness, l.stack});
  }
  out << util::render_table({{"#", util::Align::right},
                             {"tier"},
                             {"lever"},
                             {"isolated", util::Align::right},
                             {"e2e", util::Align::right},
                             {"repro", util::Align::right},
                             {"v/f/nr/ina", util::Align::right},
                             {"newest"},
                             {"stack"}},
                            rows);
  rank = 0;
  for (const auto& l : a.levers) {
    fmt::print(out, "\n{}. {} ({})\n", ++rank, l.lever, l.tier_reason);
    fmt::print(out, "   apply: {} {}\n", l.apply_kind, l.apply);
    if (!l.export_command.empty()) {
      fmt::print(out, "   get it: {}\n", l.export_command);
    }
    if (!l.show_command.empty()) {
      fmt::print(out, "   record: {}\n", l.show_command);
    }
    if (!l.techniques.empty()) {
      fmt::print(out, "   techniques: {}\n", fmt::join(l.techniques, ", "));
    }
    if (!l.kb_records.empty()) {
      fmt::print(out, "   attestations: {} validated, {} failed, {} not reproduced, {} inapplicable\n",
                 l.validations, l.failures, l.not_reproduced, l.inapplicable);
    }
    if (l.throughput_tok_s) {
      fmt::print(out, "   e2e throughput: {:.1f} tok/s vs baseline {}\n", *l.throughput_tok_s,
                 l.baseline_tok_s ? fmt::format("{:.1f} tok/s", *l.baseline_tok_s) : std::string("?"));
    }
    if (!l.signatures.empty()) {
      fmt::print(out, "   signature: {}\n", fmt::join(l.signatures, ", "));
    }
    fmt::print(out, "   sources: {}\n", fmt::join(l.sources, ", "));
  }
}

// The answer on a kernel no lever was tried on that was a profile head: exit 0, no levers, and
// where it stood (docs/lookup.md, "A head no run tried").
void print_untried(const report::LookupQuery& q, const std::vector<report::LookupHead>& heads,
                   const std::string& format, std::ostream& out)
{
  std::set<std::string> runs;
  for (const auto& h : heads) {
    runs.insert(h.run_id);
  }
  const std::string note =
      fmt::format("no lever stored for {} on {}: no run tried one; it was a profile head in {} run{}",
                  heads.front().short_name, heads.front().gfx, runs.size(), runs.size() == 1 ? "" : "s");
  if (format == "json") {
    ordered_json arr = ordered_json::array();
    for (const auto& h : heads) {
      arr.push_back({{"run_id", h.run_id},
                     {"run_date", h.run_date},
                     {"round", h.round ? ordered_json(*h.round) : ordered_json(nullptr)},
                     {"short_name", h.short_name},
                     {"op_class", h.op_class},
                     {"source", h.source_kind},
                     {"pct_gpu_time", opt_number(h.pct_gpu_time)},
                     {"roofline_pct", opt_number(h.roofline_pct)},
                     {"target_eff", opt_number(h.target_eff)},
                     {"expected_e2e_gain_pct", opt_number(h.expected_e2e_gain_pct)},
                     {"headroom_class", h.headroom_class},
                     {"bound_type", h.bound_type}});
    }
    ordered_json doc = {{"kernel", q.kernel},
                        {"gfx", heads.front().gfx},
                        {"levers", ordered_json::array()},
                        {"untried_heads", std::move(arr)},
                        {"notes", ordered_json::array({note})}};
    fmt::print(out, "{}\n", doc.dump(2));
    return;
  }
  fmt::print(out, "{}\n\n", util::escape_for_display(note));
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : heads) {
    rows.push_back({h.run_id, h.run_date, h.round.value_or("-"), h.op_class, h.source_kind,
                    fmt_percent(h.pct_gpu_time), fmt_fraction(h.roofline_pct), fmt_fraction(h.target_eff),
                    fmt_percent(h.expected_e2e_gain_pct), h.headroom_class, h.bound_type});
  }
  out << util::render_table({{"run", util::Align::left},
                             {"date", util::Align::left},
                             {"round", util::Align::left},
                             {"op_class", util::Align::left},
                             {"source", util::Align::left},
                             {"pct_gpu_time", util::Align::right},
                             {"roofline_pct", util::Align::right},
                             {"target_eff", util::Align::right},
                             {"exp_e2e_%", util::Align::right},
                             {"headroom_class", util::Align::left},
                             {"bound_type", util::Align::left}},
                            rows);
}

} // namespace

Result<int> run_lookup(const LookupOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  report::LookupQuery q;
  q.kernel = opts.kernel;
  q.gfx = opts.gfx;
  q.backend = given(opts.backend);
  q.dtype = given(opts.dtype);
  if (q.dtype && !report::well_formed_dtype(*q.dtype)) {
    return fail(make_error(ErrorCode::usage,
                           fmt::format("--dtype '{}': not a precision identifier (a letter, then letters and "
                                       "digits joined by single _ or -, at most 32 characters)",
                                       util::escape_for_display(*q.dtype)))
                    .with_hint("e.g. --dtype fp8, bf16, fp8_w8a8 or int4_w4a16"));
  }
  q.shape = given(opts.shape);
  if (q.shape) {
    auto shape = report::normalize_shape(*q.shape);
    if (!shape) {
      return fail(make_error(ErrorCode::usage,
                             fmt::format("--shape '{}': expected 1 to 4 positive integers (each at most "
                                         "2147483647) separated by ',' or 'x', no spaces (M,N,K)",
                                         util::escape_for_display(*q.shape)))
                      .with_hint("e.g. --shape 16,4096,4096 or --shape 16x4096x4096"));
    }
    q.shape = std::move(shape);
  }
  q.case_name = given(opts.case_name);
  q.model = given(opts.model);
  if (!opts.workload.empty()) {
    const auto a = opts.workload.find('/');
    const auto b = a == std::string::npos ? a : opts.workload.find('/', a + 1);
    if (b == std::string::npos) {
      return fail(
          make_error(ErrorCode::usage, fmt::format("--workload '{}': expected ISL/OSL/CONC", opts.workload))
              .with_hint("e.g. --workload 1024/1024/64"));
    }
    q.isl = parse_int(std::string_view(opts.workload).substr(0, a));
    q.osl = parse_int(std::string_view(opts.workload).substr(a + 1, b - a - 1));
    q.conc = parse_int(std::string_view(opts.workload).substr(b + 1));
    if (!q.isl || !q.osl || !q.conc) {
      return fail(make_error(ErrorCode::usage,
                             fmt::format("--workload '{}': ISL, OSL and CONC must be positive integers",
                                         opts.workload))
                      .with_hint("e.g. --workload 1024/1024/64"));
    }
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  std::vector<report::LookupHead> all_heads;
  auto candidates = report::run_lookup_candidates(*db, &all_heads);
  if (!candidates) {
    return fail(candidates.error());
  }
  auto kb = report::kb_lookup_candidates(*db);
  if (!kb) {
    return fail(kb.error());
  }
  candidates->insert(candidates->end(), std::make_move_iterator(kb->begin()),
                     std::make_move_iterator(kb->end()));
  const auto answer = report::lookup(q, *candidates);
  const std::string gfx = domain::gfx_key(q.gfx);
  const std::string folded = report::fold_kernel_name(q.kernel);
  const bool tried =
      std::any_of(candidates->begin(), candidates->end(), [&](const report::LookupCandidate& c) {
        return c.gfx == gfx && report::fold_kernel_name(c.kernel) == folded;
      });
  if (!tried && answer.levers.empty()) {
    // A profile head no run tried a lever on (and no kb record names) is known, not a miss: say
    // where it stood.
    const auto heads = report::lookup_heads(all_heads, q.kernel, gfx);
    if (!heads.empty()) {
      print_untried(q, heads, domain::is(*format, domain::OutputFormat::json) ? "json" : "table", ctx.out);
      return 0;
    }
  }
  if (answer.match == report::KeyMatch::miss) {
    return fail(make_error(ErrorCode::not_found, fmt::format("no stored evidence for kernel '{}'", q.kernel))
                    .with_hint(answer.nearest.empty()
                                   ? std::string("the store holds no kernel attempts (rfdb runs)")
                                   : fmt::format("nearest kernels: {}", fmt::join(answer.nearest, ", "))));
  }
  if (!answer.other_gfx.empty()) {
    return fail(make_error(ErrorCode::not_found, fmt::format("kernel '{}' has no stored evidence on {}",
                                                             fmt::join(answer.kernels, ", "), q.gfx))
                    .with_hint(fmt::format("it has evidence on {} (a lever does not carry over between GPUs)",
                                           fmt::join(answer.other_gfx, ", "))));
  }
  if (domain::is(*format, domain::OutputFormat::json)) {
    fmt::print(ctx.out, "{}\n", answer_json(q, answer).dump(2));
  } else {
    print_table(q, answer, ctx.out);
  }
  return 0;
}

void add_lookup_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<LookupOptions>();
  auto* cmd = app.add_subcommand(
      "lookup",
      "The best known levers for a kernel on a GPU: how to apply each, its measured effect and sources");
  cmd->add_option(
         "KERNEL", opts->kernel,
         "The kernel (Top-N short_name, or a kb record's kernel_name); case and _ - . separators are folded")
      ->required()
      ->check(non_empty("a kernel name"));
  cmd->add_option("--gfx", opts->gfx, "The GPU: a gfx target (gfx950) or a device name (MI355X)")
      ->required()
      ->type_name("GFX")
      ->transform(gfx_validator());
  cmd->add_option("--backend", opts->backend,
                  "Only levers of this backend (triton, ck, aiter …; unstated matches)")
      ->check(non_empty("a backend such as triton"));
  cmd->add_option("--dtype", opts->dtype,
                  "Only evidence of this precision (GEAK's rule: fp8 = float8 = f8, fp8 matches fp8_w8a8; "
                  "unstated matches)")
      ->check(non_empty("a dtype such as fp8"));
  auto* shape =
      cmd->add_option(
             "--shape", opts->shape,
             "Only evidence stating this shape M,N,K (unstated kept; a note says what cannot be narrowed)")
          ->type_name("M,N,K")
          ->check(non_empty("a shape M,N,K"));
  cmd->add_option("--case", opts->case_name,
                  "Only evidence stating this case name (unstated kept; a note says what cannot be narrowed)")
      ->excludes(shape)
      ->check(non_empty("a case name"));
  cmd->add_option("--model", opts->model, "Only evidence from runs whose model name contains TEXT (any case)")
      ->type_name("TEXT")
      ->check(non_empty("part of a model name"));
  cmd->add_option("--workload", opts->workload, "Only evidence from runs with this workload")
      ->type_name("ISL/OSL/CONC")
      ->check(non_empty("ISL/OSL/CONC"));
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->footer("Evidence: the stored runs' attempts and GEAK kb records (rfdb ingest of a kb store or\n"
              "kb_artifacts tree). Levers are ranked: not retired, measured, tier, validated or\n"
              "reproduced, median isolated speedup, median e2e gain, reproductions (docs/lookup.md).\n"
              "A kernel name that matches nothing names the nearest stored kernels and exits 1; it\n"
              "never answers for another kernel.\n\n"
              "Examples:\n"
              "  rfdb lookup _w8a8_block_fp8_matmul --gfx gfx950\n"
              "  rfdb lookup W8A8-Block-FP8-Matmul --gfx MI355X --dtype fp8   # normalized name\n"
              "  rfdb lookup fused_moe_kernel --gfx gfx950 --backend triton\n"
              "  rfdb lookup kentry --gfx gfx950 --model Qwen3.5 --workload 1024/1024/64\n"
              "  rfdb lookup _fwd_kernel --gfx gfx950 | jq '.levers[0].apply'   # JSON when piped");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_lookup(*opts, ctx); }; });
}

} // namespace rfdb::cli
