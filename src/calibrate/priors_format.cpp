// Renderers of the priors: table, JSON, CSV, markdown, python and --explain.
#include "calibrate/priors_format.hpp"

#include "calibrate/priors_coherence.hpp"
#include "domain/noise.hpp"
#include "domain/roofline.hpp"
#include "domain/vocab.hpp"
#include "util/csv.hpp"
#include "util/table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <vector>

namespace rfdb::calibrate {

namespace {

using Json = nlohmann::ordered_json;

// Round to `dp` decimals; -0 becomes 0 so "-0.0000" never appears.
double round_dp(double x, int dp)
{
  const double scale = std::pow(10.0, dp);
  const double r = std::round(x * scale) / scale;
  return r == 0.0 ? 0.0 : r;
}

// Fixed decimals, rounded exactly as the JSON numbers are.
std::string fixed(double x, int dp)
{
  return fmt::format("{:.{}f}", round_dp(x, dp), dp);
}

// Up to `max_dp` decimals, trailing zeros dropped down to `min_dp`
// (0.9 → "0.90", 0.875 → "0.875", 3 → "3" with min_dp 0).
std::string trimmed(double x, int max_dp, int min_dp)
{
  std::string s = fixed(x, max_dp);
  const auto dot = s.find('.');
  if (dot == std::string::npos) {
    return s;
  }
  std::size_t keep = s.size();
  while (keep > dot + 1 + static_cast<std::size_t>(min_dp) && s[keep - 1] == '0') {
    --keep;
  }
  if (keep == dot + 1) {
    keep = dot;
  }
  return s.substr(0, keep);
}

std::string interval_text(const std::optional<Interval>& interval)
{
  if (!interval) {
    return "-";
  }
  return fmt::format("[{}, {}]", fixed(interval->lo, 4), fixed(interval->hi, 4));
}

// Why a prior row has no interval: the estimator's interval_reason, or, when
// it left that empty, what the row's counts imply ("" when there is one).
std::string interval_reason_of(const PriorRow& row)
{
  if (row.interval) {
    return "";
  }
  if (!row.interval_reason.empty()) {
    return row.interval_reason;
  }
  if (row.n == 0) {
    return "no observations";
  }
  return row.runs < 2 ? "one run" : "";
}

// Why a transfer row has no interval ("" when it has one).
std::string interval_reason_of(const TransferRow& row)
{
  return !row.interval && row.n < 2 ? "one run" : "";
}

// An interval cell: "[lo, hi]", else the reason it is absent, else "-".
std::string interval_cell(const std::optional<Interval>& interval, const std::string& reason)
{
  return interval || reason.empty() ? interval_text(interval) : reason;
}

Json reason_json(const std::string& reason)
{
  return reason.empty() ? Json(nullptr) : Json(reason);
}

Json interval_json(const std::optional<Interval>& interval)
{
  if (!interval) {
    return nullptr;
  }
  return Json::array({round_dp(interval->lo, 4), round_dp(interval->hi, 4)});
}

template <typename T> Json optional_json(const std::optional<T>& v)
{
  if (!v) {
    return nullptr;
  }
  return *v;
}

Json nearest_json(const std::vector<std::pair<std::string, double>>& nearest)
{
  Json out = Json::array();
  for (const auto& [key, value] : nearest) {
    out.push_back(Json{{"key", key}, {"target_eff", round_dp(value, 4)}});
  }
  return out;
}

// The "parameters" object of the JSON contract.
Json params_json(const PriorsParams& p)
{
  Json params;
  params["prior_strength"] = round_dp(p.prior_strength, 6);
  params["transfer_strength"] = round_dp(p.transfer_strength, 6);
  params["quantile"] = round_dp(p.quantile, 6);
  params["iso_noise_band"] = round_dp(p.iso_noise, 6);
  params["confidence_weights"] = Json{{"high", round_dp(p.confidence_weights.high, 6)},
                                      {"medium", round_dp(p.confidence_weights.medium, 6)},
                                      {"low", round_dp(p.confidence_weights.low, 6)}};
  params["half_life_days"] = p.half_life_days ? Json(round_dp(*p.half_life_days, 6)) : Json(nullptr);
  params["include_parity_fail"] = p.include_parity_fail;
  params["include_biased_profiler"] = p.include_biased_profiler;
  if (!p.stack.empty()) {
    params["stack"] = p.stack; // --stack: only runs whose stack satisfies every spec
  }
  params["shift_weighting"] = to_string(p.shift_weighting);
  params["before_shift_weight"] = round_dp(p.before_shift_weight, 6);
  return params;
}

// The "shifts" array of the JSON contract: the detected shifts the weights respected.
Json shifts_json(const std::vector<Shift>& shifts)
{
  Json out = Json::array();
  for (const Shift& s : shifts) {
    Json j;
    j["key"] = shift_key(s);
    j["measure"] = std::string(to_string(s.measure));
    j["op_class"] = s.op_class;
    j["gfx"] = optional_json(s.gfx);
    j["regime"] = optional_json(s.regime);
    j["before_run"] = s.before_run;
    j["before_date"] = s.before_date;
    j["after_run"] = s.after_run;
    j["after_date"] = s.after_date;
    j["before_runs"] = s.before_runs;
    j["after_runs"] = s.after_runs;
    j["before_median"] = round_dp(s.before_median, 4);
    j["after_median"] = round_dp(s.after_median, 4);
    j["step"] = round_dp(shift_step(s), 4);
    j["before_interval"] = interval_json(s.before_interval);
    j["after_interval"] = interval_json(s.after_interval);
    j["p_value"] = round_dp(s.p_value, 4);
    j["attribution"] = s.attribution.empty() ? Json(nullptr) : Json(s.attribution);
    out.push_back(std::move(j));
  }
  return out;
}

// One "priors" row of the JSON contract.
Json prior_row_json(const PriorRow& row)
{
  Json j;
  j["op_class"] = row.op_class;
  j["gfx"] = optional_json(row.gfx);
  j["regime"] = optional_json(row.regime);
  j["seed"] = round_dp(row.seed, 4);
  j["target_eff"] = round_dp(row.target_eff, 4);
  j["n"] = row.n;
  j["runs"] = row.runs;
  j["measured"] = row.measured;
  j["analytic"] = row.analytic;
  j["weight"] = round_dp(row.weight, 3);
  j["statistic"] = row.statistic ? Json(round_dp(*row.statistic, 4)) : Json(nullptr);
  j["interval"] = interval_json(row.interval);
  j["interval_reason"] = reason_json(interval_reason_of(row));
  j["contradictions"] = row.contradictions;
  j["infeasible"] = row.infeasible;
  j["last_seen"] = optional_json(row.last_seen);
  j["source"] = to_string(row.source);
  j["nearest"] = nearest_json(row.nearest);
  return j;
}

std::string nearest_text(const std::vector<std::pair<std::string, double>>& nearest)
{
  std::string out;
  for (const auto& [key, value] : nearest) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", key, fixed(value, 4));
  }
  return out;
}

std::string params_summary(const PriorsParams& p)
{
  const auto& w = p.confidence_weights;
  const std::string decay =
      p.half_life_days ? fmt::format("half-life {} days", trimmed(*p.half_life_days, 3, 0)) : "no time decay";
  return fmt::format(
      "k={}, quantile {}, iso noise band {}, confidence weights high {} / medium {} / low {}, {}",
      trimmed(p.prior_strength, 3, 0), trimmed(p.quantile, 4, 2), trimmed(p.iso_noise, 4, 2),
      fixed(w.high, 2), fixed(w.medium, 2), fixed(w.low, 2), decay);
}

// The options that narrowed or widened the evidence, as a user would type
// them ("--stack 'vllm>=0.26', --since-shift"); "" when none: a saved table,
// md or python file says which evidence it rests on, as the JSON parameters do.
std::string evidence_filters(const PriorsParams& p)
{
  std::vector<std::string> parts;
  for (const auto& spec : p.stack) {
    parts.push_back(fmt::format("--stack '{}'", spec));
  }
  if (p.since) {
    parts.push_back("--since " + *p.since);
  }
  if (p.shift_weighting == ShiftWeighting::since_shift) {
    parts.emplace_back("--since-shift");
  }
  if (p.include_biased_profiler) {
    parts.emplace_back("--include-biased-profiler");
  }
  if (p.include_parity_fail) {
    parts.emplace_back("--include-parity-fail");
  }
  std::string out;
  for (const auto& part : parts) {
    out += (out.empty() ? "" : ", ") + part;
  }
  return out;
}

// Left-aligned text columns, right-aligned where `right[i]`; two spaces apart;
// the first row is the header. util::render_table: widths in code points and
// stored text (kernel and lever names) escaped as \xHH.
std::string aligned(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right)
{
  if (rows.empty()) {
    return "";
  }
  std::vector<util::Column> columns;
  for (std::size_t i = 0; i < rows.front().size(); ++i) {
    columns.push_back({rows.front()[i], right[i] ? util::Align::right : util::Align::left});
  }
  return util::render_table(columns, {rows.begin() + 1, rows.end()});
}

std::string plural(int n, std::string_view word)
{
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The md "why" cell: where the value came from, in one line.
std::string why_text(const PriorRow& row, const PriorsParams& p, const std::string& parent_key)
{
  const std::string origin =
      row.gfx ? fmt::format("parent {} (seed shrunk by the rest of {})", fixed(row.parent, 4), parent_key)
              : fmt::format("seed {}", trimmed(row.seed, 3, 2));
  std::string why;
  if (row.source == PriorSource::calibrated) {
    why = fmt::format("{}; {} obs (q {}, W {}) shrunk with k={}", origin, row.n, fixed(*row.statistic, 3),
                      fixed(row.weight, 2), trimmed(p.prior_strength, 3, 0));
  } else if (row.source == PriorSource::parent) {
    why = fmt::format("no observations; {}", origin);
  } else {
    why = fmt::format("{}; no observations", origin);
  }
  if (!row.nearest.empty()) {
    why += "; nearest with evidence: " + nearest_text(row.nearest);
  }
  if (row.contradictions > 0) {
    why += "; " + plural(row.contradictions, "contradiction");
  }
  if (row.infeasible > 0) {
    why += fmt::format("; {} infeasible", row.infeasible);
  }
  return why;
}

std::string parent_key_of(const PriorRow& row)
{
  PriorRow parent = row;
  if (parent.regime) {
    parent.regime.reset();
  } else {
    parent.gfx.reset();
  }
  return row_key(parent);
}

std::string attempt_ident(const ExplainedAttempt& x)
{
  return fmt::format("{}", x.attempt.run_id);
}

std::string opt_fixed(const std::optional<double>& v, int dp)
{
  return v ? fixed(*v, dp) : "-";
}

std::string explain_observations(const KeyExplanation& ex)
{
  std::string out = fmt::format("Contributing observations ({}):\n", ex.observations.size());
  if (ex.observations.empty()) {
    return out + "  (none)\n";
  }
  std::vector<std::vector<std::string>> rows = {{"  run", "date", "round", "kernel", "lever", "gfx", "regime",
                                                 "roofline_pct", "s", "e", "weight", "note"}};
  for (const auto& x : ex.observations) {
    const Observation& a = x.attempt;
    std::string note = x.evaluation.e_from_post ? "e from measured post roofline" : "";
    if (x.evaluation.contradiction) {
      note += std::string(note.empty() ? "" : "; ") + "contradiction (s beat predicted attainable)";
    }
    rows.push_back({"  " + attempt_ident(x), a.run_date, a.round, a.short_name, a.lever, a.gfx, a.regime,
                    opt_fixed(a.prediction.roofline_pct, 4), opt_fixed(a.isolated_speedup, 3),
                    fixed(x.evaluation.e, 4), fixed(x.evaluation.weight, 3), note.empty() ? "-" : note});
  }
  return out + aligned(rows, {false, false, true, false, false, false, false, true, true, true, true, false});
}

std::string explain_excluded(const KeyExplanation& ex)
{
  std::string out = fmt::format("Excluded attempts ({}):\n", ex.excluded.size());
  if (ex.excluded.empty()) {
    return out + "  (none)\n";
  }
  std::vector<std::vector<std::string>> rows = {
      {"  run", "date", "round", "kernel", "lever", "gfx", "regime", "roofline_pct", "s", "reason"}};
  for (const auto& x : ex.excluded) {
    const Observation& a = x.attempt;
    std::string reason = to_string(*x.evaluation.excluded);
    if (*x.evaluation.excluded == ExclusionReason::biased_profiler) {
      reason += fmt::format(" (profiler_hbm_undercount: rocprof-compute < {} on {} under-counts HBM bytes; "
                            "--include-biased-profiler counts it)",
                            domain::k_hbm_fixed_profiler_version, domain::k_hbm_undercount_gfx);
    }
    if (*x.evaluation.excluded == ExclusionReason::infeasible) {
      reason += fmt::format(" (e {} > {:g}; counted as a contradiction)", fixed(x.evaluation.e, 4),
                            domain::k_infeasible_e);
    }
    rows.push_back({"  " + attempt_ident(x), a.run_date, a.round, a.short_name, a.lever, a.gfx, a.regime,
                    opt_fixed(a.prediction.roofline_pct, 4), opt_fixed(a.isolated_speedup, 3), reason});
  }
  return out + aligned(rows, {false, false, true, false, false, false, false, true, true, false});
}

// Right-censored observations (heads never tried), apart from the
// attempts; empty when the key has none.
std::string explain_censored(const KeyExplanation& ex)
{
  if (ex.censored.empty()) {
    return "";
  }
  std::string out =
      fmt::format("Censored observations ({}; heads the run never tried: e is at least roofline_pct; one "
                  "enters q at its bound when that is above {}, the q of the uncensored observations or "
                  "else the parent value):\n",
                  ex.censored.size(), fixed(ex.censor_threshold, 4));
  std::vector<std::vector<std::string>> rows = {
      {"  run", "date", "round", "kernel", "gfx", "regime", "censored", "weight", "in q"}};
  for (const auto& x : ex.censored) {
    const Observation& a = x.attempt;
    rows.push_back(
        {"  " + a.run_id, a.run_date, a.round, a.short_name, a.gfx, a.regime,
         fmt::format("censored ({}): e >= {}", domain::to_string(a.censored), fixed(x.evaluation.e, 4)),
         fixed(x.evaluation.weight, 3),
         censored_enters(x.evaluation.e, ex.censor_threshold) ? "entered at its bound"
                                                              : "left out (not above)"});
  }
  return "\n" + out + aligned(rows, {false, false, true, false, false, false, false, true, false});
}

// The md "why" cell of a transfer row.
std::string transfer_why(const TransferRow& r)
{
  std::vector<std::string> parts;
  if (r.capped) {
    parts.push_back(
        fmt::format("capped at 1.0: a ratio above 1 needs {} runs", domain::k_transfer_breadth_runs));
  } else if (r.source == TransferSource::raw) {
    parts.emplace_back("fewer than 2 runs: use the raw Amdahl ceiling");
  }
  if (r.statistic) {
    parts.push_back("m " + fixed(*r.statistic, 4));
  }
  if (r.beyond_ceiling > 0) {
    parts.push_back(fmt::format("{} beyond ceiling", r.beyond_ceiling));
  }
  if (r.sign_flips > 0) {
    parts.push_back(plural(r.sign_flips, "sign flip"));
  }
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, "; "));
}

