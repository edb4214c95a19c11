// Renderers of the priors: table, JSON, CSV, markdown, python and --explain.
#include "calibrate/priors_format.hpp"

#include "domain/vocab.hpp"
#include "util/csv.hpp"

#include <fmt/format.h>
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

// The interval, or why a row with observations has none ("one run"); "-"
// without observations (n says so).
std::string interval_or_reason(const PriorRow& row)
{
  return row.interval || row.n == 0 || row.interval_reason.empty() ? interval_text(row.interval)
                                                                   : row.interval_reason;
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

// Left-aligned text columns, right-aligned where `right[i]`; two spaces apart.
std::string aligned(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right)
{
  std::vector<std::size_t> width(right.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool last = i + 1 == row.size();
      if (right[i]) {
        line += fmt::format("{:>{}}", row[i], width[i]);
      } else {
        line += last ? row[i] : fmt::format("{:<{}}", row[i], width[i]);
      }
      line += last ? "" : "  ";
    }
    out += line + "\n";
  }
  return out;
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
    if (*x.evaluation.excluded == ExclusionReason::infeasible) {
      reason += fmt::format(" (e {} > 1.05; counted as a contradiction)", fixed(x.evaluation.e, 4));
    }
    rows.push_back({"  " + attempt_ident(x), a.run_date, a.round, a.short_name, a.lever, a.gfx, a.regime,
                    opt_fixed(a.prediction.roofline_pct, 4), opt_fixed(a.isolated_speedup, 3), reason});
  }
  return out + aligned(rows, {false, false, true, false, false, false, false, true, true, false});
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
  const PriorsParams& p = result.params;
  Json doc;
  doc["as_of"] = optional_json(result.as_of);
  Json params;
  params["prior_strength"] = round_dp(p.prior_strength, 6);
  params["quantile"] = round_dp(p.quantile, 6);
  params["iso_noise_band"] = round_dp(p.iso_noise, 6);
  params["confidence_weights"] = Json{{"high", round_dp(p.confidence_weights.high, 6)},
                                      {"medium", round_dp(p.confidence_weights.medium, 6)},
                                      {"low", round_dp(p.confidence_weights.low, 6)}};
  params["half_life_days"] = p.half_life_days ? Json(round_dp(*p.half_life_days, 6)) : Json(nullptr);
  params["include_parity_fail"] = p.include_parity_fail;
  doc["parameters"] = std::move(params);
  Json priors = Json::array();
  for (const PriorRow& row : result.priors) {
    Json j;
    j["op_class"] = row.op_class;
    j["gfx"] = optional_json(row.gfx);
    j["regime"] = optional_json(row.regime);
    j["seed"] = round_dp(row.seed, 4);
    j["target_eff"] = round_dp(row.target_eff, 4);
    j["n"] = row.n;
    j["runs"] = row.runs;
    j["weight"] = round_dp(row.weight, 3);
    j["statistic"] = row.statistic ? Json(round_dp(*row.statistic, 4)) : Json(nullptr);
    j["interval"] = interval_json(row.interval);
    j["interval_reason"] = row.interval_reason.empty() ? Json(nullptr) : Json(row.interval_reason);
    j["measured"] = row.measured;
    j["analytic"] = row.analytic;
    j["contradictions"] = row.contradictions;
    j["infeasible"] = row.infeasible;
    j["last_seen"] = optional_json(row.last_seen);
    j["source"] = to_string(row.source);
    j["nearest"] = nearest_json(row.nearest);
    priors.push_back(std::move(j));
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
    j["statistic"] = row.statistic ? Json(round_dp(*row.statistic, 4)) : Json(nullptr);
    j["source"] = to_string(row.source);
    j["interval"] = interval_json(row.interval);
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
  std::string out = fmt::format("target_eff priors as of {} ({})\n\n", result.as_of.value_or("- (no runs)"),
                                params_summary(result.params));
  std::vector<std::vector<std::string>> rows = {{"key", "seed", "target_eff", "n", "runs", "W", "q",
                                                 "interval", "contradictions", "infeasible", "last_seen",
                                                 "source"}};
  for (const PriorRow& r : result.priors) {
    rows.push_back({row_key(r), fixed(r.seed, 4), fixed(r.target_eff, 4), std::to_string(r.n),
                    std::to_string(r.runs), fixed(r.weight, 3), opt_fixed(r.statistic, 4),
                    interval_or_reason(r), std::to_string(r.contradictions), std::to_string(r.infeasible),
                    r.last_seen.value_or("-"), to_string(r.source)});
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
  out += fmt::format(
      "\ne2e transfer (multiply expected_e2e_gain_pct by median_ratio; raw = fewer than 2 runs, use "
      "the raw Amdahl ceiling; capped = a ratio above 1 from fewer than {} runs, exported as 1):\n",
      k_transfer_breadth_runs);
  if (result.e2e_transfer.empty()) {
    out += "  (no attempts with a measured e2e delta and s > 1)\n";
  } else {
    std::vector<std::vector<std::string>> t = {{"op_class", "regime", "runs", "attempts", "median_ratio", "m",
                                                "interval", "capped", "sign_flips", "beyond_ceiling",
                                                "source"}};
    for (const TransferRow& r : result.e2e_transfer) {
      t.push_back({r.op_class, r.regime, std::to_string(r.n), std::to_string(r.attempts),
                   fixed(r.median_ratio, 4), opt_fixed(r.statistic, 4), interval_text(r.interval),
                   r.capped ? "yes" : "no", std::to_string(r.sign_flips), std::to_string(r.beyond_ceiling),
                   to_string(r.source)});
    }
    out += aligned(t, {false, false, true, true, true, true, false, false, true, true, false});
    out += "  The interval is the uncertainty of the ratio, not a prediction interval for the next run.\n";
  }
  std::string excluded;
  for (const ExclusionCount& c : result.excluded) {
    excluded += fmt::format("{}{} {}", excluded.empty() ? "" : ", ", to_string(c.reason), c.count);
  }
  out += fmt::format("\n{}, {}; excluded: {}\n", plural(result.attempts, "attempt"),
                     plural(result.observations, "observation"), excluded.empty() ? "none" : excluded);
  return out;
}

std::string render_priors_csv(const PriorsResult& result)
{
  std::string out = "op_class,gfx,regime,seed,target_eff,n,runs,weight,statistic,interval_lo,interval_hi,"
                    "contradictions,infeasible,last_seen,source,nearest\n";
  for (const PriorRow& r : result.priors) {
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", util::csv_field(r.op_class),
                    util::csv_field(r.gfx.value_or("")), util::csv_field(r.regime.value_or("")),
                    fixed(r.seed, 4), fixed(r.target_eff, 4), r.n, r.runs, fixed(r.weight, 3),
                    r.statistic ? fixed(*r.statistic, 4) : "", r.interval ? fixed(r.interval->lo, 4) : "",
                    r.interval ? fixed(r.interval->hi, 4) : "", r.contradictions, r.infeasible,
                    r.last_seen.value_or(""), to_string(r.source), util::csv_field(nearest_text(r.nearest)));
  }
  return out;
}

