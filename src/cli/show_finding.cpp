// `rfdb show --finding ID`: one GEAK kb record in full (see cli/show_finding.hpp).
#include "cli/show_finding.hpp"

#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "store/kb_records.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace rfdb::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json text_or_null(const std::string& s)
{
  return s.empty() ? ordered_json(nullptr) : ordered_json(s);
}

template <typename T> ordered_json opt_or_null(const std::optional<T>& v)
{
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

// A stored JSON column as JSON (null when empty or unreadable).
ordered_json parsed(const std::string& s)
{
  if (s.empty()) {
    return nullptr;
  }
  auto j = ordered_json::parse(s, nullptr, false);
  return j.is_discarded() ? ordered_json(nullptr) : j;
}

std::string num(const std::optional<double>& v, int dp = 4)
{
  if (!v) {
    return "-";
  }
  std::string s = fmt::format("{:.{}f}", *v, dp);
  while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.')) {
    const bool dot = s.back() == '.';
    s.pop_back();
    if (dot) {
      break;
    }
  }
  return s;
}

std::string list_text(const std::string& json_array)
{
  const auto j = parsed(json_array);
  if (!j.is_array() || j.empty()) {
    return "-";
  }
  std::vector<std::string> items;
  for (const auto& v : j) {
    items.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return fmt::format("{}", fmt::join(items, ", "));
}

std::string map_text(const std::string& json_object)
{
  const auto j = parsed(json_object);
  if (!j.is_object() || j.empty()) {
    return "-";
  }
  std::vector<std::string> items;
  for (const auto& [k, v] : j.items()) {
    items.push_back(k + " " + (v.is_string() ? v.get<std::string>() : v.dump()));
  }
  return fmt::format("{}", fmt::join(items, ", "));
}

ordered_json finding_json(const store::KbRecord& r, const std::vector<store::KbChampion>& champions)
{
  ordered_json history = ordered_json::array();
  for (const auto& a : r.history) {
    history.push_back({{"at", text_or_null(a.at)},
                       {"outcome", text_or_null(a.outcome)},
                       {"by", text_or_null(a.actor)},
                       {"evidence", parsed(a.evidence)}});
  }
  ordered_json champs = ordered_json::array();
  for (const auto& c : champions) {
    champs.push_back({{"canonical_id", c.canonical_id},
                      {"metric", text_or_null(c.metric)},
                      {"value", opt_or_null(c.value)}});
  }
  return ordered_json{
      {"record_id", r.record_id},
      {"lane", r.lane},
      {"id", r.record_key},
      {"canonical_id", text_or_null(r.canonical_id)},
      {"rung", opt_or_null(r.rung)},
      {"rungs", opt_or_null(r.rungs)},
      {"id_order", text_or_null(r.id_order)},
      {"identity",
       {{"gfx", text_or_null(r.gfx)},
        {"kernel_name", text_or_null(r.kernel_name)},
        {"kernel_class", text_or_null(r.kernel_class)},
        {"backend", text_or_null(r.backend)},
        {"framework", text_or_null(r.framework)},
        {"framework_version", text_or_null(r.framework_version)},
        {"model", text_or_null(r.model)},
        {"precision", text_or_null(r.precision)},
        {"tp", opt_or_null(r.tp)},
        {"ep", opt_or_null(r.ep)},
        {"isl", opt_or_null(r.isl)},
        {"osl", opt_or_null(r.osl)},
        {"conc", opt_or_null(r.conc)},
        {"workload_kind", text_or_null(r.workload_kind)}}},
      {"metric",
       {{"name", text_or_null(r.metric_name)},
        {"value", opt_or_null(r.metric_value)},
        {"speedup", opt_or_null(r.speedup)},
        {"throughput_tok_s", opt_or_null(r.throughput_tok_s)},
        {"baseline_tok_s", opt_or_null(r.baseline_tok_s)},
        {"metric_kind", text_or_null(r.metric_kind)},
        {"bench_key", text_or_null(r.bench_key)},
        {"case_names", parsed(r.case_names)}}},
      {"direction", text_or_null(r.direction)},
      {"techniques", parsed(r.techniques)},
      {"strategy", text_or_null(r.strategy)},
      {"verified_on", text_or_null(r.verified_on)},
      {"verified_stack", parsed(r.verified_stack)},
      {"reproductions", opt_or_null(r.reproductions)},
      {"lifecycle", text_or_null(r.lifecycle)},
      {"validated", opt_or_null(r.validated)},
      {"retained", opt_or_null(r.retained)},
      {"retired", r.retired},
      {"retired_why", text_or_null(r.retired_why)},
      {"retired_reason", text_or_null(r.retired_reason)},
      {"retracted_at", text_or_null(r.retracted_at)},
      {"withdrawn_scores", parsed(r.withdrawn_scores)},
      {"content_signature", text_or_null(r.content_signature)},
      {"signature_origin", text_or_null(r.signature_origin)},
      {"carrier", text_or_null(r.carrier)},
      {"apply_env", text_or_null(r.apply_env)},
      {"apply_route", text_or_null(r.apply_route)},
      {"champion_of", std::move(champs)},
      {"attestations",
       {{"recalls", r.recalls},
        {"validations", r.validations},
        {"failures", r.failures},
        {"not_reproduced", r.not_reproduced},
        {"inapplicable", r.inapplicable},
        {"last_outcome", text_or_null(r.last_outcome)},
        {"last_at", text_or_null(r.last_at)},
        {"last_by", text_or_null(r.last_by)},
        {"history", std::move(history)}}},
      {"extra", parsed(r.extra)},
      {"source", r.store_path},
      {"ingested_at", r.ingested_at},
  };
}

std::string identity_text(const store::KbRecord& r)
{
  std::vector<std::string> parts;
  const auto add = [&](const std::string& label, const std::string& v) {
    if (!v.empty()) {
      parts.push_back(label.empty() ? v : label + " " + v);
    }
  };
  const auto add_n = [&](const char* label, const std::optional<std::int64_t>& v) {
    if (v) {
      parts.push_back(fmt::format("{} {}", label, *v));
    }
  };
  if (r.lane == "e2e") {
    add("model", r.model);
    add("gfx", r.gfx);
    add("", r.framework + (r.framework_version.empty() ? "" : " " + r.framework_version));
    add("precision", r.precision);
    add_n("tp", r.tp);
    add_n("ep", r.ep);
    add_n("isl", r.isl);
    add_n("osl", r.osl);
    add_n("conc", r.conc);
    add("workload", r.workload_kind);
  } else {
    add("gfx", r.gfx);
    add("kernel", r.kernel_name);
    add("class", r.kernel_class);
    add("backend", r.backend);
    add("", r.framework + (r.framework_version.empty() ? "" : " " + r.framework_version));
    add("precision", r.precision);
  }
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, " · "));
}