// A Python literal for an interval: [lo, hi] or None.
std::string python_interval(const std::optional<Interval>& interval)
{
  return interval ? fmt::format("[{}, {}]", fixed(interval->lo, 4), fixed(interval->hi, 4)) : "None";
}

// Every line of `text` after its first newline indented by `by` more spaces.
std::string indent(const std::string& text, int by)
{
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '\n') {
      out.append(static_cast<std::size_t>(by), ' ');
    }
  }
  return out;
}

// One level of the python export: the value dict's entries, the evidence
// dict's entries (one per line) and a comment per value not calibrated.
struct PyLevel {
  std::string values;
  std::string evidence;
  std::string comments;
  void add(const PriorRow& r)
  {
    values += fmt::format("{}\"{}\": {}", values.empty() ? "" : ", ", r.op_class, fixed(r.target_eff, 4));
    evidence +=
        fmt::format("\n    \"{}\": {{\"n\": {}, \"runs\": {}, \"source\": \"{}\", \"interval\": {}}},",
                    r.op_class, r.n, r.runs, to_string(r.source), python_interval(r.interval));
    if (r.source == PriorSource::parent) {
      comments += fmt::format("# {} copied from its parent (n {})\n", row_key(r), r.n);
    } else if (r.source == PriorSource::seed) {
      comments += fmt::format("# {}: seed, no observations\n", row_key(r));
    }
  }
};

