// env_report.json (docs/artifacts.md, "How a run is identified") → the run's identity: model, gfx (one
// spelling per GPU), backend, tp and the isl/osl/conc workload.
#include "domain/normalize.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/core.h>

namespace rfdb::ingest {

using detail::add_file;
using detail::first_string;
using detail::k_root;
using detail::require_object;

namespace {

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
    const std::string lowered = util::lower_ascii(raw);
    r.gfx = lowered == domain::k_unknown || lowered.empty() ? std::nullopt : domain::normalize_gfx(raw);
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
  if (const auto it = doc.find("limitations"); it != doc.end() && !it->is_null()) {
    if (!it->is_array()) {
      detail::warn(warnings, rel_path, "/limitations",
                   fmt::format("expected an array of strings, got {}; ignored", describe_value(*it)));
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        const json& e = (*it)[i];
        if (e.is_string()) {
          r.limitations.push_back(e.get<std::string>());
        } else {
          detail::warn(warnings, rel_path, child_pointer("/limitations", i),
                       fmt::format("expected a string, got {}; ignored", describe_value(e)));
        }
      }
    }
  }
  return r;
}

} // namespace

Result<EnvReport> parse_env_report(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  return env_report_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
