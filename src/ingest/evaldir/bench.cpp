// bench_summary.json (docs/artifacts.md, "The files, in the order a run writes them") → one bench_summaries
// row: throughput tok/s (median, spread percent), TTFT and TPOT medians in ms, and its per-repetition
// throughputs (all_throughput → bench_samples), and bench_runs.jsonl (one timed round a line), the samples of
// a summary that lists none. The stored spread is decided from the stated one and the samples
// (decide_spread).
#include "domain/noise.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace rfdb::ingest {

using detail::add_file;
using detail::k_root;
using detail::require_object;

namespace {

Result<BenchSummary> bench_summary_impl(const json& doc, std::string_view rel_path,
                                        std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  detail::warn_no_field_read(doc,
                             {"throughput_tok_s_median", "output_throughput_tok_s_median",
                              "throughput_tok_s_spread_pct", "output_throughput_tok_s_spread_pct",
                              "ttft_ms_median", "tpot_ms_median", "runs", "metric_basis", "measurement_mode"},
                             "the summary holds no measurement", rel_path, warnings);
  BenchSummary b;
  RFDB_TRY_ASSIGN(b.throughput_tok_s_median,
                  detail::get_non_negative(doc, "throughput_tok_s_median", k_root));
  if (!b.throughput_tok_s_median) {
    RFDB_TRY_ASSIGN(b.throughput_tok_s_median,
                    detail::get_non_negative(doc, "output_throughput_tok_s_median", k_root));
  }
  RFDB_TRY_ASSIGN(b.throughput_spread_pct, get_double(doc, "throughput_tok_s_spread_pct", k_root));
  if (b.throughput_spread_pct) {
    b.spread_pointer = "/throughput_tok_s_spread_pct";
  } else {
    RFDB_TRY_ASSIGN(b.throughput_spread_pct, get_double(doc, "output_throughput_tok_s_spread_pct", k_root));
    if (b.throughput_spread_pct) {
      b.spread_pointer = "/output_throughput_tok_s_spread_pct";
    }
  }
  RFDB_TRY_ASSIGN(b.ttft_ms_median, get_double(doc, "ttft_ms_median", k_root));
  RFDB_TRY_ASSIGN(b.tpot_ms_median, get_double(doc, "tpot_ms_median", k_root));
  RFDB_TRY_ASSIGN(b.runs_count, get_int(doc, "runs", k_root));
  RFDB_TRY_ASSIGN(b.metric_basis, get_string(doc, "metric_basis", k_root));
  RFDB_TRY_ASSIGN(b.measurement_mode, get_string(doc, "measurement_mode", k_root));
  if (const auto it = doc.find("all_throughput"); it != doc.end() && !it->is_null()) {
    if (!it->is_array()) {
      detail::warn(warnings, rel_path, "/all_throughput",
                   fmt::format("expected an array of throughputs, got {}; ignored", describe_value(*it)));
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        const json& e = (*it)[i];
        if (e.is_number() && std::isfinite(e.get<double>()) && e.get<double>() >= 0.0) {
          b.throughput_samples.push_back(e.get<double>());
        } else {
          detail::warn(warnings, rel_path, child_pointer("/all_throughput", i),
                       fmt::format("expected a non-negative throughput, got {}; ignored", describe_value(e)));
        }
      }
    }
  }
  // With no samples this refuses an implausible stated spread only; derive_run decides again
  // once bench_runs.jsonl supplies the samples.
  b.throughput_spread_pct =
      decide_spread(b.throughput_spread_pct, b.spread_pointer, b.throughput_samples, rel_path, warnings);
  return b;
}

// The throughput keys of one bench_runs.jsonl round, in the order tried.
constexpr std::array<std::string_view, 3> k_output_keys{"output_throughput", "output_token_throughput",
                                                        "output_throughput_tok_s"};
constexpr std::array<std::string_view, 3> k_total_keys{"total_token_throughput", "total_throughput",
                                                       "total_token_throughput_tok_s"};

// The first of `keys` the round holds as a non-negative finite number; a
// key of another type warns and the next is tried.
std::optional<double> round_throughput(const json& round, std::span<const std::string_view> keys,
                                       const std::string& where, std::vector<Warning>& warnings)
{
  for (const auto key : keys) {
    const auto it = round.find(key);
    if (it == round.end() || it->is_null()) {
      continue;
    }
    if (it->is_number() && std::isfinite(it->get<double>()) && it->get<double>() >= 0.0) {
      return it->get<double>();
    }
    detail::warn(warnings, where, "/" + std::string(key),
                 fmt::format("expected a non-negative throughput, got {}; ignored", describe_value(*it)));
  }
  return std::nullopt;
}

} // namespace