std::string percent(double share)
{
  return fmt::format("{:.1f} %", round_dp(share * 100.0, 1));
}

// "0.8269 = 40.0 % seed 0.9000 + 13.3 % q 0.8500 (gemm minus gfx942: n 5, runs 2, W 1.250) + …"
std::string mix_text(const SharedPath& path, double seed)
{
  std::string out =
      fmt::format("{} = {} seed {}", fixed(path.target_eff, 4), percent(path.seed_share), fixed(seed, 4));
  for (const SharedStep& s : path.steps) {
    if (s.step.statistic) {
      out +=
          fmt::format(" + {} q {} ({}: n {}, runs {}, W {})", percent(s.share), fixed(*s.step.statistic, 4),
                      s.step.set, s.step.n, s.step.runs, fixed(s.step.weight, 3));
    }
  }
  return out;
}

// The --explain paragraph on a key outside its children's range.
std::string coherence_text(const ChildrenCoherence& c)
{
  std::string children;
  double max_child_seed = 0.0;
  bool seed_beyond_all = true; // the seed lies on the key's side of every child
  for (const SharedPath& child : c.children) {
    children += fmt::format("{}{} {}", children.empty() ? "" : ", ", child.key, fixed(child.target_eff, 4));
    max_child_seed = std::max(max_child_seed, child.seed_share);
    seed_beyond_all = seed_beyond_all && (c.above ? c.seed > child.target_eff : c.seed < child.target_eff);
  }
  const char* side = c.above ? "above" : "below";
  const ShrinkStep& own = c.key.steps.back().step;
  std::string out = fmt::format("Why {} lies {} all of its children ({}):\n", c.key.key, side, children);
  out += fmt::format(
      "  {} pools its {} observations ({}) into one weighted quantile and shrinks once:\n    {}\n", c.key.key,
      own.n, plural(own.runs, "run"), mix_text(c.key, c.seed));
  out += "  Each child follows its own path: the evidence outside it shrinks the seed first, then its own:\n";
  for (const SharedPath& child : c.children) {
    out += fmt::format("    {}: {}\n", child.key, mix_text(child, c.seed));
  }
  if (c.key.seed_share > max_child_seed && seed_beyond_all) {
    out += fmt::format(
        "  {} keeps {} of the seed {}, each child at most {}; the seed lies {} every child, so the "
        "pooled value stays {} them.\n",
        c.key.key, percent(c.key.seed_share), fixed(c.seed, 4), percent(max_child_seed), side, side);
  } else {
    out += fmt::format("  The pooled quantile lies between the children's own, but the mixes of seed and "
                       "quantiles differ, so {} need not lie between its children.\n",
                       c.key.key);
  }
  return out;
}

