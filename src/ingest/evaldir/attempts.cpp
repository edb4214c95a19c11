// Attempt sources written per kernel or per config trial:
// overlay/cand_*/integrate_result.json (docs/artifacts.md, "Attempts"),
// kernels/<task>/opbench_result.json (§2.11), config/sweep_results.json (§2.12).
#include "domain/normalize.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace rfdb::ingest {

using detail::add_file;
using detail::invalid;
using detail::k_root;
using detail::require_object;

namespace {

// A flags/env field that producers write as a string or a list of strings.
Result<std::optional<std::string>> get_text_or_list(const json& obj, std::string_view key,
                                                    const std::string& pointer)
{
  const auto it = obj.find(key);
  if (it != obj.end() && it->is_array()) {
    std::string joined;
    for (const auto& item : *it) {
      if (!item.is_string()) {
        return invalid(fmt::format("{}: expected a list of strings, got {}", child_pointer(pointer, key),
                                   describe_value(*it)));
      }
      joined += joined.empty() ? "" : " ";
      joined += item.get<std::string>();
    }
    return joined.empty() ? std::optional<std::string>() : std::optional(joined);
  }
  if (it != obj.end() && it->is_object()) {
    return it->empty() ? std::optional<std::string>() : std::optional(it->dump());
  }
  return get_string(obj, key, pointer);
}

// The overlay directory "cand_<short>[_<TAG>]" this file lives in, if any.
std::optional<std::string> candidate_dir(std::string_view rel_path)
{
  const auto parts = detail::path_components(rel_path);
  for (std::size_t i = parts.size(); i-- > 0;) {
    if (parts[i].rfind("cand_", 0) == 0) {
      return std::string(parts[i]);
    }
  }
  return std::nullopt;
}

// Backend when the file names none: the <TAG> of "cand_<short>_<TAG>".
std::optional<std::string> candidate_tag(const std::optional<std::string>& dir, const std::string& short_name)
{
  const std::string prefix = "cand_" + short_name + "_";
  if (!dir || dir->size() <= prefix.size() || dir->rfind(prefix, 0) != 0) {
    return std::nullopt;
  }
  return dir->substr(prefix.size());
}

// The orchestrator's reject vocabulary (docs/artifacts.md, "Attempts"): the first of
// these words that the integrate reason cites as a word of its own, in any
// case, with `_` or a space between its parts ("Parity_Regression:",
// "parity regression"), but not inside a longer token
// ("parity_regression_report.md").
std::optional<std::string> reject_word(const std::optional<std::string>& reason)
{
  static constexpr std::array<std::string_view, 9> k_words{
      "no_engagement",       "no_rebind_seam",    "cuda_graph_capture_unsafe", "mem_footprint_starves_kv",
      "needs_accuracy_gate", "parity_regression", "accuracy_regression",       "implausible_speedup",
      "output_corruption"};
  if (!reason) {
    return std::nullopt;
  }
  const std::string text = util::lower_ascii(*reason);
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  std::size_t best = std::string::npos;
  std::optional<std::string> word;
  for (const auto w : k_words) {
    std::string spaced(w);
    std::replace(spaced.begin(), spaced.end(), '_', ' ');
    for (const std::string& spelling : {std::string(w), spaced}) {
      for (auto at = text.find(spelling); at != std::string::npos; at = text.find(spelling, at + 1)) {
        const std::size_t end = at + spelling.size();
        const bool whole =
            (at == 0 || !word_char(text[at - 1])) && (end == text.size() || !word_char(text[end]));
        if (whole && at < best) {
          best = at;
          word = std::string(w);
        }
      }
    }
  }
  return word;
}

void finish_lever(AttemptRecord& a, std::string_view origin, const std::optional<std::string>& env,
                  const std::optional<std::string>& flags)
{
  a.lever = detail::describe_lever(a.winner_kind, a.backend, env, flags);
  a.lever_kind = domain::canonical<domain::LeverKind>(
      domain::lever_kind_for({origin, a.winner_kind.value_or(""), a.backend.value_or(""), a.lever}));
}

Result<void> read_integrate_outcome(const json& doc, AttemptRecord& a, std::string_view rel_path,
                                    std::vector<Warning>& warnings)
{
  detail::warn_misspelled_keys(doc,
                               {"isolated_speedup", "e2e_delta_pct", "gate", "output_parity", "parity_kind"},
                               k_root, rel_path, warnings);
  detail::warn_no_field_read(
      doc, {"isolated_speedup", "e2e_delta_pct", "ref_med", "cand_med", "gate", "ab_complete"},
      "attempt kept unmeasured", rel_path, warnings);
  RFDB_TRY_ASSIGN(a.isolated_speedup,
                  detail::get_speedup(doc, "isolated_speedup", k_root, detail::ZeroSpeedup::reject));
  RFDB_TRY_ASSIGN(a.e2e_delta_pct, detail::get_e2e_delta(doc, "e2e_delta_pct", k_root));
  if (!a.e2e_delta_pct) {
    std::optional<double> ref;
    std::optional<double> cand;
    RFDB_TRY_ASSIGN(ref, get_double(doc, "ref_med", k_root));
    RFDB_TRY_ASSIGN(cand, get_double(doc, "cand_med", k_root));
    if (ref && cand && *ref > 0.0 && *cand > 0.0) {
      a.e2e_delta_pct = (*cand - *ref) / *ref * 100.0;
    }
  }
  std::optional<std::string> gate;
  RFDB_TRY_ASSIGN(gate, get_string(doc, "gate", k_root));
  std::optional<bool> ab_complete;
  RFDB_TRY_ASSIGN(ab_complete, get_bool(doc, "ab_complete", k_root));
  if (gate) {
    a.gate = util::lower_ascii(*gate);
    const domain::Normalized v = domain::attempt_verdict_from_gate(*gate, a.e2e_delta_pct);
    a.verdict = domain::canonical<domain::Verdict>(v.value);
    if (!v.recognized) {
      detail::warn(warnings, rel_path, "/gate",
                   fmt::format("gate '{}' is not accepted|stack|rejected|incomplete; verdict "
                               "unknown",
                               *gate));
    }
  } else if (ab_complete == false) {
    a.verdict = domain::Verdict::incomplete;
  }
  RFDB_TRY_ASSIGN(a.pct_gpu_time, detail::get_pct(doc, "pct_gpu_time", k_root));
  RFDB_TRY_ASSIGN(a.output_parity, get_string(doc, "output_parity", k_root));
  RFDB_TRY_ASSIGN(a.parity_kind, get_string(doc, "parity_kind", k_root));
  RFDB_TRY_ASSIGN(a.reason, get_string(doc, "reason", k_root));
  RFDB_TRY_ASSIGN(a.round, get_string(doc, "round", k_root));
  return {};
}

// The files a candidate names as its implementation (AttemptRecord::patch_ref,
// table_ref): the first string of each family.
Result<void> read_implementation_refs(const json& doc, AttemptRecord& a)
{
  RFDB_TRY_ASSIGN(a.patch_ref,
                  detail::first_string(doc, {"code_patch", "final_patch", "patch_path"}, k_root));
  RFDB_TRY_ASSIGN(a.table_ref, detail::first_string(doc, {"tuning_artifact", "tuned_config_file"}, k_root));
  return {};
}

Result<std::vector<AttemptRecord>> integrate_impl(const json& doc, std::string_view rel_path,
                                                  std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  AttemptRecord a;
  const auto dir = candidate_dir(rel_path);
  std::optional<std::string> short_name;
  RFDB_TRY_ASSIGN(short_name, get_string(doc, "short_name", k_root));
  if (!short_name && dir) {
    short_name = dir->substr(5);
  }
  if (!short_name || short_name->empty()) {
    return invalid("/short_name: missing, and the path has no cand_<short_name> directory");
  }
  a.short_name = *short_name;
  a.candidate = dir ? dir : short_name;
  RFDB_TRY_ASSIGN(a.task_dir, get_string(doc, "task_dir", k_root));
  RFDB_TRY_ASSIGN(a.winner_kind, get_string(doc, "winner_kind", k_root));
  RFDB_TRY_ASSIGN(a.backend, detail::first_string(doc, {"backend", "winner_backend"}, k_root));
  if (!a.backend) {
    a.backend = candidate_tag(dir, a.short_name);
  }
  std::optional<std::string> op_kind;
  RFDB_TRY_ASSIGN(op_kind, get_string(doc, "op_kind", k_root));
  a.op_class =
      domain::canonical<domain::OpClass>(detail::attempt_op_class(op_kind, rel_path, k_root, warnings));
  RFDB_TRY(read_integrate_outcome(doc, a, rel_path, warnings));
  std::optional<std::string> env;
  std::optional<std::string> flags;
  RFDB_TRY_ASSIGN(env, get_text_or_list(doc, "apply_env", k_root));
  if (!env) {
    RFDB_TRY_ASSIGN(env, get_text_or_list(doc, "accepted_env", k_root));
  }
  RFDB_TRY_ASSIGN(flags, get_text_or_list(doc, "apply_flags", k_root));
  finish_lever(a, "integrate_result", env, flags);
  a.apply_env = env;
  a.apply_flags = flags;
  RFDB_TRY(read_implementation_refs(doc, a));
  RFDB_TRY_ASSIGN(a.accepted_overlay, get_string(doc, "accepted_overlay", k_root));
  RFDB_TRY_ASSIGN(a.target_callable, get_string(doc, "target_callable", k_root));
  a.reject_reason = reject_word(a.reason);
  a.origin = "integrate";
  a.json_pointer = k_root;
  return std::vector<AttemptRecord>{std::move(a)};
}

// Opbench gate (docs/artifacts.md, "Attempts") → verdict (domain::attempt_verdict_from_opbench_gate).
domain::Verdict opbench_verdict(const std::optional<std::string>& gate)
{
  return domain::canonical<domain::Verdict>(
      domain::attempt_verdict_from_opbench_gate(gate.value_or("have_winner")));
}

Result<std::vector<AttemptRecord>> opbench_impl(const json& doc, std::string_view rel_path,
                                                std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  detail::warn_no_field_read(
      doc, {"measured", "winner_kind", "winner_backend", "backend", "isolated_speedup", "gate"},
      "no attempt recorded", rel_path, warnings);
  AttemptRecord a;
  std::optional<bool> measured;
  RFDB_TRY_ASSIGN(measured, get_bool(doc, "measured", k_root));
  RFDB_TRY_ASSIGN(a.winner_kind, get_string(doc, "winner_kind", k_root));
  RFDB_TRY_ASSIGN(a.backend, detail::first_string(doc, {"winner_backend", "backend"}, k_root));
  const bool no_winner =
      util::lower_ascii(a.winner_kind.value_or("")) == "none" || (!a.winner_kind && !a.backend);
  if (measured == false || no_winner) {
    return std::vector<AttemptRecord>{};
  }
  std::optional<std::string> name;
  RFDB_TRY_ASSIGN(name, detail::first_string(doc, {"short_name", "task"}, k_root));
  const auto parts = detail::path_components(rel_path);
  if (!name && parts.size() >= 2) {
    name = std::string(parts[parts.size() - 2]);
  }
  if (!name) {
    return invalid("/short_name: missing, and no task directory in the path");
  }
  a.short_name = std::string(detail::strip_suffix(*name, "_task"));
  detail::warn_misspelled_keys(doc, {"isolated_speedup", "gate"}, k_root, rel_path, warnings);
  RFDB_TRY_ASSIGN(a.isolated_speedup,
                  detail::get_speedup(doc, "isolated_speedup", k_root, detail::ZeroSpeedup::reject));
  RFDB_TRY_ASSIGN(a.verdict_raw, get_string(doc, "gate", k_root));
  a.verdict = opbench_verdict(a.verdict_raw);
  std::optional<std::string> op_kind;
  RFDB_TRY_ASSIGN(op_kind, get_string(doc, "op_kind", k_root));
  a.op_class =
      domain::canonical<domain::OpClass>(detail::attempt_op_class(op_kind, rel_path, k_root, warnings));
  RFDB_TRY_ASSIGN(a.reason, get_string(doc, "reason", k_root));
  RFDB_TRY_ASSIGN(a.round, get_string(doc, "round", k_root));
  std::optional<std::string> env;
  std::optional<std::string> flags;
  RFDB_TRY_ASSIGN(env, get_text_or_list(doc, "apply_env", k_root));
  RFDB_TRY_ASSIGN(flags, get_text_or_list(doc, "apply_flags", k_root));
  finish_lever(a, "opbench_result", env, flags);
  RFDB_TRY(read_implementation_refs(doc, a));
  a.origin = "opbench";
  a.json_pointer = k_root;
  return std::vector<AttemptRecord>{std::move(a)};
}

// One sweep trial. kept → confirmed when delta_pct > 0 else partial; not
// kept → dead_end; kept missing → unknown. nullopt (with a warning) for a
// trial that names no change, axis or id.
Result<std::optional<AttemptRecord>> sweep_trial(const json& t, const std::string& ptr,
                                                 std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(t, ptr));
  AttemptRecord a;
  a.short_name = "config";
  RFDB_TRY_ASSIGN(a.candidate, get_string(t, "id", ptr));
  RFDB_TRY_ASSIGN(a.config_change, detail::first_string(t, {"change", "axis"}, ptr));
  if (!a.config_change) {
    a.config_change = a.candidate;
  }
  if (!a.config_change) {
    detail::warn(warnings, rel_path, ptr, "trial has no change, axis or id; skipped");
    return std::optional<AttemptRecord>();
  }
  RFDB_TRY_ASSIGN(a.e2e_delta_pct, detail::get_e2e_delta(t, "delta_pct", ptr));
  std::optional<bool> kept;
  RFDB_TRY_ASSIGN(kept, get_bool(t, "kept", ptr));
  if (kept) {
    a.verdict_raw = *kept ? "kept" : "rejected";
    a.verdict = !*kept ? domain::Verdict::dead_end
                       : (a.e2e_delta_pct && *a.e2e_delta_pct > 0.0 ? domain::Verdict::confirmed
                                                                    : domain::Verdict::partial);
  }
  RFDB_TRY_ASSIGN(a.output_parity, get_string(t, "parity", ptr));
  RFDB_TRY_ASSIGN(a.reason, get_string(t, "note", ptr));
  a.lever = "config: " + *a.config_change;
  a.lever_kind = domain::LeverKind::config;
  a.origin = "sweep";
  a.json_pointer = ptr;
  return std::optional<AttemptRecord>(std::move(a));
}

