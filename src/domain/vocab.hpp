// Closed vocabularies of rfdb as enum classes, with their one stored spelling:
// `to_string` gives the text the store's columns (and their CHECK
// constraints) hold, `parse<E>` reads that exact text back.
//
// The store keeps the raw text; code converts at the boundary and compares
// enums, so a typo in a value fails to compile. Producer spellings
// ("memory_bound", "med", "stage B") are mapped by domain/normalize.hpp, not
// here: parse accepts the canonical spelling only (case-sensitive).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace rfdb::domain {

// Kernel operation class (docs/glossary.md, "Op class").
enum class OpClass { gemm, moe, attn, elementwise, unknown };
// What limits a kernel on the roofline.
enum class BoundType { memory, compute, latency, unknown };
// Roofline headroom band of a kernel (band_headroom in domain/roofline.hpp).
enum class HeadroomClass { underperforming, moderate, saturated, unknown };
// Confidence of a roofline verdict.
enum class Confidence { low, medium, high };
// Roofline analysis stage: A (analytic) < B < C (measured); spelled "A" | "B" | "C".
enum class Stage { a, b, c };
// Where a roofline verdict came from.
enum class SourceKind { analytic, measured };
// Integrate gate of an attempt (docs/artifacts.md, "Attempts").
enum class Gate { accepted, stack, rejected, incomplete };
// Attempt verdict (docs/attempt-model.md).
enum class Verdict { confirmed, partial, dead_end, flagged, incomplete, unknown };
// A run's Director validation, classified (docs/artifacts.md, "The run's headline").
enum class ValidationClass { win, no_win, flagged, unknown };
// What an attempt measured: a kernel candidate or a serving-config trial.
enum class AttemptKind { kernel, config };
// Kind of lever an attempt pulled (lever_kind_for in domain/normalize.hpp).
enum class LeverKind { config, tuning, authored, backend, fusion, precision, other };
// Serving regime of a reuse key (normalize_regime in domain/normalize.hpp).
enum class Regime { decode, prefill, both, unknown };
// Lifecycle of an imported finding.
enum class Lifecycle { active, archived };
// Output parity of an integrate result or sweep trial; "n/a" is spelled na.
enum class OutputParity { pass, fail, na };
// The reject word of an integrate reason (docs/artifacts.md, "Attempts") that rfdb acts
// on; other words are kept as text and parse to nullopt.
enum class RejectReason { no_engagement, parity_regression, accuracy_regression, output_corruption };
// A Director / kb.py validation_status as written (docs/artifacts.md, "The run's headline"; docs/playbook.md,
// "Imported knowledge"); validation_class (domain/normalize.hpp) maps it to a ValidationClass.
enum class ValidationStatus {
  accepted,
  validated_win,
  validated_no_win,
  rejected,
  flagged,
  unknown,
  phase_partial
};
// Which artifact an attempt record came from (docs/attempt-model.md).
enum class AttemptOrigin { integrate, opbench, sweep, ledger, accepted, pending, flagged };
// The op_class of a reuse key: an OpClass, or config (a serving-config
// finding) or method (a methodology finding) for findings about no kernel.
enum class ReuseClass { gemm, moe, attn, elementwise, unknown, config, method };

// The artifact family of an eval-dir file (ingest/evaldir/files.hpp, docs/artifacts.md, "How the fields are
// mapped").
enum class Artifact {
  env_report,
  bench_summary,
  profile_topn,
  profile_roofline,
  measured_roofline,
  integrate_result,
  opbench_result,
  sweep_results,
  director_validation,
  workflow_return,
  env_info,         // env_info.txt: free text, one `<package> <version>` per line (issue 30)
  roofline_install, // kernels/<task>/roofline/install.json: the rocprof-compute install record
  patch,            // final/final_patch.diff, a candidate's own *.diff / *.patch: free text (issue 31)
  tuned_table,      // a tuning table under config/ck_tune/ or config/moe_tuned*/ (issue 31)
  bench_runs        // bench_runs.jsonl beside a bench_summary.json: one timed round a line (issue 30)
};
// The role of a bench_summary.json in its eval dir (docs/artifacts.md, "The files, in the order a run writes
// them").
enum class BenchRole {
  baseline,
  validation_base,
  validation_final,
  config,
  overlay_ref,
  overlay_cand,
  final,
  other
};
// What a file under a knowledge directory is (docs/artifacts.md, "Legacy knowledge").
enum class KnowledgeRole { card, playbook, proposal, index, readme, archive, other };
// Where an imported finding came from: an experience card, a legacy playbook line or an _inbox proposal.
enum class FindingOrigin { card, playbook, proposal };
// What one `rfdb ingest` path was: an eval dir (run) or legacy knowledge.
enum class IngestKind { run, knowledge };
// The output formats of the read commands (`--format`).
enum class OutputFormat { table, json, csv, md, python };

// The text of an open field (gfx, a raw status) that says nothing is known.
inline constexpr std::string_view k_unknown = "unknown";

// The stored spelling of every value of E, indexed by the enum's value.
template <typename E> struct VocabNames;