Json step_json(const ShrinkStep& st)
{
  return Json{{"set", st.set},
              {"from", round_dp(st.from, 4)},
              {"n", st.n},
              {"runs", st.runs},
              {"weight", round_dp(st.weight, 3)},
              {"statistic", st.statistic ? Json(round_dp(*st.statistic, 4)) : Json(nullptr)},
              {"to", round_dp(st.to, 4)}};
}

Json path_json(const SharedPath& path)
{
  Json steps = Json::array();
  for (const SharedStep& s : path.steps) {
    Json j = step_json(s.step);
    j["share"] = round_dp(s.share, 4);
    steps.push_back(std::move(j));
  }
  return Json{{"key", path.key},
              {"target_eff", round_dp(path.target_eff, 4)},
              {"seed_share", round_dp(path.seed_share, 4)},
              {"steps", std::move(steps)}};
}

Json attempt_json(const ExplainedAttempt& x)
{
  const Observation& a = x.attempt;
  Json j;
  j["run"] = a.run_id;
  j["date"] = a.run_date;
  j["round"] = a.round;
  j["kernel"] = a.short_name;
  j["lever"] = a.lever;
  j["gfx"] = a.gfx;
  j["regime"] = a.regime;
  j["roofline_pct"] =
      a.prediction.roofline_pct ? Json(round_dp(*a.prediction.roofline_pct, 4)) : Json(nullptr);
  j["isolated_speedup"] = a.isolated_speedup ? Json(round_dp(*a.isolated_speedup, 4)) : Json(nullptr);
  j["prediction_source"] = optional_json(a.prediction.source_kind);
  return j;
}

} // namespace

Result<PriorsFormat> parse_priors_format(std::string_view text)
{
  if (domain::is(text, domain::OutputFormat::json)) {
    return PriorsFormat::json;
  }
  if (domain::is(text, domain::OutputFormat::table)) {
    return PriorsFormat::table;
  }
  if (domain::is(text, domain::OutputFormat::csv)) {
    return PriorsFormat::csv;
  }
  if (domain::is(text, domain::OutputFormat::md)) {
    return PriorsFormat::md;
  }
  if (domain::is(text, domain::OutputFormat::python)) {
    return PriorsFormat::python;
  }
  return fail(ErrorCode::usage,
              fmt::format("bad --format '{}': expected json, table, csv, md or python", text));
}

