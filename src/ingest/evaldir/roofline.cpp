// Roofline verdicts: the analytic skill's profile_roofline.json (docs/artifacts.md, "Roofline verdicts")
// and measured roofline-v1 documents through the bridge ("Measured rooflines").
#include "domain/roofline.hpp"

#include "domain/normalize.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace rfdb::ingest {

using detail::add_file;
using detail::invalid;
using detail::k_root;
using detail::require_object;

namespace {

// Canonical value of closed-set field `key` of `entry`; an out-of-set raw
// value warns with the file, pointer and raw text. Missing → "unknown".
template <typename Normalizer>
Result<std::string> closed_value(const json& entry, std::string_view key, const std::string& ptr,
                                 Normalizer normalizer, std::optional<std::string>& raw,
                                 std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY_ASSIGN(raw, get_string(entry, key, ptr));
  if (!raw) {
    return std::string("unknown");
  }
  const domain::Normalized n = normalizer(*raw);
  if (!n.recognized) {
    detail::warn(warnings, rel_path, child_pointer(ptr, key),
                 fmt::format("{} '{}' is not in the closed set; stored as unknown", key, *raw));
  }
  return std::string(n.value);
}

Result<void> read_entry_numbers(const json& e, const std::string& ptr, Verdict& v)
{
  RFDB_TRY_ASSIGN(v.pct_gpu_time, detail::get_pct(e, "pct_gpu_time", ptr));
  RFDB_TRY_ASSIGN(v.t_ms, get_double(e, "t_ms", ptr));
  RFDB_TRY_ASSIGN(v.launches_per_step, get_double(e, "launches_per_step", ptr));
  RFDB_TRY_ASSIGN(v.bytes_est, get_double(e, "bytes_est", ptr));
  RFDB_TRY_ASSIGN(v.flops_est, get_double(e, "flops_est", ptr));
  RFDB_TRY_ASSIGN(v.hbm_util, get_double(e, "hbm_util", ptr));
  RFDB_TRY_ASSIGN(v.compute_util, get_double(e, "compute_util", ptr));
  RFDB_TRY_ASSIGN(v.arithmetic_intensity, get_double(e, "arithmetic_intensity", ptr));
  RFDB_TRY_ASSIGN(v.ridge_point, get_double(e, "ridge_point", ptr));
  RFDB_TRY_ASSIGN(v.roofline_pct, get_double(e, "roofline_pct", ptr));
  if (v.roofline_pct && *v.roofline_pct < 0.0) {
    return invalid(
        fmt::format("{}/roofline_pct: {} must not be negative (fraction 0–1)", ptr, *v.roofline_pct));
  }
  RFDB_TRY_ASSIGN(v.roofline_pct_raw, get_double(e, "roofline_pct_raw", ptr));
  RFDB_TRY_ASSIGN(v.target_eff, get_double(e, "target_eff", ptr));
  RFDB_TRY_ASSIGN(v.attainable_speedup,
                  detail::get_speedup(e, "attainable_speedup", ptr, detail::ZeroSpeedup::reject));
  RFDB_TRY_ASSIGN(v.expected_e2e_gain_pct, get_double(e, "expected_e2e_gain_pct", ptr));
  RFDB_TRY_ASSIGN(v.headroom_ratio, get_double(e, "headroom_ratio", ptr));
  RFDB_TRY_ASSIGN(v.roofline_efficiency_pct, get_double(e, "roofline_efficiency_pct", ptr));
  return {};
}

Result<void> read_entry_identity(const json& e, const std::string& ptr, Verdict& v, std::string_view rel_path,
                                 std::vector<Warning>& warnings)
{
  std::optional<std::string> short_name;
  RFDB_TRY_ASSIGN(short_name, get_string(e, "short_name", ptr));
  RFDB_TRY_ASSIGN(v.name, get_string(e, "name", ptr));
  if (!short_name && !v.name) {
    return invalid(fmt::format("{}: entry has neither name nor short_name", ptr));
  }
  v.short_name = short_name ? *short_name : derive_short_name(*v.name);
  RFDB_TRY_ASSIGN(v.op_class, closed_value(e, "op_class", ptr, domain::normalize_op_class, v.op_class_raw,
                                           rel_path, warnings));
  if (!v.op_class_raw) {
    // No op_class at all: fall back to the Top-N classification + name rules.
    std::optional<std::string> classification;
    RFDB_TRY_ASSIGN(classification, get_string(e, "classification", ptr));
    v.op_class = std::string(
        domain::op_class_from_top_n(classification.value_or(""), v.name.value_or(v.short_name)).value);
  }
  RFDB_TRY_ASSIGN(v.regime, get_string(e, "regime", ptr));
  RFDB_TRY_ASSIGN(v.modeled, get_bool(e, "modeled", ptr));
  RFDB_TRY_ASSIGN(v.phase, get_string(e, "phase", ptr));
  RFDB_TRY_ASSIGN(v.case_id, get_string(e, "case_id", ptr));
  RFDB_TRY_ASSIGN(v.observed_limit, get_string(e, "observed_limit", ptr));
  v.byte_reduction_levers = get_json_text(e, "byte_reduction_levers");
  return {};
}

// bound_type, suspect, dispatch_bound, headroom_class. suspect (infeasible
// raw ratio), dispatch-bound and unmodelled entries carry no verdict, so
// their headroom is forced to unknown (docs/glossary.md, "Suspect"); a missing
// headroom_class is banded from roofline_pct and target_eff.
Result<void> read_entry_classes(const json& e, const std::string& ptr, Verdict& v, std::string_view rel_path,
                                std::vector<Warning>& warnings)
{
  RFDB_TRY_ASSIGN(v.bound_type, closed_value(e, "bound_type", ptr, domain::normalize_bound_type,
                                             v.bound_type_raw, rel_path, warnings));
  std::optional<bool> suspect;
  RFDB_TRY_ASSIGN(suspect, get_bool(e, "suspect", ptr));
  const auto ratio = v.roofline_pct_raw ? v.roofline_pct_raw : v.roofline_pct;
  v.suspect = suspect.value_or(false) ||
              (ratio && v.modeled.value_or(true) && detail::infeasible_roofline_pct(*ratio));
  std::optional<std::string> note;
  RFDB_TRY_ASSIGN(note, get_string(e, "note", ptr));
  const bool note_says = note && util::lower_ascii(*note).find("dispatch") != std::string::npos;
  v.dispatch_bound = note_says || (v.t_ms && *v.t_ms <= domain::k_dispatch_bound_t_ms &&
                                   domain::is(v.bound_type, domain::BoundType::latency));
  RFDB_TRY_ASSIGN(v.headroom_class, closed_value(e, "headroom_class", ptr, domain::normalize_headroom_class,
                                                 v.headroom_class_raw, rel_path, warnings));
  if (!v.headroom_class_raw) {
    const auto target = v.target_eff ? v.target_eff : domain::seed_target_eff(v.op_class);
    v.headroom_class = std::string(domain::band_headroom(v.roofline_pct, target));
  }
  if (v.suspect || v.dispatch_bound || v.modeled == false) {
    v.headroom_class = "unknown";
  }
  return {};
}

// Confidence from the entry (confidence, then roofline_confidence), else
// from the stage; roofline_source "measured" marks a measured verdict.
Result<void> read_entry_source(const json& e, const std::string& ptr, Verdict& v, std::string_view rel_path,
                               std::vector<Warning>& warnings)
{
  std::optional<std::string> raw;
  std::string key = "confidence";
  RFDB_TRY_ASSIGN(raw, get_string(e, key, ptr));
  if (!raw) {
    key = "roofline_confidence";
    RFDB_TRY_ASSIGN(raw, get_string(e, key, ptr));
  }
  v.confidence = std::string(domain::confidence_for_stage(v.stage));
  if (raw) {
    const domain::Normalized n = domain::normalize_confidence(*raw);
    if (n.recognized) {
      v.confidence = std::string(n.value);
    } else {
      detail::warn(warnings, rel_path, child_pointer(ptr, key),
                   fmt::format("{} '{}' is not low|medium|high; using stage {} → {}", key, *raw, v.stage,
                               v.confidence));
    }
  }
  std::optional<std::string> source;
  RFDB_TRY_ASSIGN(source, get_string(e, "roofline_source", ptr));
  v.source_kind =
      domain::to_string(source && domain::is(util::lower_ascii(*source), domain::SourceKind::measured)
                            ? domain::SourceKind::measured
                            : domain::SourceKind::analytic);
  return {};
}

Result<Verdict> parse_entry(const json& e, const std::string& ptr, const std::string& stage,
                            std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(e, ptr));
  Verdict v;
  v.stage = stage;
  RFDB_TRY(read_entry_numbers(e, ptr, v));
  RFDB_TRY(read_entry_identity(e, ptr, v, rel_path, warnings));
  RFDB_TRY(read_entry_classes(e, ptr, v, rel_path, warnings));
  RFDB_TRY(read_entry_source(e, ptr, v, rel_path, warnings));
  v.json_pointer = ptr;
  return v;
}

