// Renderers for `rfdb priors` (docs/estimator.md, issue 3): json (the default and
// the machine contract), table, csv, md, python, and the --explain text.
//
// Every number is rounded to fixed decimals before it is printed (target_eff,
// statistic, interval, seed and median_ratio to 4 dp, weight to 3 dp), so the
// same PriorsResult always renders to the same bytes. Pure: returns strings.
//
// JSON contract (keys in this order; null where a value does not apply):
//   {"as_of": "YYYY-MM-DD"|null,
//    "parameters": {"prior_strength", "quantile", "iso_noise_band",
//                   "confidence_weights": {"high", "medium", "low"},
//                   "half_life_days" (null = no decay)},
//    "priors": [{"op_class", "gfx" (null above that level), "regime" (null),
//                "seed", "target_eff", "n", "weight", "statistic" (null if n = 0),
//                "interval": [lo, hi] (null if n = 0), "contradictions",
//                "infeasible", "last_seen" (null if n = 0),
//                "source": "seed"|"calibrated"|"parent"}],
//    "e2e_transfer": [{"op_class", "regime", "n", "median_ratio",
//                      "interval": [lo, hi], "sign_flips"}]}
// Rows are in pre-order: each class (gemm, moe, elementwise, attn), then its
// gfx rows (lexicographic), each followed by its regime rows (lexicographic).
// e2e transfer: median_ratio is the share of the Amdahl ceiling that reached
// end-to-end throughput; multiply a prediction's expected_e2e_gain_pct by it
// for a calibrated e2e expectation.
#pragma once

#include "calibrate/priors.hpp"
#include "calibrate/priors_coherence.hpp"
#include "util/result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace rfdb::calibrate {

enum class PriorsFormat { json, table, csv, md, python };

// Parse --format: json | table | csv | md | python. Error (usage) otherwise.
Result<PriorsFormat> parse_priors_format(std::string_view text);

// Render in `format`; every renderer ends with a newline.
std::string render_priors(const PriorsResult& result, PriorsFormat format);

// The JSON contract above, indented by 2.
std::string render_priors_json(const PriorsResult& result);
// Aligned human table of the priors, then the e2e transfer, then a footer
// counting attempts, observations and exclusions by reason.
std::string render_priors_table(const PriorsResult& result);
// Priors only, header line first: op_class,gfx,regime,seed,target_eff,n,
// weight,statistic,interval_lo,interval_hi,contradictions,infeasible,
// last_seen,source (empty field for null).
std::string render_priors_csv(const PriorsResult& result);
// "| op class | target_eff | n | interval | why |" with one row per prior;
// children are named by their key ("moe:gfx950").
std::string render_priors_md(const PriorsResult& result);
// A commented `TARGET_EFF = {"gemm": …, "moe": …, "elementwise": …, "attn": …}`
// literal (class level only) that a Python helper can paste or import.
std::string render_priors_python(const PriorsResult& result);

// The --explain text: parameters, contributing observations (run, round,
// kernel, lever, roofline_pct, s, e, weight), excluded attempts with their
// reasons, right-censored observations (heads never tried) apart with whether
// each entered q, the arithmetic from the seed down to the key and, with
// `children` (explain_children), why the key lies outside its children's range.
std::string render_explain(const KeyExplanation& explanation,
                           const std::optional<ChildrenCoherence>& children = std::nullopt);
// The same as JSON (--explain KEY --format json; docs/json.md), indented by 2:
// {"key", "as_of", "parameters", "target_eff", "seed", "chain": [priors rows],
//  "steps": [{set, from, n, runs, weight, statistic, to, observations}],
//  "nearest", "notes", "observations": [{run, date, round, kernel, lever, gfx,
//  regime, roofline_pct, isolated_speedup, prediction_source, e, weight,
//  e_from_post, contradiction}], "excluded": [{…, reason, e}], and when the key
//  has right-censored observations "censored": [{…, censored, bound, weight,
//  entered}] with "censor_threshold",
//  "children": null | {position, seed, key: path, children: [path]}} with a
// path {key, target_eff, seed_share, steps: [{set, from, n, runs, weight,
// statistic, to, share}]}.
std::string render_explain_json(const KeyExplanation& explanation,
                                const std::optional<ChildrenCoherence>& children = std::nullopt);

} // namespace rfdb::calibrate
