// Measured roofline: kernels/<TASK>/roofline/{baseline,post}_roofline.json
// (roofline-v1, docs/artifacts.md, "Measured rooflines") → one stage-C verdict from the dominant
// case, exactly as GEAK's load_measured_roofline bridge reads it (§2.9).
// Fail-soft like the bridge: anything unusable is a Warning, not an error.
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace rfdb::ingest {

using detail::add_file;
using detail::k_root;
using detail::require_object;

namespace {

// "Skip this document": the reason becomes a Warning at `pointer`.
struct Skip {
  std::string pointer;
  std::string reason;
};

// Task = the path component immediately before `roofline/` (docs/artifacts.md, "The files, in the order a run
// writes them").
std::optional<std::string> task_from_path(std::string_view rel_path)
{
  const auto parts = detail::path_components(rel_path);
  for (std::size_t i = parts.size(); i-- > 1;) {
    if (parts[i] == "roofline") {
      return std::string(parts[i - 1]);
    }
  }
  return std::nullopt;
}

// Phase from the file name "<phase>_roofline.json" when the doc has none.
std::optional<std::string> phase_from_path(std::string_view rel_path)
{
  const auto parts = detail::path_components(rel_path);
  if (parts.empty()) {
    return std::nullopt;
  }
  const auto base = parts.back();
  const auto cut = base.find("_roofline");
  return cut == std::string_view::npos || cut == 0 ? std::nullopt
                                                   : std::optional(std::string(base.substr(0, cut)));
}

const json& member_or_empty(const json& obj, std::string_view key)
{
  static const json k_empty = json::object();
  if (!obj.is_object()) {
    return k_empty;
  }
  const auto it = obj.find(key);
  return it == obj.end() || !it->is_object() ? k_empty : *it;
}

// Locate the dominant case: top-level dominant_case_id, else the summary's.
Result<std::pair<std::size_t, std::string>> find_dominant(const json& doc, Skip& skip)
{
  std::optional<std::string> id;
  RFDB_TRY_ASSIGN(id, get_string(doc, "dominant_case_id", k_root));
  if (!id) {
    RFDB_TRY_ASSIGN(id, get_string(member_or_empty(doc, "summary"), "dominant_case_id", "/summary"));
  }
  const auto it = doc.find("cases");
  if (it == doc.end() || !it->is_array() || it->empty()) {
    skip = {"/cases", it == doc.end()   ? std::string("no cases")
                      : !it->is_array() ? fmt::format("cases is {}, not an array", it->type_name())
                                        : std::string("cases is empty")};
    return std::pair<std::size_t, std::string>{0, ""};
  }
  if (!id) {
    skip = {"/dominant_case_id", "no dominant_case_id"};
    return std::pair<std::size_t, std::string>{0, ""};
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& c = (*it)[i];
    if (c.is_object() && c.contains("case_id") && c.at("case_id") == *id) {
      return std::pair<std::size_t, std::string>{i, *id};
    }
  }
  skip = {"/dominant_case_id", fmt::format("dominant case '{}' not among cases", *id)};
  return std::pair<std::size_t, std::string>{0, ""};
}

// First of metrics.<key> / classification.<key>.
Result<std::optional<double>> case_number(const json& c, const std::string& ptr, std::string_view key)
{
  std::optional<double> v;
  RFDB_TRY_ASSIGN(v, get_double(member_or_empty(c, "metrics"), key, ptr + "/metrics"));
  if (!v) {
    RFDB_TRY_ASSIGN(v, get_double(member_or_empty(c, "classification"), key, ptr + "/classification"));
  }
  return v;
}

Result<void> read_case_metrics(const json& c, const std::string& ptr, Verdict& v, Skip& skip)
{
  RFDB_TRY_ASSIGN(v.roofline_efficiency_pct, case_number(c, ptr, "roofline_efficiency_pct"));
  RFDB_TRY_ASSIGN(v.headroom_ratio, case_number(c, ptr, "headroom_ratio"));
  if (!v.roofline_efficiency_pct || !(*v.roofline_efficiency_pct > 0.0) || !v.headroom_ratio) {
    skip = {ptr + "/metrics", "dominant case lacks a positive roofline_efficiency_pct and a "
                              "headroom_ratio"};
    return {};
  }
  v.roofline_pct = *v.roofline_efficiency_pct / 100.0;
  v.roofline_pct_raw = v.roofline_pct;
  // attainable_speedup is set with target_eff (measured_verdict): the file's
  // headroom_ratio is against 100 % of peak and stays raw.
  std::optional<double> pct;
  RFDB_TRY_ASSIGN(pct, case_number(c, ptr, "hbm_utilization_pct"));
  v.hbm_util = pct ? std::optional(*pct / 100.0) : std::nullopt;
  RFDB_TRY_ASSIGN(pct, case_number(c, ptr, "compute_utilization_pct"));
  v.compute_util = pct ? std::optional(*pct / 100.0) : std::nullopt;
  RFDB_TRY_ASSIGN(v.arithmetic_intensity, case_number(c, ptr, "ai_hbm"));
  RFDB_TRY_ASSIGN(v.ridge_point, case_number(c, ptr, "ai_ridge_empirical"));
  return {};
}

Result<void> read_case_identity(const json& doc, const json& c, const std::string& ptr, Verdict& v,
                                std::string_view rel_path, std::vector<Warning>& warnings)
{
  std::optional<std::string> limit;
  RFDB_TRY_ASSIGN(
      limit, get_string(member_or_empty(c, "classification"), "observed_limit", ptr + "/classification"));
  if (!limit) {
    const json& dom = member_or_empty(member_or_empty(doc, "summary"), "dominant_classification");
    RFDB_TRY_ASSIGN(limit, get_string(dom, "observed_limit", "/summary/dominant_classification"));
  }
  v.observed_limit = limit;
  v.bound_type = std::string(domain::bound_type_from_observed_limit(limit.value_or("unknown")));
  RFDB_TRY_ASSIGN(v.name, detail::first_string(c, {"matched_kernel_name", "kernel"}, ptr));
  RFDB_TRY_ASSIGN(v.regime, get_string(c, "regime", ptr));
  const json& target = member_or_empty(doc, "target");
  RFDB_TRY_ASSIGN(v.op_class_raw, get_string(target, "op_kind", "/target"));
  if (v.op_class_raw) {
    v.op_class = detail::attempt_op_class(v.op_class_raw, rel_path, "/target", warnings);
  } else {
    v.op_class = std::string(domain::op_class_from_top_n("", v.name.value_or(v.short_name)).value);
  }
  return {};
}

// The confidence the file states for the dominant case (its classification,
// else summary.dominant_classification); stage C's default `high` only when
// it states none. An out-of-set value is `high`'s default with a warning.
Result<void> read_case_confidence(const json& doc, const json& c, const std::string& ptr, Verdict& v,
                                  std::string_view rel_path, std::vector<Warning>& warnings)
{
  std::optional<std::string> stated;
  std::string where = ptr + "/classification/confidence";
  RFDB_TRY_ASSIGN(stated,
                  get_string(member_or_empty(c, "classification"), "confidence", ptr + "/classification"));
  if (!stated) {
    const json& dom = member_or_empty(member_or_empty(doc, "summary"), "dominant_classification");
    RFDB_TRY_ASSIGN(stated, get_string(dom, "confidence", "/summary/dominant_classification"));
    where = "/summary/dominant_classification/confidence";
  }
  v.confidence = "high";
  if (stated) {
    const std::string c_lower = util::lower_ascii(*stated);
    if (domain::parse<domain::Confidence>(c_lower)) {
      v.confidence = c_lower;
    } else {
      detail::warn(warnings, rel_path, where,
                   fmt::format("confidence '{}' is not low|medium|high; stage C default high", *stated));
    }
  }
  return {};
}

// The guidance entry of case `id` (guidance.cases[] with that case_id), or
// an empty object.
const json& guidance_case(const json& doc, std::string_view id)
{
  static const json k_empty = json::object();
  const json& g = member_or_empty(doc, "guidance");
  const auto it = g.find("cases");
  if (it == g.end() || !it->is_array()) {
    return k_empty;
  }
  for (const json& c : *it) {
    if (c.is_object() && c.contains("case_id") && c.at("case_id") == id) {
      return c;
    }
  }
  return k_empty;
}

// The engine's guidance for the dominant case: its guidance.cases[] reason
// (actionable, low_headroom, …), lower-cased; none when the file gives none.
Result<void> read_guidance(const json& doc, const std::string& id, Verdict& v)
{
  std::optional<std::string> reason;
  RFDB_TRY_ASSIGN(reason, get_string(guidance_case(doc, id), "reason", "/guidance/cases"));
  if (reason && !reason->empty()) {
    v.guidance = util::lower_ascii(util::trim(*reason));
  }
  return {};
}

// Every matched case with a usable efficiency, as a CaseShare against the
// verdict's target_eff, with its share of the kernel's time normalised over
// these cases. The shares come from one basis for every case: the
// guidance's time_share when every case states one, else the cases' weight
// when every case states one. A case with an infeasible efficiency (the
// suspect rule) is left out; a zero share is a case that holds no time.
// No mix (the single-case verdict, unchanged) when fewer than two cases
// remain or the dominant one is not among them; also, with a warning naming
// the pointer, when a case's share or efficiency is not a number, a share
// is negative or not finite, the cases mix their bases or state none, or
// two cases share a case_id.
std::vector<domain::CaseShare> read_case_mix(const json& doc, const Verdict& v, std::string_view rel_path,
                                             std::vector<Warning>& warnings)
{
  if (!v.target_eff) {
    return {}; // no target_eff (a class without a seed): no attainable speedup to mix
  }
  auto no_mix = [&](const std::string& pointer, const std::string& why) {
    warnings.push_back({std::string(rel_path), pointer,
                        fmt::format("case mix ignored ({}): the dominant case's verdict is used alone", why),
                        false});
    return std::vector<domain::CaseShare>{};
  };
  struct Read {
    domain::CaseShare share;
    std::optional<double> time_share;
    std::optional<double> weight;
    std::string pointer;
  };
  std::vector<Read> read;
  std::vector<std::string> ids;
  const json& cases = doc.at("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    const std::string ptr = child_pointer("/cases", i);
    auto id = get_string(c, "case_id", ptr);
    auto status = get_string(c, "status", ptr);
    auto eff = case_number(c, ptr, "roofline_efficiency_pct");
    if (!id || !status || !eff) {
      const auto& e = !id ? id.error() : !status ? status.error() : eff.error();
      return no_mix(ptr, e.message);
    }
    if (*id) {
      if (std::find(ids.begin(), ids.end(), **id) != ids.end()) {
        return no_mix(ptr + "/case_id", fmt::format("case_id '{}' is stated twice", **id));
      }
      ids.push_back(**id);
    }
    if (!*id || status->value_or("") != "matched") {
      continue;
    }
    if (!*eff || !(**eff > 0.0)) {
      return no_mix(ptr, "a matched case without a positive roofline_efficiency_pct");
    }
    if (detail::infeasible_roofline_pct(**eff / 100.0)) {
      continue;
    }
    auto time_share = get_double(guidance_case(doc, **id), "time_share", "/guidance/cases");
    auto weight = get_double(c, "weight", ptr);
    if (!time_share || !weight) {
      return no_mix(ptr, (!time_share ? time_share.error() : weight.error()).message);
    }
    Read r;
    r.share.case_id = **id;
    auto regime = get_string(c, "regime", ptr);
    if (!regime) {
      return no_mix(ptr + "/regime", regime.error().message);
    }
    r.share.regime = regime->value_or("");
    r.share.roofline_pct = **eff / 100.0;
    r.share.attainable_speedup =
        *domain::attainable_speedup(r.share.roofline_pct, v.target_eff); // both set, > 0
    r.share.dominant = **id == v.case_id;
    r.time_share = *time_share;
    r.weight = *weight;
    r.pointer = ptr;
    read.push_back(std::move(r));
  }
  const bool has_dominant =
      std::any_of(read.begin(), read.end(), [](const Read& r) { return r.share.dominant; });
  if (read.size() < 2 || !has_dominant) {
    return {};
  }
  const bool all_time =
      std::all_of(read.begin(), read.end(), [](const Read& r) { return r.time_share.has_value(); });
  const bool all_weight =
      std::all_of(read.begin(), read.end(), [](const Read& r) { return r.weight.has_value(); });
  if (!all_time && !all_weight) {
    const bool any = std::any_of(read.begin(), read.end(), [](const Read& r) {
      return r.time_share.has_value() || r.weight.has_value();
    });
    if (!any) {
      return {}; // no case states a time weight: nothing to mix, nothing to warn about
    }
    return no_mix("/cases", "the matched cases do not all state a time_share, nor all a weight");
  }
  double total = 0.0;
  std::vector<domain::CaseShare> out;
  for (Read& r : read) {
    const double t = all_time ? *r.time_share : *r.weight;
    if (!std::isfinite(t) || t < 0.0) {
      return no_mix(all_time ? "/guidance/cases" : r.pointer + "/weight",
                    fmt::format("case '{}' has time weight {}", r.share.case_id, t));
    }
    r.share.time_share = t;
    total += t;
    out.push_back(r.share);
  }
  if (!std::isfinite(total) || !(total > 0.0)) {
    return no_mix("/cases", "the time weights do not sum to a positive finite number");
  }
  for (auto& c : out) {
    c.time_share /= total;
  }
  return out;
}

// The profiler version a roofline-v1 document states: `tool_version` (the
// first line of `--version`), else `tool.version.text`; nullopt when neither
// is a non-empty string (docs/FORMATS: roofline-v1 top-level `tool`).
std::optional<std::string> profiler_version(const json& doc)
{
  const auto text = [](const json& j) -> std::optional<std::string> {
    if (j.is_string() && !j.get_ref<const std::string&>().empty()) {
      return j.get<std::string>();
    }
    return std::nullopt;
  };
  if (const auto it = doc.find("tool_version"); it != doc.end()) {
    if (auto t = text(*it)) {
      return t;
    }
  }
  if (const auto tool = doc.find("tool"); tool != doc.end() && tool->is_object()) {
    if (const auto ver = tool->find("version"); ver != tool->end() && ver->is_object()) {
      if (const auto t = ver->find("text"); t != ver->end()) {
        return text(*t);
      }
    }
  }
  return std::nullopt;
}

Result<std::optional<Verdict>> measured_verdict(const json& doc, const RooflineDoc& d,
                                                std::string_view rel_path, std::vector<Warning>& warnings,
                                                Skip& skip)
{
  std::pair<std::size_t, std::string> dominant;
  RFDB_TRY_ASSIGN(dominant, find_dominant(doc, skip));
  if (!skip.reason.empty()) {
    return std::optional<Verdict>();
  }
  const std::string ptr = child_pointer("/cases", dominant.first);
  const json& c = doc.at("cases")[dominant.first];
  std::optional<std::string> status;
  RFDB_TRY_ASSIGN(status, get_string(c, "status", ptr));
  if (status.value_or("") != "matched") {
    skip = {ptr + "/status", fmt::format("dominant case '{}' has status '{}', not matched", dominant.second,
                                         status.value_or(""))};
    return std::optional<Verdict>();
  }
  Verdict v;
  v.short_name = std::string(detail::strip_suffix(d.task.value_or(""), "_task"));
  if (v.short_name.empty()) {
    RFDB_TRY_ASSIGN(v.name, get_string(member_or_empty(doc, "target"), "logical_name", "/target"));
    v.short_name = v.name.value_or("");
  }
  if (v.short_name.empty()) {
    skip = {k_root, "no task directory before roofline/ and no target.logical_name"};
    return std::optional<Verdict>();
  }
  RFDB_TRY(read_case_metrics(c, ptr, v, skip));
  if (!skip.reason.empty()) {
    return std::optional<Verdict>();
  }
  RFDB_TRY(read_case_identity(doc, c, ptr, v, rel_path, warnings));
  v.stage = "C";
  v.source_kind = "measured";
  RFDB_TRY(read_case_confidence(doc, c, ptr, v, rel_path, warnings));
  v.phase = d.phase;
  v.case_id = dominant.second;
  v.target_eff = domain::seed_target_eff(v.op_class);
  // Banded and bounded against the same target_eff (docs/artifacts.md, "Measured rooflines"), so the
  // headroom_class and the attainable_speedup agree.
  v.attainable_speedup = domain::attainable_speedup(v.roofline_pct, v.target_eff);
  v.suspect = detail::infeasible_roofline_pct(*v.roofline_pct);
  v.headroom_class = v.suspect ? "unknown" : std::string(domain::band_headroom(v.roofline_pct, v.target_eff));
  if (!read_guidance(doc, dominant.second, v)) {
    v.guidance.reset(); // a guidance reason that is not text is no guidance
  }
  v.disputed = domain::is_disputed(v.headroom_class, v.headroom_ratio, v.guidance);
  // Several matched cases with time shares: the attainable is their Amdahl
  // mix and the regime the mix's (docs/artifacts.md); the band stays the
  // dominant case's.
  if (!v.suspect) {
    // Fail-soft with a warning: a malformed secondary case leaves the single-case verdict.
    v.case_mix = read_case_mix(doc, v, rel_path, warnings);
    if (const auto mix = domain::case_mix_attainable(v.case_mix)) {
      v.attainable_speedup = mix;
      if (auto regime = domain::case_mix_regime(v.case_mix); !regime.empty()) {
        v.regime = std::move(regime);
      }
    } else {
      v.case_mix.clear();
    }
  }
  v.profiler_version = profiler_version(doc);
  v.json_pointer = ptr;
  return std::optional<Verdict>(std::move(v));
}

Result<RooflineDoc> measured_impl(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  RooflineDoc d;
  d.source_kind = "measured";
  d.stage = "C";
  d.task = task_from_path(rel_path);
  const auto phase = get_string(doc, "phase", k_root);
  d.phase = phase && *phase ? *phase : phase_from_path(rel_path);
  const auto schema = get_string(doc, "schema_version", k_root);
  if (!schema || schema->value_or("") != "roofline-v1") {
    detail::warn(warnings, rel_path, "/schema_version",
                 "schema_version is not roofline-v1; no measured verdict taken");
    return d;
  }
  Skip skip;
  auto verdict = measured_verdict(doc, d, rel_path, warnings, skip);
  if (!verdict) {
    // A malformed value in a measured file drops the verdict, as the bridge does.
    skip = {k_root, verdict.error().message};
  } else if (*verdict) {
    d.verdicts.push_back(std::move(**verdict));
    return d;
  }
  std::optional<std::string> status;
  if (auto s = get_string(doc, "status", k_root)) {
    status = *s;
  }
  detail::warn(
      warnings, rel_path, skip.pointer,
      fmt::format("no measured verdict (roofline-v1 status '{}'): {}", status.value_or("?"), skip.reason));
  return d;
}

} // namespace

Result<RooflineDoc> parse_measured_roofline(const json& doc, std::string_view rel_path,
                                            std::vector<Warning>& warnings)
{
  return measured_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