Result<std::string> doc_stage(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  std::optional<std::string> raw;
  RFDB_TRY_ASSIGN(raw, get_string(doc, "stage", k_root));
  if (!raw) {
    detail::warn(warnings, rel_path, "/stage", "stage missing; assuming A (profile-time)");
    return std::string("A");
  }
  const domain::Normalized n = domain::normalize_stage(*raw);
  if (!n.recognized) {
    detail::warn(warnings, rel_path, "/stage", fmt::format("stage '{}' is not A|B|C; assuming A", *raw));
    return std::string("A");
  }
  return std::string(n.value);
}

Result<RooflineDoc> analytic_impl(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  RooflineDoc d;
  d.source_kind = "analytic";
  RFDB_TRY_ASSIGN(d.stage, doc_stage(doc, rel_path, warnings));
  RFDB_TRY_ASSIGN(d.gfx, get_string(doc, "gfx", k_root));
  d.peaks = get_json_text(doc, "peaks");
  d.ranking_by_pct = get_json_text(doc, "ranking_by_pct");
  d.ranking_by_expected_gain = get_json_text(doc, "ranking_by_expected_gain");
  d.degraded = get_json_text(doc, "degraded");
  d.skill_errors = get_json_text(doc, "skill_errors");
  const auto it = doc.find("entries");
  if (it == doc.end() || it->is_null()) {
    return d;
  }
  if (!it->is_array()) {
    return invalid(fmt::format("/entries: expected an array, got {}", describe_value(*it)));
  }
  d.verdicts.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    Verdict v;
    RFDB_TRY_ASSIGN(v, parse_entry((*it)[i], child_pointer("/entries", i), d.stage, rel_path, warnings));
    d.verdicts.push_back(std::move(v));
  }
  return d;
}

} // namespace

Result<RooflineDoc> parse_profile_roofline(const json& doc, std::string_view rel_path,
                                           std::vector<Warning>& warnings)
{
  return analytic_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