std::string metric_text(const store::KbRecord& r)
{
  if (r.lane == "e2e") {
    std::string s = fmt::format("throughput {} tok/s", num(r.throughput_tok_s, 1));
    if (r.baseline_tok_s) {
      s += fmt::format(" vs baseline {} tok/s", num(r.baseline_tok_s, 1));
    }
    if (r.speedup) {
      s += fmt::format(" (speedup {}×)", num(r.speedup));
    }
    return s;
  }
  std::string s = fmt::format("isolated speedup {}×", num(r.speedup));
  std::vector<std::string> detail;
  if (!r.metric_kind.empty()) {
    detail.push_back(r.metric_kind);
  }
  if (!r.bench_key.empty()) {
    detail.push_back("bench " + r.bench_key);
  }
  if (list_text(r.case_names) != "-") {
    detail.push_back("cases " + list_text(r.case_names));
  }
  if (!detail.empty()) {
    s += fmt::format(" ({})", fmt::join(detail, "; "));
  }
  return s;
}

void print_finding_text(const store::KbRecord& r, const std::vector<store::KbChampion>& champions,
                        std::ostream& out)
{
  const auto line = [&](std::string_view label, const std::string& value) {
    fmt::print(out, "{:<15}{}\n", label, util::escape_for_display(value.empty() ? "-" : value));
  };
  fmt::print(out, "kb record {} ({}): {}\n", r.record_id, r.lane, util::escape_for_display(r.record_key));
  if (!r.canonical_id.empty()) {
    line("canonical id", fmt::format("{} (rung {} of {}{})", r.canonical_id, r.rung.value_or(0),
                                     r.rungs.value_or(1), r.id_order == "old" ? "; old id order" : ""));
  }
  line("identity", identity_text(r));
  line("metric", metric_text(r));
  if (!r.metric_name.empty()) {
    line("ranking", fmt::format("{} {}", r.metric_name, num(r.metric_value, r.lane == "e2e" ? 1 : 4)));
  }
  line("direction", r.direction);
  line("techniques", list_text(r.techniques));
  line("strategy", r.strategy);
  line("stack", map_text(r.verified_stack) +
                    (r.verified_on.empty() ? std::string() : fmt::format(" (verified {})", r.verified_on)));
  line("reproductions", r.reproductions ? std::to_string(*r.reproductions) : "-");
  line("lifecycle", r.lifecycle + (r.validated ? (*r.validated ? ", validated" : ", not validated") : ""));
  line("status", r.retired ? "retired: " + r.retired_why : "counts (not retired)");
  if (!r.retracted_at.empty() || !r.withdrawn_scores.empty()) {
    line("retracted",
         fmt::format("{}{}", r.retracted_at.empty() ? "-" : r.retracted_at,
                     r.withdrawn_scores.empty() ? "" : "; withdrawn " + map_text(r.withdrawn_scores)));
  }
  line("signature", r.content_signature.empty() ? "-"
                                                : fmt::format("{} ({})", r.content_signature,
                                                              r.signature_origin == "stored"
                                                                  ? "as stored"
                                                                  : "computed from " + r.signature_origin));
  line("carrier", r.carrier);
  if (!r.apply_env.empty() || !r.apply_route.empty()) {
    line("apply", fmt::format("{}{}", r.apply_env, r.apply_route.empty() ? "" : " (" + r.apply_route + ")"));
  }
  if (champions.empty()) {
    line("champion", "no");
  } else {
    bool first = true;
    for (const auto& c : champions) {
      line(first ? "champion" : "",
           fmt::format("{} ({} {})", c.canonical_id, c.metric.empty() ? "?" : c.metric, num(c.value)));
      first = false;
    }
  }
  line("ledger", fmt::format("recalls {}, validations {}, failures {}, not_reproduced {}, inapplicable {}",
                             r.recalls, r.validations, r.failures, r.not_reproduced, r.inapplicable));
  if (!r.last_outcome.empty()) {
    line("", fmt::format("last {} at {} by {}", r.last_outcome, r.last_at.empty() ? "-" : r.last_at,
                         r.last_by.empty() ? "-" : r.last_by));
  }
  for (const auto& a : r.history) {
    std::vector<std::string> evidence;
    const auto e = parsed(a.evidence);
    if (e.is_object()) {
      for (const auto& [k, v] : e.items()) {
        evidence.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
      }
    }
    fmt::print(
        out, "  {}  {:<14} {}{}\n", a.at.empty() ? "-" : util::escape_for_display(a.at),
        util::escape_for_display(a.outcome), util::escape_for_display(a.actor.empty() ? "-" : a.actor),
        evidence.empty() ? "" : "  " + util::escape_for_display(fmt::format("{}", fmt::join(evidence, " "))));
  }
  line("source", r.store_path);
}

} // namespace

Result<int> show_finding(const std::string& id, const std::string& format, Context& ctx)
{
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  auto record = store::find_kb_record(*db, id);
  if (!record) {
    return fail(std::move(record).error());
  }
  if (!*record) {
    return fail(make_error(ErrorCode::not_found, fmt::format("no kb record '{}'", id))
                    .with_hint("give a record number, a session id or an exp id (or a unique prefix); "
                               "`rfdb query kb_records` lists them"));
  }
  auto champions = store::kb_champions_of(*db, (*record)->record_key);
  if (!champions) {
    return fail(std::move(champions).error());
  }
  if (domain::is(format, domain::OutputFormat::json)) {
    fmt::print(ctx.out, "{}\n", finding_json(**record, *champions).dump(2));
  } else {
    print_finding_text(**record, *champions, ctx.out);
  }
  return 0;
}

} // namespace rfdb::cli