std::string render_priors_md(const PriorsResult& result)
{
  std::string out = "| op class | target_eff | n | interval | why |\n|---|---:|---:|---|---|\n";
  for (const PriorRow& r : result.priors) {
    out += fmt::format("| {} | {} | {} | {} | {} |\n", row_key(r), fixed(r.target_eff, 4), r.n,
                       interval_or_reason(r), why_text(r, result.params, parent_key_of(r)));
  }
  return out;
}

std::string render_priors_python(const PriorsResult& result)
{
  // class → value; gfx → class → value; gfx → regime → class → value.
  std::string classes;
  std::map<std::string, std::string> by_gfx;
  std::map<std::string, std::map<std::string, std::string>> by_gfx_regime;
  const auto add = [](std::string& into, const PriorRow& r) {
    into += fmt::format("{}\"{}\": {}", into.empty() ? "" : ", ", r.op_class, fixed(r.target_eff, 4));
  };
  for (const PriorRow& r : result.priors) {
    if (!r.gfx) {
      add(classes, r);
    } else if (!r.regime) {
      add(by_gfx[*r.gfx], r);
    } else {
      add(by_gfx_regime[*r.gfx][*r.regime], r);
    }
  }
  std::string out =
      fmt::format("# target_eff priors (fraction of roofline) calibrated by `rfdb priors`, as of {}.\n"
                  "# Levels: {}; prior strength k={}. Regenerate rather than edit.\n"
                  "TARGET_EFF = {{{}}}\n",
                  result.as_of.value_or("- (no runs)"), to_string(result.params.level),
                  trimmed(result.params.prior_strength, 3, 0), classes);
  if (result.params.level != PriorsLevel::op_class) {
    std::string gfx_entries;
    for (const auto& [gfx, entries] : by_gfx) {
      gfx_entries += fmt::format("{}\n    \"{}\": {{{}}}", gfx_entries.empty() ? "" : ",", gfx, entries);
    }
    out += fmt::format("TARGET_EFF_BY_GFX = {{{}{}}}\n", gfx_entries, gfx_entries.empty() ? "" : ",\n");
  }
  if (result.params.level == PriorsLevel::op_class_gfx_regime) {
    std::string gfx_entries;
    for (const auto& [gfx, regimes] : by_gfx_regime) {
      std::string regime_entries;
      for (const auto& [regime, entries] : regimes) {
        regime_entries +=
            fmt::format("{}\n        \"{}\": {{{}}}", regime_entries.empty() ? "" : ",", regime, entries);
      }
      gfx_entries +=
          fmt::format("{}\n    \"{}\": {{{},\n    }}", gfx_entries.empty() ? "" : ",", gfx, regime_entries);
    }
    out +=
        fmt::format("TARGET_EFF_BY_GFX_REGIME = {{{}{}}}\n", gfx_entries, gfx_entries.empty() ? "" : ",\n");
  }
  std::string transfer;
  for (const TransferRow& r : result.e2e_transfer) {
    if (r.source == TransferSource::calibrated) {
      transfer += fmt::format("{}(\"{}\", \"{}\"): {}", transfer.empty() ? "" : ", ", r.op_class, r.regime,
                              fixed(r.median_ratio, 4));
    }
  }
  out += "# Multiply a verdict's expected_e2e_gain_pct by E2E_TRANSFER[(op_class, regime)]; keys with fewer\n"
         "# than 2 runs are absent: use the raw Amdahl ceiling there.\n";
  out += fmt::format("E2E_TRANSFER = {{{}}}\n", transfer);
  return out;
}

std::string render_explain(const KeyExplanation& ex)
{
  PriorRow key_row;
  key_row.op_class = ex.key.op_class;
  key_row.gfx = ex.key.gfx;
  key_row.regime = ex.key.regime;
  std::string out = fmt::format("rfdb priors --explain {}\nas_of {}; {}\n\n", row_key(key_row),
                                ex.as_of.value_or("- (no runs)"), params_summary(ex.params));
  out += explain_observations(ex) + "\n" + explain_excluded(ex) + "\n";
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
    const std::string interval =
        last.interval
            ? fmt::format("{}% bootstrap interval over runs {} ({}the key's own q, widened to take "
                          "in target_eff)",
                          trimmed(ex.params.interval * 100.0, 1, 0), interval_text(last.interval), method)
            : fmt::format("no interval ({})", last.interval_reason.empty() ? "-" : last.interval_reason);
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
  if (!ex.chain.empty()) {
    out += fmt::format("Result: {} target_eff {}\n", row_key(ex.chain.back()),
                       fixed(ex.chain.back().target_eff, 4));
  }
  return out;
}

} // namespace rfdb::calibrate
