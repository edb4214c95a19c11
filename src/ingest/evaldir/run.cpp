// Run-level artifacts: env_report.json, bench_summary.json,
// director_e2e_validation.json (FORMATS.md §2.1, §2.2, §2.13).
#include "calibrate/priors.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"
#include "domain/normalize.hpp"

#include <fmt/core.h>

namespace rfdb::ingest {

using detail::add_file;
using detail::first_string;
using detail::require_object;

namespace {

const std::string k_root;

// First integer among `keys` of `obj`.
Result<std::optional<std::int64_t>> first_int(const json& obj, std::initializer_list<std::string_view> keys,
                                              const std::string& pointer)
{
  for (const auto key : keys) {
    std::optional<std::int64_t> v;
    RFDB_TRY_ASSIGN(v, get_int(obj, key, pointer));
    if (v) {
      return v;
    }
  }
  return std::optional<std::int64_t>();
}

// available_backends as JSON array text; a comma-separated string is split.
std::optional<std::string> backends_json(const json& doc, std::string_view rel_path,
                                         std::vector<Warning>& warnings)
{
  const auto it = doc.find("available_backends");
  if (it == doc.end() || it->is_null()) {
    return std::nullopt;
  }
  if (it->is_array()) {
    return it->dump();
  }
  if (it->is_string()) {
    json list = json::array();
    std::string_view s = it->get_ref<const std::string&>();
    while (!s.empty()) {
      const auto comma = s.find(',');
      auto part = s.substr(0, comma);
      while (!part.empty() && part.front() == ' ') {
        part.remove_prefix(1);
      }
      while (!part.empty() && part.back() == ' ') {
        part.remove_suffix(1);
      }
      if (!part.empty()) {
        list.push_back(std::string(part));
      }
      s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    }
    return list.dump();
  }
  detail::warn(warnings, rel_path, "/available_backends",
               fmt::format("expected an array of backend names, got {}; ignored", describe_value(*it)));
  return std::nullopt;
}

Result<EnvReport> env_report_impl(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  EnvReport r;
  RFDB_TRY_ASSIGN(r.model, first_string(doc, {"model", "model_name", "model_path"}, k_root));
  RFDB_TRY_ASSIGN(r.model_arch_class, get_string(doc, "model_arch_class", k_root));
  RFDB_TRY_ASSIGN(r.model_dtype, get_string(doc, "model_dtype", k_root));
  RFDB_TRY_ASSIGN(r.gfx, get_string(doc, "gfx", k_root));
  if (r.gfx) {
    // One spelling per GPU, or priors would split its evidence across keys:
    // "GFX950", "gfx950:sramecc+:xnack-" (rocminfo) and "MI355X" are gfx950.
    const std::string raw = *r.gfx;
    const std::string lowered = detail::lower_ascii(raw);
    r.gfx = lowered == "unknown" || lowered.empty() ? std::nullopt : calibrate::normalize_gfx_spelling(raw);
    if (!r.gfx) {
      detail::warn(warnings, rel_path, "/gfx",
                   fmt::format("gfx '{}' is not a gfx target or a known device; stored as no gfx", raw));
    } else if (*r.gfx != raw) {
      warnings.push_back(
          Warning{std::string(rel_path), "/gfx", fmt::format("gfx '{}' stored as {}", raw, *r.gfx), true});
    }
  }
  RFDB_TRY_ASSIGN(r.device_name, get_string(doc, "device_name", k_root));
  RFDB_TRY_ASSIGN(r.backend, get_string(doc, "backend", k_root));
  RFDB_TRY_ASSIGN(r.backend_version, get_string(doc, "backend_version", k_root));
  RFDB_TRY_ASSIGN(r.tp, first_int(doc, {"tp", "tensor_parallel", "tensor_parallel_size"}, k_root));
  const json empty = json::object();
  const json& serving = doc.contains("serving_config") ? doc.at("serving_config") : empty;
  const json& workload = doc.contains("workload") ? doc.at("workload") : empty;
  if (!r.tp) {
    RFDB_TRY_ASSIGN(r.tp, get_int(serving, "tp", "/serving_config"));
  }
  if (!r.tp) {
    RFDB_TRY_ASSIGN(r.tp, get_int(workload, "tp", "/workload"));
  }
  RFDB_TRY_ASSIGN(r.isl, first_int(workload, {"isl", "input_len"}, "/workload"));
  RFDB_TRY_ASSIGN(r.osl, first_int(workload, {"osl", "output_len"}, "/workload"));
  RFDB_TRY_ASSIGN(r.conc, first_int(workload, {"conc", "concurrency"}, "/workload"));
  if (!r.isl) {
    RFDB_TRY_ASSIGN(r.isl, get_int(doc, "isl", k_root));
  }
  if (!r.osl) {
    RFDB_TRY_ASSIGN(r.osl, get_int(doc, "osl", k_root));
  }
  if (!r.conc) {
    RFDB_TRY_ASSIGN(r.conc, get_int(doc, "conc", k_root));
  }
  r.available_backends = backends_json(doc, rel_path, warnings);
  return r;
}

Result<BenchSummary> bench_summary_impl(const json& doc)
{
  RFDB_TRY(require_object(doc, k_root));
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
  return b;
}

Result<RunOutcome> director_impl(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  RunOutcome o;
  RFDB_TRY_ASSIGN(o.model, get_string(doc, "model_name", k_root));
  RFDB_TRY_ASSIGN(o.baseline_throughput_tok_s,
                  detail::get_non_negative(doc, "baseline_throughput_tok_s", k_root));
  RFDB_TRY_ASSIGN(o.final_throughput_tok_s,
                  detail::get_non_negative(doc, "director_verified_throughput_tok_s", k_root));
  RFDB_TRY_ASSIGN(o.throughput_speedup,
                  detail::get_speedup(doc, "throughput_speedup", k_root, detail::ZeroSpeedup::reject));
  if (!o.throughput_speedup && o.baseline_throughput_tok_s && o.final_throughput_tok_s &&
      *o.baseline_throughput_tok_s > 0.0 && *o.final_throughput_tok_s > 0.0) {
    o.throughput_speedup = *o.final_throughput_tok_s / *o.baseline_throughput_tok_s;
  }
  RFDB_TRY(detail::read_validation(doc, rel_path, warnings, o));
  return o;
}

} // namespace

Result<EnvReport> parse_env_report(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  return env_report_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

Result<BenchSummary> parse_bench_summary(const json& doc, std::string_view rel_path,
                                         std::vector<Warning>& /*warnings*/)
{
  return bench_summary_impl(doc).map_error(add_file(rel_path));
}

Result<RunOutcome> parse_director_validation(const json& doc, std::string_view rel_path,
                                             std::vector<Warning>& warnings)
{
  return director_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