template <> struct VocabNames<OpClass> {
  static constexpr std::array<std::string_view, 5> names{"gemm", "moe", "attn", "elementwise", "unknown"};
};
template <> struct VocabNames<BoundType> {
  static constexpr std::array<std::string_view, 4> names{"memory", "compute", "latency", "unknown"};
};
template <> struct VocabNames<HeadroomClass> {
  static constexpr std::array<std::string_view, 4> names{"underperforming", "moderate", "saturated",
                                                         "unknown"};
};
template <> struct VocabNames<Confidence> {
  static constexpr std::array<std::string_view, 3> names{"low", "medium", "high"};
};
template <> struct VocabNames<Stage> {
  static constexpr std::array<std::string_view, 3> names{"A", "B", "C"};
};
template <> struct VocabNames<SourceKind> {
  static constexpr std::array<std::string_view, 2> names{"analytic", "measured"};
};
template <> struct VocabNames<Gate> {
  static constexpr std::array<std::string_view, 4> names{"accepted", "stack", "rejected", "incomplete"};
};
template <> struct VocabNames<Verdict> {
  static constexpr std::array<std::string_view, 6> names{"confirmed", "partial",    "dead_end",
                                                         "flagged",   "incomplete", "unknown"};
};
template <> struct VocabNames<ValidationClass> {
  static constexpr std::array<std::string_view, 4> names{"win", "no_win", "flagged", "unknown"};
};
template <> struct VocabNames<AttemptKind> {
  static constexpr std::array<std::string_view, 2> names{"kernel", "config"};
};
template <> struct VocabNames<LeverKind> {
  static constexpr std::array<std::string_view, 7> names{"config", "tuning",    "authored", "backend",
                                                         "fusion", "precision", "other"};
};
template <> struct VocabNames<Regime> {
  static constexpr std::array<std::string_view, 4> names{"decode", "prefill", "both", "unknown"};
};
template <> struct VocabNames<Lifecycle> {
  static constexpr std::array<std::string_view, 2> names{"active", "archived"};
};
template <> struct VocabNames<RejectReason> {
  static constexpr std::array<std::string_view, 4> names{"no_engagement", "parity_regression",
                                                         "accuracy_regression", "output_corruption"};
};
template <> struct VocabNames<ValidationStatus> {
  static constexpr std::array<std::string_view, 7> names{
      "accepted", "validated_win", "validated_no_win", "rejected", "flagged", "unknown", "phase_partial"};
};
template <> struct VocabNames<AttemptOrigin> {
  static constexpr std::array<std::string_view, 7> names{"integrate", "opbench", "sweep",  "ledger",
                                                         "accepted",  "pending", "flagged"};
};
template <> struct VocabNames<ReuseClass> {
  static constexpr std::array<std::string_view, 7> names{"gemm",    "moe",    "attn",  "elementwise",
                                                         "unknown", "config", "method"};
};
template <> struct VocabNames<OutputParity> {
  static constexpr std::array<std::string_view, 3> names{"pass", "fail", "n/a"};
};

template <> struct VocabNames<Artifact> {
  static constexpr std::array<std::string_view, 15> names{
      "env_report",       "bench_summary",    "profile_topn",  "profile_roofline",    "measured_roofline",
      "integrate_result", "opbench_result",   "sweep_results", "director_validation", "workflow_return",
      "env_info",         "roofline_install", "patch",         "tuned_table",         "bench_runs"};
};
template <> struct VocabNames<BenchRole> {
  static constexpr std::array<std::string_view, 8> names{
      "baseline", "validation_base", "validation_final", "config", "overlay_ref", "overlay_cand", "final",
      "other"};
};
template <> struct VocabNames<KnowledgeRole> {
  static constexpr std::array<std::string_view, 7> names{"card",   "playbook", "proposal", "index",
                                                         "readme", "archive",  "other"};
};
template <> struct VocabNames<FindingOrigin> {
  static constexpr std::array<std::string_view, 3> names{"card", "playbook", "proposal"};
};
template <> struct VocabNames<IngestKind> {
  static constexpr std::array<std::string_view, 2> names{"run", "knowledge"};
};
template <> struct VocabNames<OutputFormat> {
  static constexpr std::array<std::string_view, 5> names{"table", "json", "csv", "md", "python"};
};

// A closed vocabulary: an enum class with a VocabNames table.
template <typename E>
concept Vocabulary = std::is_enum_v<E> && requires
{
  VocabNames<E>::names;
};

// Every value of E, in declaration order.
template <Vocabulary E> constexpr std::array<E, VocabNames<E>::names.size()> all_values()
{
  std::array<E, VocabNames<E>::names.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<E>(i);
  }
  return out;
}

// The stored spelling of a value ("saturated", "dead_end", "B", "n/a").
template <Vocabulary E> constexpr std::string_view to_string(E value)
{
  return VocabNames<E>::names[static_cast<std::size_t>(value)];
}

// The value spelled exactly `text` (as stored); nullopt for any other text,
// including "" and other cases ("Saturated").
template <Vocabulary E> constexpr std::optional<E> parse(std::string_view text)
{
  const auto& names = VocabNames<E>::names;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) {
      return static_cast<E>(i);
    }
  }
  return std::nullopt;
}

// parse<E>(text), or `fallback` when the text is not a value of E (an empty
// column, a value outside the vocabulary).
template <Vocabulary E> constexpr E parse_or(std::string_view text, E fallback)
{
  return parse<E>(text).value_or(fallback);
}

// The value spelled `text`, for text that is a stored spelling by contract
// (what the normalizers of domain/normalize.hpp return): the boundary from
// their text to a member that holds the enum. Throws std::logic_error naming
// the text for any other text (a bug, never data).
template <Vocabulary E> constexpr E canonical(std::string_view text)
{
  if (const auto value = parse<E>(text)) {
    return *value;
  }
  throw std::logic_error("not a stored spelling of its vocabulary: '" + std::string(text) + "'");
}

// True when `text` is the stored spelling of `value`: the boundary test for a
// raw column (`is(row.gate, Gate::accepted)`), false for "" and unknown text.
template <Vocabulary E> constexpr bool is(std::string_view text, E value)
{
  return text == to_string(value);
}

} // namespace rfdb::domain
