// `rfdb show RUN --attempt KEY`: one attempt in full (see cli/show_attempt.hpp).
#include "cli/show_attempt.hpp"

#include "cli/app.hpp"
#include "store/attempt_sources.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace rfdb::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

template <typename T> ordered_json opt(const std::optional<T>& v)
{
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

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
  return ordered_json{
      {"ref", run.run_id + "#" + a.key},
      {"run_id", run.run_id},
      {"run_date", opt(run.run_date)},
      {"model", opt(run.model)},
      {"gfx", opt(run.gfx)},
      {"attempt", a.key},
      {"kind", a.kind},
      {"short_name", a.short_name},
      {"candidate", opt(a.candidate)},
      {"candidate_short_name", opt(a.candidate_short_name)},
      {"task", opt(a.task)},
      {"lever", a.lever},
      {"lever_kind", a.lever_kind},
      {"backend", opt(a.backend)},
      {"winner_kind", opt(a.winner_kind)},
      {"round", opt(a.round)},
      {"measured", a.measured},
      {"isolated_speedup", opt(a.isolated_speedup)},
      {"e2e_delta_pct", opt(a.e2e_delta_pct)},
      {"gate", opt(a.gate)},
      {"verdict", a.verdict},
      {"verdict_raw", opt(a.verdict_raw)},
      {"output_parity", opt(a.output_parity)},
      {"parity_kind", opt(a.parity_kind)},
      {"reason", opt(a.reason)},
      {"reject_reason", opt(a.reject_reason)},
      {"deployed", a.deployed},
      {"post_measured", a.post_measured},
      {"post_efficiency", opt(a.post_efficiency)},
      {"validation", {{"class", a.validation_class}, {"throughput_speedup", opt(a.validation_speedup)}}},
      {"prediction",
       {{"source", opt(p.source_kind)},
        {"stage", opt(p.stage)},
        {"roofline_pct", opt(p.roofline_pct)},
        {"target_eff", opt(p.target_eff)},
        {"attainable_speedup", opt(p.attainable_speedup)},
        {"expected_e2e_gain_pct", opt(p.expected_e2e_gain_pct)},
        {"headroom_class", opt(p.headroom_class)},
        {"bound_type", opt(p.bound_type)},
        {"confidence", opt(p.confidence)},
        {"pct_gpu_time", opt(p.pct_gpu_time)}}},
      {"sources", cited},
  };
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

Result<int> show_attempt(store::Database& db, const store::RunDetail& run, const std::string& key,
                         const std::string& format, Context& ctx)
{
  const auto it = std::find_if(run.attempts.begin(), run.attempts.end(),
                               [&](const store::AttemptRow& a) { return a.key == key; });
  if (it == run.attempts.end()) {
    std::vector<std::string> keys;
    for (const auto& a : run.attempts) {
      keys.push_back(a.key);
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
  if (format == "json") {
    fmt::print(ctx.out, "{}\n", j.dump(2));
  } else {
    print_text(j, "", ctx.out);
  }
  return 0;
}

} // namespace rfdb::cli