std::string render_priors(const PriorsResult& result, PriorsFormat format)
{
  switch (format) {
  case PriorsFormat::json:
    return render_priors_json(result);
  case PriorsFormat::table:
    return render_priors_table(result);
  case PriorsFormat::csv:
    return render_priors_csv(result);
  case PriorsFormat::md:
    return render_priors_md(result);
  case PriorsFormat::python:
    return render_priors_python(result);
  }
  return render_priors_json(result);
}

std::string render_priors_json(const PriorsResult& result)
{
  Json doc;
  doc["as_of"] = optional_json(result.as_of);
  doc["parameters"] = params_json(result.params);
  doc["shifts"] = shifts_json(result.params.shifts);
  Json priors = Json::array();
  for (const PriorRow& row : result.priors) {
    priors.push_back(prior_row_json(row));
  }
  doc["priors"] = std::move(priors);
  Json transfer = Json::array();
  for (const TransferRow& row : result.e2e_transfer) {
    Json j;
    j["op_class"] = row.op_class;
    j["regime"] = row.regime;
    j["n"] = row.n;
    j["runs"] = row.n;
    j["attempts"] = row.attempts;
    j["median_ratio"] = round_dp(row.median_ratio, 4);
    j["capped"] = row.capped;
    j["statistic"] = row.statistic ? Json(round_dp(*row.statistic, 4)) : Json(nullptr);
    j["source"] = to_string(row.source);
    j["interval"] = interval_json(row.interval);
    j["interval_reason"] = reason_json(interval_reason_of(row));
    j["capped"] = row.capped;
    j["sign_flips"] = row.sign_flips;
    j["beyond_ceiling"] = row.beyond_ceiling;
    transfer.push_back(std::move(j));
  }
  doc["e2e_transfer"] = std::move(transfer);
  return doc.dump(2) + "\n";
}

std::string render_priors_table(const PriorsResult& result)
{
  std::string out = fmt::format("target_eff priors as of {} ({})\n", result.as_of.value_or("- (no runs)"),
                                params_summary(result.params));
  if (const auto filters = evidence_filters(result.params); !filters.empty()) {
    out += fmt::format("evidence options: {}\n", filters);
  }
  out += "\n";
  std::vector<std::vector<std::string>> rows = {{"key", "seed", "target_eff", "n", "runs", "W", "q",
                                                 "interval", "contradictions", "infeasible", "last_seen",
                                                 "source"}};
  for (const PriorRow& r : result.priors) {
    rows.push_back({row_key(r), fixed(r.seed, 4), fixed(r.target_eff, 4), std::to_string(r.n),
                    std::to_string(r.runs), fixed(r.weight, 3), opt_fixed(r.statistic, 4),
                    interval_cell(r.interval, interval_reason_of(r)), std::to_string(r.contradictions),
                    std::to_string(r.infeasible), r.last_seen.value_or("-"), to_string(r.source)});
  }
  out += aligned(rows, {false, true, true, true, true, true, true, false, true, true, false, false});
  std::string near;
  for (const PriorRow& r : result.priors) {
    if (r.source == PriorSource::parent && !r.nearest.empty()) {
      near += fmt::format("  {}: {}\n", row_key(r), nearest_text(r.nearest));
    }
  }
  if (!near.empty()) {
    out +=
        "\nKeys without evidence show their parent's value (source parent); nearest keys with evidence:\n" +
        near;
  }
  if (!result.params.shifts.empty()) {
    out += result.params.shift_weighting == ShiftWeighting::since_shift
               ? "\nShifts (--since-shift: only the evidence after the newest shift of each key counts):\n"
               : fmt::format("\nShifts (evidence from before the newest shift of a key weighs × {:g}; "
                             "--since-shift drops it):\n",
                             result.params.before_shift_weight);
    for (const Shift& shift : result.params.shifts) {
      out += "  " + describe_shift(shift) + "\n";
    }
  }
  out += fmt::format(
      "\ne2e transfer (multiply expected_e2e_gain_pct by median_ratio; raw = fewer than 2 runs, use "
      "the raw Amdahl ceiling; capped = a ratio above 1 from fewer than {} runs, exported as 1):\n",
      domain::k_transfer_breadth_runs);
  if (result.e2e_transfer.empty()) {
    out += "  (no attempts with a measured e2e delta and s > 1)\n";
  } else {
    std::vector<std::vector<std::string>> t = {{"op_class", "regime", "runs", "attempts", "median_ratio", "m",
                                                "interval", "capped", "sign_flips", "beyond_ceiling",
                                                "source"}};
    for (const TransferRow& r : result.e2e_transfer) {
      t.push_back({r.op_class, r.regime, std::to_string(r.n), std::to_string(r.attempts),
                   fixed(r.median_ratio, 4), opt_fixed(r.statistic, 4),
                   interval_cell(r.interval, interval_reason_of(r)), r.capped ? "yes" : "no",
                   std::to_string(r.sign_flips), std::to_string(r.beyond_ceiling),
                   r.capped ? fmt::format("{} (capped at 1.0)", to_string(r.source)) : to_string(r.source)});
    }
    out += aligned(t, {false, false, true, true, true, true, false, false, true, true, false});
    out += "  The interval is the uncertainty of the ratio, not a prediction interval for the next run.\n";
  }
  std::string excluded;
  for (const ExclusionCount& c : result.excluded) {
    excluded += fmt::format("{}{} {}", excluded.empty() ? "" : ", ", to_string(c.reason), c.count);
  }
  out += fmt::format("\n{}, {}{}; excluded: {}\n", plural(result.attempts, "attempt"),
                     plural(result.observations, "observation"),
                     result.censored > 0 ? ", " + plural(result.censored, "censored head") : std::string(),
                     excluded.empty() ? "none" : excluded);
  return out;
}

