// profile/round_<R>/profile_topN.json, both parser lineages (docs/artifacts.md, "Top-N rows").
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/core.h>

namespace rfdb::ingest {

using detail::add_file;
using detail::invalid;
using detail::k_root;
using detail::require_object;

namespace {

bool row_has_any(const json& rows, std::initializer_list<std::string_view> keys)
{
  if (!rows.is_array()) {
    return false;
  }
  for (const auto& row : rows) {
    if (!row.is_object()) {
      continue;
    }
    for (const auto key : keys) {
      if (row.contains(key)) {
        return true;
      }
    }
  }
  return false;
}

// Producer variant: the raw `source` names TraceLens hand-assembly first; then
// variant A's serving-phase accounting / rocprof merge; then variant B's
// TraceLens-parser fields; A (the default lineage) otherwise.
std::string detect_variant(const json& doc, const std::optional<std::string>& source)
{
  const std::string src = util::lower_ascii(source.value_or(""));
  if (src.rfind("tracelens", 0) == 0) {
    return "tracelens";
  }
  const json& rows = doc.contains("top_kernels") ? doc.at("top_kernels") : doc;
  if (doc.contains("serving") || src == "rocprofv3" || src == "merged" ||
      row_has_any(rows, {"phase", "base_latency_ms", "served_regimes"})) {
    return "A";
  }
  if (doc.contains("tracelens") || row_has_any(rows, {"per_call", "cpu_op"})) {
    return "B";
  }
  return "A";
}

// `phase`, else a single served regime, else "both" for two.
std::optional<std::string> row_phase(const json& row, std::optional<std::string> phase)
{
  if (phase) {
    return phase;
  }
  const auto it = row.find("served_regimes");
  if (it == row.end() || !it->is_array() || it->empty()) {
    return std::nullopt;
  }
  if (it->size() == 1 && it->front().is_string()) {
    return it->front().get<std::string>();
  }
  return std::string("both");
}

Result<KernelSample> parse_sample(const json& row, const std::string& ptr, std::string_view rel_path,
                                  std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(row, ptr));
  KernelSample s;
  std::optional<double> pct;
  RFDB_TRY_ASSIGN(pct, detail::get_pct(row, "pct_gpu_time", ptr));
  if (!pct) {
    return invalid(fmt::format("{}: pct_gpu_time is missing (required for every Top-N row)",
                               child_pointer(ptr, "pct_gpu_time")));
  }
  s.pct_gpu_time = *pct;
  std::optional<std::string> name;
  std::optional<std::string> short_name;
  RFDB_TRY_ASSIGN(name, get_string(row, "name", ptr));
  RFDB_TRY_ASSIGN(short_name, get_string(row, "short_name", ptr));
  if (!name && !short_name) {
    return invalid(fmt::format("{}: row has neither name nor short_name", ptr));
  }
  s.name = name ? *name : *short_name;
  s.short_name = short_name ? *short_name : derive_short_name(s.name);
  RFDB_TRY_ASSIGN(s.rank, get_int(row, "rank", ptr));
  RFDB_TRY_ASSIGN(s.raw_pct_gpu_time, get_double(row, "raw_pct_gpu_time", ptr));
  if (s.raw_pct_gpu_time && (*s.raw_pct_gpu_time < 0.0 || *s.raw_pct_gpu_time > 100.0)) {
    detail::warn(
        warnings, rel_path, child_pointer(ptr, "raw_pct_gpu_time"),
        fmt::format("raw_pct_gpu_time {:.2f} is outside 0–100; kept as written", *s.raw_pct_gpu_time));
  }
  RFDB_TRY_ASSIGN(s.total_ms, get_double(row, "total_ms", ptr));
  RFDB_TRY_ASSIGN(s.calls, get_int(row, "calls", ptr));
  RFDB_TRY_ASSIGN(s.avg_us, get_double(row, "avg_us", ptr));
  RFDB_TRY_ASSIGN(s.classification, get_string(row, "classification", ptr));
  RFDB_TRY_ASSIGN(s.backend_guess, get_string(row, "backend_guess", ptr));
  RFDB_TRY_ASSIGN(s.editable, get_bool(row, "editable", ptr));
  std::optional<std::string> phase;
  RFDB_TRY_ASSIGN(phase, get_string(row, "phase", ptr));
  s.phase = row_phase(row, phase);
  s.base_latency_ms = get_json_text(row, "base_latency_ms");
  s.shapes = get_json_text(row, "shapes");
  s.dtypes = get_json_text(row, "dtypes");
  s.json_pointer = ptr;
  return s;
}

Result<TopN> topn_impl(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  TopN t;
  RFDB_TRY_ASSIGN(t.parser_source, get_string(doc, "source", k_root));
  t.variant = detect_variant(doc, t.parser_source);
  RFDB_TRY_ASSIGN(t.total_gpu_time_ms, get_double(doc, "total_gpu_time_ms", k_root));
  RFDB_TRY_ASSIGN(t.num_kernel_launches, get_int(doc, "num_kernel_launches", k_root));
  RFDB_TRY_ASSIGN(t.num_distinct_kernels, get_int(doc, "num_distinct_kernels", k_root));
  const auto it = doc.find("top_kernels");
  if (it == doc.end() || it->is_null()) {
    detail::warn(warnings, rel_path, "/top_kernels", "no top_kernels: round has no rows");
    return t;
  }
  if (!it->is_array()) {
    return invalid(fmt::format("/top_kernels: expected an array, got {}", describe_value(*it)));
  }
  t.rows.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    KernelSample s;
    RFDB_TRY_ASSIGN(s, parse_sample((*it)[i], child_pointer("/top_kernels", i), rel_path, warnings));
    t.rows.push_back(std::move(s));
  }
  return t;
}

} // namespace

Result<TopN> parse_profile_topn(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  return topn_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
