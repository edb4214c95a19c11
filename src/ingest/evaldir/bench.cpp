// bench_summary.json (docs/artifacts.md, "The files, in the order a run writes them") → one bench_summaries
// row: throughput tok/s (median, spread percent), TTFT and TPOT medians in ms, and its per-repetition
// throughputs (all_throughput → bench_samples).
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/format.h>

#include <cmath>

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
  if (!b.throughput_spread_pct) {
    RFDB_TRY_ASSIGN(b.throughput_spread_pct, get_double(doc, "output_throughput_tok_s_spread_pct", k_root));
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
  return b;
}

} // namespace

Result<BenchSummary> parse_bench_summary(const json& doc, std::string_view rel_path,
                                         std::vector<Warning>& warnings)
{
  return bench_summary_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