std::string render_priors_csv(const PriorsResult& result)
{
  std::string out = "kind,op_class,gfx,regime,seed,target_eff,median_ratio,n,runs,attempts,weight,statistic,"
                    "interval_lo,interval_hi,interval_reason,measured,analytic,contradictions,infeasible,"
                    "sign_flips,beyond_ceiling,capped,last_seen,source,nearest\n";
  for (const PriorRow& r : result.priors) {
    out += fmt::format("target_eff,{},{},{},{},{},,{},{},,{},{},{},{},{},{},{},{},{},,,,{},{},{}\n",
                       util::csv_field(r.op_class), util::csv_field(r.gfx.value_or("")),
                       util::csv_field(r.regime.value_or("")), fixed(r.seed, 4), fixed(r.target_eff, 4), r.n,
                       r.runs, fixed(r.weight, 3), r.statistic ? fixed(*r.statistic, 4) : "",
                       r.interval ? fixed(r.interval->lo, 4) : "", r.interval ? fixed(r.interval->hi, 4) : "",
                       util::csv_field(interval_reason_of(r)), r.measured, r.analytic, r.contradictions,
                       r.infeasible, r.last_seen.value_or(""), to_string(r.source),
                       util::csv_field(nearest_text(r.nearest)));
  }
  for (const TransferRow& r : result.e2e_transfer) {
    out += fmt::format("e2e_transfer,{},,{},,,{},{},{},{},,{},{},{},{},,,,,{},{},{},,{},\n",
                       util::csv_field(r.op_class), util::csv_field(r.regime), fixed(r.median_ratio, 4), r.n,
                       r.n, r.attempts, r.statistic ? fixed(*r.statistic, 4) : "",
                       r.interval ? fixed(r.interval->lo, 4) : "", r.interval ? fixed(r.interval->hi, 4) : "",
                       util::csv_field(interval_reason_of(r)), r.sign_flips, r.beyond_ceiling,
                       r.capped ? "true" : "false", to_string(r.source));
  }
  return out;
}

std::string render_priors_md(const PriorsResult& result)
{
  std::string out;
  if (const auto filters = evidence_filters(result.params); !filters.empty()) {
    out += fmt::format("Evidence options: `{}`.\n\n", filters);
  }
  out += "| op class | target_eff | n | runs | interval | source | why |\n"
         "|---|---:|---:|---:|---|---|---|\n";
  for (const PriorRow& r : result.priors) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", row_key(r), fixed(r.target_eff, 4), r.n,
                       r.runs, interval_cell(r.interval, interval_reason_of(r)), to_string(r.source),
                       why_text(r, result.params, parent_key_of(r)));
  }
  if (result.e2e_transfer.empty()) {
    return out;
  }
  out += "\ne2e transfer: multiply expected_e2e_gain_pct by median_ratio (raw: fewer than 2 runs, the raw "
         "Amdahl ceiling).\n\n"
         "| op class | regime | median_ratio | runs | attempts | interval | source | why |\n"
         "|---|---|---:|---:|---:|---|---|---|\n";
  for (const TransferRow& r : result.e2e_transfer) {
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} |\n", r.op_class, r.regime, fixed(r.median_ratio, 4), r.n,
        r.attempts, interval_cell(r.interval, interval_reason_of(r)), to_string(r.source), transfer_why(r));
  }
  return out;
}

