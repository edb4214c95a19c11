// `rfdb show RUN --attempt KEY`: one attempt in full (see cli/show_attempt.hpp).
#include "cli/show_attempt.hpp"

#include "cli/app.hpp"
#include "domain/vocab.hpp"
#include "store/attempt_sources.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace rfdb::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json attempt_json(const store::RunDetail& run, const store::AttemptRow& a,
                          const std::vector<store::CitedSource>& sources)
{
  const auto& p = a.prediction;
  ordered_json cited = ordered_json::array();
  for (const auto& s : sources) {
    cited.push_back({{"path", s.rel_path},
                     {"pointer", s.json_pointer},
                     {"kind", s.kind},
                     {"sha256", s.sha256},
                     {"superseded", s.superseded}});
  }
  ordered_json j{
      {"ref", run.run_id + "#" + a.attempt_key},
      {"run_id", run.run_id},
      {"run_date", json_or_null(run.run_date)},
      {"model", json_or_null(run.model)},
      {"gfx", json_or_null(run.gfx)},
      {"attempt", a.attempt_key},
      {"kind", domain::to_string(a.kind)},
      {"short_name", a.short_name},
      {"candidate", json_or_null(a.candidate)},
      {"candidate_short_name", json_or_null(a.candidate_short_name)},
      {"task", json_or_null(a.task)},
      {"lever", a.lever},
      {"lever_kind", domain::to_string(a.lever_kind)},
      {"backend", json_or_null(a.backend)},
      {"winner_kind", json_or_null(a.winner_kind)},
      {"round", json_or_null(a.round)},
      {"measured", a.measured},
      {"isolated_speedup", json_or_null(a.isolated_speedup)},
      {"e2e_delta_pct", json_or_null(a.e2e_delta_pct)},
      {"gate", json_or_null(a.gate)},
      {"verdict", domain::to_string(a.verdict)},
  };
  append_attempt_outcome(j, a);
  j["content_signature"] = json_or_null(a.content_signature);
  j["prediction"] = {{"source", json_or_null(p.source_kind)},
                     {"stage", json_or_null(p.stage)},
                     {"roofline_pct", json_or_null(p.roofline_pct)},
                     {"target_eff", json_or_null(p.target_eff)},
                     {"attainable_speedup", json_or_null(p.attainable_speedup)},
                     {"expected_e2e_gain_pct", json_or_null(p.expected_e2e_gain_pct)},
                     {"headroom_class", json_or_null(p.headroom_class)},
                     {"bound_type", json_or_null(p.bound_type)},
                     {"confidence", json_or_null(p.confidence)},
                     {"pct_gpu_time", json_or_null(p.pct_gpu_time)}};
  j["sources"] = std::move(cited);
  return j;
}

// "key  value" lines; nested objects flattened with '.', arrays one per line.
void print_text(const ordered_json& j, const std::string& prefix, std::ostream& out)
{
  for (const auto& [k, v] : j.items()) {
    const std::string name = prefix.empty() ? k : prefix + "." + k;
    if (v.is_object()) {
      print_text(v, name, out);
    } else if (v.is_array()) {
      fmt::print(out, "{}\n", name);
      for (const auto& item : v) {
        fmt::print(
            out, "  {}{}  ({}{})\n", item.at("path").get<std::string>(),
            item.at("pointer").get<std::string>().empty() ? "" : "#" + item.at("pointer").get<std::string>(),
            item.at("kind").get<std::string>(), item.at("superseded").get<bool>() ? ", superseded" : "");
      }
    } else {
      fmt::print(out, "{:<32} {}\n", name, v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
}

} // namespace

void append_attempt_outcome(nlohmann::ordered_json& j, const store::AttemptRow& a)
{
  j["verdict_raw"] = json_or_null(a.verdict_raw);
  j["output_parity"] = json_or_null(a.output_parity);
  j["parity_kind"] = json_or_null(a.parity_kind);
  j["reason"] = json_or_null(a.reason);
  j["reject_reason"] = json_or_null(a.reject_reason);
  j["deployed"] = a.deployed;
  j["post_measured"] = a.post_measured;
  j["post_efficiency"] = json_or_null(a.post_efficiency);
  j["post_note"] = json_or_null(a.post_note);
  j["validation"] = {{"class", domain::to_string(a.validation_class)},
                     {"throughput_speedup", json_or_null(a.validation_speedup)}};
}

Result<int> show_attempt(store::Database& db, const store::RunDetail& run, const std::string& key,
                         const std::string& format, Context& ctx)
{
  const auto it = std::find_if(run.attempts.begin(), run.attempts.end(),
                               [&](const store::AttemptRow& a) { return a.attempt_key == key; });
  if (it == run.attempts.end()) {
    std::vector<std::string> keys;
    for (const auto& a : run.attempts) {
      keys.push_back(a.attempt_key);
    }
    return fail(make_error(ErrorCode::not_found, fmt::format("run {} has no attempt '{}'", run.run_id, key))
                    .with_hint(keys.empty() ? "the run has no attempts"
                                            : fmt::format("attempts: {}", fmt::join(keys, ", "))));
  }
  auto sources = store::attempt_cited_sources(db, run.run_id, key);
  if (!sources) {
    return fail(sources.error());
  }
  const ordered_json j = attempt_json(run, *it, *sources);
  if (domain::is(format, domain::OutputFormat::json)) {
    fmt::print(ctx.out, "{}\n", j.dump(2));
  } else {
    print_text(j, "", ctx.out);
  }
  return 0;
}

} // namespace rfdb::cli