Result<std::vector<AttemptRecord>> sweep_impl(const json& doc, std::string_view rel_path,
                                              std::vector<Warning>& warnings)
{
  const json* trials = &doc;
  std::string base;
  if (doc.is_object()) {
    const auto it = doc.find("trials");
    if (it == doc.end() || it->is_null()) {
      detail::warn(warnings, rel_path, "/trials", "no trials recorded");
      return std::vector<AttemptRecord>{};
    }
    trials = &*it;
    base = "/trials";
  }
  if (!trials->is_array()) {
    return invalid(fmt::format("{}: expected an array of trials, got {}", detail::show_pointer(base),
                               describe_value(*trials)));
  }
  std::vector<AttemptRecord> out;
  out.reserve(trials->size());
  for (std::size_t i = 0; i < trials->size(); ++i) {
    std::optional<AttemptRecord> a;
    RFDB_TRY_ASSIGN(a, sweep_trial((*trials)[i], child_pointer(base, i), rel_path, warnings));
    if (a) {
      out.push_back(std::move(*a));
    }
  }
  return out;
}

} // namespace

Result<std::vector<AttemptRecord>> parse_integrate_result(const json& doc, std::string_view rel_path,
                                                          std::vector<Warning>& warnings)
{
  return integrate_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

Result<std::vector<AttemptRecord>> parse_opbench_result(const json& doc, std::string_view rel_path,
                                                        std::vector<Warning>& warnings)
{
  return opbench_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

Result<std::vector<AttemptRecord>> parse_sweep_results(const json& doc, std::string_view rel_path,
                                                       std::vector<Warning>& warnings)
{
  return sweep_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