std::string render_priors_python(const PriorsResult& result)
{
  // Each level's values, evidence and comments, keyed as the dicts nest.
  PyLevel classes;
  std::map<std::string, PyLevel> by_gfx;
  std::map<std::string, std::map<std::string, PyLevel>> by_gfx_regime;
  for (const PriorRow& r : result.priors) {
    PyLevel& level = !r.gfx ? classes : (!r.regime ? by_gfx[*r.gfx] : by_gfx_regime[*r.gfx][*r.regime]);
    level.add(r);
  }
  std::string out = fmt::format(
      "# target_eff priors (fraction of roofline) calibrated by `rfdb priors`, as of {}.\n"
      "# Levels: {}; prior strength k={}. Regenerate rather than edit.\n"
      "# *_EVIDENCE: per value, n observations, runs (distinct runs), source (calibrated: its own\n"
      "# observations; parent: copied from its parent key; seed: no observations in the class) and\n"
      "# the 90 % interval [lo, hi] (None: fewer than 2 runs, or no observations).\n",
      result.as_of.value_or("- (no runs)"), to_string(result.params.level),
      trimmed(result.params.prior_strength, 3, 0));
  if (const auto filters = evidence_filters(result.params); !filters.empty()) {
    out += fmt::format("# Evidence options: {}.\n", filters);
  }
  out += classes.comments;
  out += fmt::format("TARGET_EFF = {{{}}}\n", classes.values);
  out += fmt::format("TARGET_EFF_EVIDENCE = {{{}\n}}\n", classes.evidence);
  if (result.params.level != PriorsLevel::op_class) {
    std::string comments;
    std::string values;
    std::string evidence;
    for (const auto& [gfx, level] : by_gfx) {
      comments += level.comments;
      values += fmt::format("{}\n    \"{}\": {{{}}}", values.empty() ? "" : ",", gfx, level.values);
      evidence += fmt::format("\n    \"{}\": {{{}\n    }},", gfx, indent(level.evidence, 4));
    }
    out += comments;
    out += fmt::format("TARGET_EFF_BY_GFX = {{{}{}}}\n", values, values.empty() ? "" : ",\n");
    out += fmt::format("TARGET_EFF_BY_GFX_EVIDENCE = {{{}\n}}\n", evidence);
  }
  if (result.params.level == PriorsLevel::op_class_gfx_regime) {
    std::string comments;
    std::string values;
    std::string evidence;
    for (const auto& [gfx, regimes] : by_gfx_regime) {
      std::string regime_values;
      std::string regime_evidence;
      for (const auto& [regime, level] : regimes) {
        comments += level.comments;
        regime_values +=
            fmt::format("{}\n        \"{}\": {{{}}}", regime_values.empty() ? "" : ",", regime, level.values);
        regime_evidence +=
            fmt::format("\n        \"{}\": {{{}\n        }},", regime, indent(level.evidence, 8));
      }
      values += fmt::format("{}\n    \"{}\": {{{},\n    }}", values.empty() ? "" : ",", gfx, regime_values);
      evidence += fmt::format("\n    \"{}\": {{{}\n    }},", gfx, regime_evidence);
    }
    out += comments;
    out += fmt::format("TARGET_EFF_BY_GFX_REGIME = {{{}{}}}\n", values, values.empty() ? "" : ",\n");
    out += fmt::format("TARGET_EFF_BY_GFX_REGIME_EVIDENCE = {{{}\n}}\n", evidence);
  }
  std::string transfer;
  std::string transfer_comments;
  std::string transfer_evidence;
  for (const TransferRow& r : result.e2e_transfer) {
    const std::string key = fmt::format("(\"{}\", \"{}\")", r.op_class, r.regime);
    if (r.source == TransferSource::calibrated) {
      transfer += fmt::format("{}{}: {}", transfer.empty() ? "" : ", ", key, fixed(r.median_ratio, 4));
    }
    if (r.capped) {
      transfer_comments += fmt::format("# {}: capped at 1.0 ({}, beyond ceiling {})\n", key,
                                       plural(r.n, "run"), r.beyond_ceiling);
    } else if (r.source != TransferSource::calibrated) {
      transfer_comments +=
          fmt::format("# {}: raw Amdahl ceiling, {} (absent from E2E_TRANSFER)\n", key, plural(r.n, "run"));
    }
    transfer_evidence +=
        fmt::format("\n    {}: {{\"runs\": {}, \"attempts\": {}, \"source\": \"{}\", \"interval\": {}, "
                    "\"capped\": {}, \"beyond_ceiling\": {}}},",
                    key, r.n, r.attempts, to_string(r.source), python_interval(r.interval),
                    r.capped ? "True" : "False", r.beyond_ceiling);
  }
  out += "# Multiply a verdict's expected_e2e_gain_pct by E2E_TRANSFER[(op_class, regime)]; keys with fewer\n"
         "# than 2 runs are absent: use the raw Amdahl ceiling there. A ratio above 1 from fewer than\n" +
         fmt::format("# {} runs is capped at 1.0 (capped: True in E2E_TRANSFER_EVIDENCE).\n",
                     domain::k_transfer_breadth_runs);
  out += transfer_comments;
  out += fmt::format("E2E_TRANSFER = {{{}}}\n", transfer);
  out += fmt::format("E2E_TRANSFER_EVIDENCE = {{{}\n}}\n", transfer_evidence);
  return out;
}