std::optional<double> decide_spread(std::optional<double> stated, std::string_view stated_pointer,
                                    std::span<const double> samples, std::string_view rel_path,
                                    std::vector<Warning>& warnings)
{
  const std::string pointer(stated_pointer.empty() ? "/throughput_tok_s_spread_pct" : stated_pointer);
  const std::optional<double> computed = samples.size() >= 2 ? domain::spread_pct(samples) : std::nullopt;
  if (stated && !(std::isfinite(*stated) && *stated >= 0.0 && *stated <= domain::k_spread_max_pct)) {
    detail::warn(warnings, rel_path, pointer,
                 fmt::format("implausible spread {} % (expected 0–{} %); refused, {}", *stated,
                             domain::k_spread_max_pct,
                             computed ? fmt::format("the spread of the {} samples, {:.2f} %, is kept",
                                                    samples.size(), *computed)
                                      : std::string("no spread is stored")));
    stated.reset();
  }
  if (computed && !(std::isfinite(*computed) && *computed <= domain::k_spread_max_pct)) {
    // An outlier sample (1e308 tok/s, a dead round at 0) makes the spread absurd: the band
    // would swallow every win of the run. The samples stay stored and shown; the spread is
    // not taken from them.
    detail::warn(warnings, rel_path, "",
                 fmt::format("the {} samples spread over more than {} % of their median (an outlier "
                             "round?); their spread is not used, {}",
                             samples.size(), domain::k_spread_max_pct,
                             stated ? fmt::format("the stated {:.2f} % is kept", *stated)
                                    : std::string("no spread is stored")));
    return stated;
  }
  if (!computed) {
    return stated;
  }
  if (!stated) {
    return computed;
  }
  if (std::abs(*stated - *computed) <= domain::k_spread_rounding_pct + 1e-9) {
    return stated; // the same spread, rounded by the producer to 2 dp: its value stands
  }
  const bool keep_stated = *stated >= *computed;
  detail::warn(warnings, rel_path, pointer,
               fmt::format("stated spread {:.2f} % disagrees with the spread of the {} samples, {:.2f} % "
                           "((max − min) / median × 100); the wider, {} {:.2f} %, is kept",
                           *stated, samples.size(), *computed, keep_stated ? "stated" : "computed",
                           keep_stated ? *stated : *computed));
  return std::max(*stated, *computed);
}

Result<std::vector<BenchRound>> parse_bench_runs(std::string_view text, std::string_view rel_path,
                                                 std::vector<Warning>& warnings)
{
  std::vector<BenchRound> rounds;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      continue; // a blank line holds no round
    }
    const std::string where = fmt::format("{}:{}", rel_path, line_no);
    const json round = json::parse(line.begin(), line.end(), nullptr, false);
    if (round.is_discarded() || !round.is_object()) {
      detail::warn(warnings, where, "",
                   round.is_discarded()
                       ? "not a JSON object (malformed line); skipped"
                       : fmt::format("expected a JSON object, got {}; skipped", describe_value(round)));
      continue;
    }
    BenchRound r;
    r.line = line_no;
    r.output_tok_s = round_throughput(round, k_output_keys, where, warnings);
    r.total_tok_s = round_throughput(round, k_total_keys, where, warnings);
    if (!r.output_tok_s && !r.total_tok_s) {
      detail::warn(warnings, where, "",
                   "no throughput (output_throughput, total_token_throughput or their spellings); skipped");
      continue;
    }
    rounds.push_back(r);
  }
  return rounds;
}

std::vector<double> bench_round_samples(std::span<const BenchRound> rounds,
                                        const std::optional<std::string>& metric_basis)
{
  const bool total = metric_basis && *metric_basis == "aggregate_total_token_tok_s";
  std::vector<double> out;
  for (const auto& r : rounds) {
    if (const auto v = total ? r.total_tok_s : r.output_tok_s; v) {
      out.push_back(*v);
    }
  }
  return out;
}

Result<BenchSummary> parse_bench_summary(const json& doc, std::string_view rel_path,
                                         std::vector<Warning>& warnings)
{
  return bench_summary_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