std::string render_explain(const KeyExplanation& ex, const std::optional<ChildrenCoherence>& children)
{
  PriorRow key_row;
  key_row.op_class = ex.key.op_class;
  key_row.gfx = ex.key.gfx;
  key_row.regime = ex.key.regime;
  std::string out = fmt::format("rfdb priors --explain {}\nas_of {}; {}\n\n", row_key(key_row),
                                ex.as_of.value_or("- (no runs)"), params_summary(ex.params));
  out += explain_observations(ex) + "\n" + explain_excluded(ex) + explain_censored(ex) + "\n";
  out += "Arithmetic: shrink(p, W, q) = (k*p + W*q) / (k + W), clamped to (0, 1]; each observation counts\n"
         "once on the path from the seed to the key (an empty set leaves the value unchanged):\n";
  const std::string k = trimmed(ex.params.prior_strength, 3, 0);
  out += fmt::format("  seed {} {}\n", ex.key.op_class, fixed(*domain::seed_target_eff(ex.key.op_class), 4));
  for (const ShrinkStep& st : ex.steps) {
    if (!st.statistic) {
      out += fmt::format("  {}: no observations, {} unchanged\n", st.set, fixed(st.from, 4));
      continue;
    }
    out += fmt::format("  {}: n={}, runs={}, W={}, q={} (weighted {} quantile of e)\n", st.set, st.n, st.runs,
                       fixed(st.weight, 3), fixed(*st.statistic, 4), trimmed(ex.params.quantile, 4, 2));
    out += fmt::format("    ({}*{} + {}*{}) / ({} + {}) = {}\n", k, fixed(st.from, 4), fixed(st.weight, 3),
                       fixed(*st.statistic, 4), k, fixed(st.weight, 3), fixed(st.to, 4));
    for (const auto& o : st.observations) {
      out += "    " + o + "\n";
    }
  }
  if (!ex.chain.empty()) {
    const PriorRow& last = ex.chain.back();
    // The method is named only when it is not the Monte-Carlo default.
    const std::string method =
        last.interval && last.interval_method == IntervalMethod::large_sample
            ? fmt::format("large-sample limit of the bootstrap, runs >= {}; ", k_large_sample_units)
            : std::string();
    const std::string reason = interval_reason_of(last);
    const std::string level = trimmed(ex.params.interval * 100.0, 1, 0);
    const std::string interval =
        last.interval || reason.empty()
            ? fmt::format(
                  "{}% bootstrap interval over runs {} ({}the key's own q, widened to take in target_eff)",
                  level, interval_text(last.interval), method)
            : fmt::format("no {}% interval ({})", level, reason);
    out += fmt::format("  {}; last_seen {}; contradictions {}, infeasible {}\n", interval,
                       last.last_seen.value_or("-"), last.contradictions, last.infeasible);
    out += fmt::format("  evidence: {} from measured predictions, {} from analytic ones\n",
                       plural(last.measured, "observation"), last.analytic);
  }
  for (const auto& note : ex.notes) {
    out += "Note: " + note + "\n";
  }
  if (!ex.nearest.empty()) {
    out += fmt::format(
        "No evidence for this key: it shows its parent's value (source parent). Nearest keys with "
        "evidence: {}\n",
        nearest_text(ex.nearest));
  }
  if (children) {
    out += coherence_text(*children);
  }
  if (!ex.chain.empty()) {
    out += fmt::format("Result: {} target_eff {}\n", row_key(ex.chain.back()),
                       fixed(ex.chain.back().target_eff, 4));
  }
  return out;
}

} // namespace rfdb::calibrate

namespace rfdb::calibrate {

std::string render_explain_json(const KeyExplanation& ex, const std::optional<ChildrenCoherence>& children)
{
  PriorRow key_row;
  key_row.op_class = ex.key.op_class;
  key_row.gfx = ex.key.gfx;
  key_row.regime = ex.key.regime;
  Json doc;
  doc["key"] = row_key(key_row);
  doc["as_of"] = optional_json(ex.as_of);
  doc["parameters"] = params_json(ex.params);
  doc["target_eff"] = ex.chain.empty() ? Json(nullptr) : Json(round_dp(ex.chain.back().target_eff, 4));
  doc["seed"] = round_dp(domain::seed_target_eff(ex.key.op_class).value_or(0.0), 4);
  Json chain = Json::array();
  for (const PriorRow& row : ex.chain) {
    chain.push_back(prior_row_json(row));
  }
  doc["chain"] = std::move(chain);
  Json steps = Json::array();
  for (const ShrinkStep& st : ex.steps) {
    Json j = step_json(st);
    j["observations"] = st.observations;
    steps.push_back(std::move(j));
  }
  doc["steps"] = std::move(steps);
  doc["nearest"] = nearest_json(ex.nearest);
  doc["notes"] = ex.notes;
  Json observations = Json::array();
  for (const ExplainedAttempt& x : ex.observations) {
    Json j = attempt_json(x);
    j["e"] = round_dp(x.evaluation.e, 4);
    j["weight"] = round_dp(x.evaluation.weight, 3);
    j["e_from_post"] = x.evaluation.e_from_post;
    j["contradiction"] = x.evaluation.contradiction;
    observations.push_back(std::move(j));
  }
  doc["observations"] = std::move(observations);
  if (!ex.censored.empty()) {
    Json censored = Json::array();
    for (const ExplainedAttempt& x : ex.censored) {
      Json j = attempt_json(x);
      j["censored"] = domain::to_string(x.attempt.censored);
      j["bound"] = round_dp(x.evaluation.e, 4);
      j["weight"] = round_dp(x.evaluation.weight, 3);
      j["entered"] = censored_enters(x.evaluation.e, ex.censor_threshold);
      censored.push_back(std::move(j));
    }
    doc["censored"] = std::move(censored);
    doc["censor_threshold"] = round_dp(ex.censor_threshold, 4);
  }
  Json excluded = Json::array();
  for (const ExplainedAttempt& x : ex.excluded) {
    Json j = attempt_json(x);
    j["reason"] = to_string(*x.evaluation.excluded);
    // e is computed only once the attempt got that far (infeasible: e > 1.05 before clamping).
    j["e"] = *x.evaluation.excluded == ExclusionReason::infeasible ? Json(round_dp(x.evaluation.e, 4))
                                                                   : Json(nullptr);
    excluded.push_back(std::move(j));
  }
  doc["excluded"] = std::move(excluded);
  if (children) {
    Json kids = Json::array();
    for (const SharedPath& child : children->children) {
      kids.push_back(path_json(child));
    }
    doc["children"] = Json{{"position", children->above ? "above" : "below"},
                           {"seed", round_dp(children->seed, 4)},
                           {"key", path_json(children->key)},
                           {"children", std::move(kids)}};
  } else {
    doc["children"] = nullptr;
  }
  return doc.dump(2) + "\n";
}

} // namespace rfdb::calibrate
