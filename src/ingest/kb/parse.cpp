// Parsing GEAK kb records (see parse.hpp; docs/kb.md).
#include "ingest/kb/parse.hpp"

#include "domain/content_signature.hpp"
#include "domain/kb_ledger.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <regex>
#include <yaml-cpp/yaml.h>

namespace rfdb::ingest::kb {

namespace {

// ---- YAML → JSON ----------------------------------------------------------------------------

json yaml_scalar(const YAML::Node& n)
{
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") { // quoted: always a string
    return s;
  }
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") {
    return nullptr;
  }
  if (s == "true" || s == "True" || s == "TRUE") {
    return true;
  }
  if (s == "false" || s == "False" || s == "FALSE") {
    return false;
  }
  static const std::regex k_int(R"([-+]?[0-9]+)");
  static const std::regex k_float(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, k_int)) {
    std::int64_t i = 0;
    const char* b = s.data() + (s.front() == '+' ? 1 : 0);
    if (std::from_chars(b, s.data() + s.size(), i).ec == std::errc()) {
      return i;
    }
  }
  if (std::regex_match(s, k_float)) {
    return std::stod(s);
  }
  return s; // .inf / .nan stay text: a number field holding them is refused as not finite
}

json yaml_to_json(const YAML::Node& n, int depth)
{
  if (depth > k_max_json_depth) {
    throw YAML::Exception(n.Mark(), "nesting deeper than 128");
  }
  switch (n.Type()) {
  case YAML::NodeType::Map: {
    json out = json::object();
    for (const auto& kv : n) {
      out[kv.first.as<std::string>()] = yaml_to_json(kv.second, depth + 1);
    }
    return out;
  }
  case YAML::NodeType::Sequence: {
    json out = json::array();
    for (const auto& item : n) {
      out.push_back(yaml_to_json(item, depth + 1));
    }
    return out;
  }
  case YAML::NodeType::Scalar:
    return yaml_scalar(n);
  default:
    return nullptr;
  }
}

// ---- typed fields ---------------------------------------------------------------------------

Error field_error(const std::string& pointer, const std::string& expected, const json& v)
{
  return make_error(ErrorCode::invalid_input,
                    fmt::format("{}: expected {}, got {}", pointer, expected, describe_value(v)));
}

// Member `key` of `obj` as an object (nullptr when absent or null). Errors: another type.
Result<const json*> object_member(const json& obj, const char* key, const std::string& pointer)
{
  if (!obj.is_object() || !obj.contains(key) || obj.at(key).is_null()) {
    return static_cast<const json*>(nullptr);
  }
  const json& v = obj.at(key);
  if (!v.is_object()) {
    return fail(field_error(child_pointer(pointer, key), "an object", v));
  }
  return &v;
}

Result<std::string> text(const json* obj, const char* key, const std::string& pointer)
{
  if (obj == nullptr) {
    return std::string();
  }
  std::optional<std::string> v;
  RFDB_TRY_ASSIGN(v, get_string(*obj, key, pointer));
  return v.value_or("");
}

Result<std::optional<double>> number(const json* obj, const char* key, const std::string& pointer)
{
  if (obj == nullptr) {
    return std::optional<double>();
  }
  return get_double(*obj, key, pointer);
}

Result<std::optional<std::int64_t>> integer(const json* obj, const char* key, const std::string& pointer)
{
  if (obj == nullptr) {
    return std::optional<std::int64_t>();
  }
  return get_int(*obj, key, pointer);
}

Result<std::optional<bool>> flag(const json* obj, const char* key, const std::string& pointer)
{
  if (obj == nullptr) {
    return std::optional<bool>();
  }
  return get_bool(*obj, key, pointer);
}

// A list of strings as a JSON array text ("" when absent); a lone string is a one-item list.
Result<std::string> string_list(const json* obj, const char* key, const std::string& pointer)
{
  if (obj == nullptr || !obj->contains(key) || obj->at(key).is_null()) {
    return std::string();
  }
  const json& v = obj->at(key);
  if (v.is_string()) {
    return v.get<std::string>().empty() ? std::string() : json::array({v}).dump();
  }
  if (!v.is_array()) {
    return fail(field_error(child_pointer(pointer, key), "a list of strings", v));
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      return fail(field_error(child_pointer(child_pointer(pointer, key), i), "a string", v[i]));
    }
  }
  return v.empty() ? std::string() : v.dump();
}

// A map as JSON object text ("" when absent or empty). Errors: another type.
Result<std::string> object_text(const json* obj, const char* key, const std::string& pointer)
{
  if (obj == nullptr) {
    return std::string();
  }
  const json* v = nullptr;
  RFDB_TRY_ASSIGN(v, object_member(*obj, key, pointer));
  return v == nullptr || v->empty() ? std::string() : v->dump();
}

// A `retained` that is not a boolean: "/retained: the string \"false\", not the YAML boolean
// false; the record is not retired (GEAK retires on `retained: false` only)".
std::string retained_warning(const std::string& pointer, const json& v, std::string_view syntax)
{
  const char* what = v.is_string() ? "the string" : v.is_number() ? "the number" : "the value";
  return fmt::format("{}: {} {}, not the {} boolean false; the record is not retired (GEAK retires a record "
                     "on `retained: false` only)",
                     pointer, what, describe_value(v), syntax);
}

// GEAK's defensive counter: an integer ≥ 0, else 0 (bools, strings, negatives read 0).
int counter(const json& obj, const char* key)
{
  if (!obj.contains(key)) {
    return 0;
  }
  const json& v = obj.at(key);
  if (v.is_number_integer() && !v.is_boolean()) {
    const auto i = v.get<std::int64_t>();
    return i < 0 || i > 1'000'000'000 ? 0 : static_cast<int>(i);
  }
  return 0;
}

std::string plain_text(const json& obj, const char* key)
{
  if (obj.contains(key) && obj.at(key).is_string()) {
    return obj.at(key).get<std::string>();
  }
  return "";
}

// The ledger (GEAK-KB §4.1), read defensively; a non-object `attestations` reads empty.
void read_ledger(const json* attestations, store::KbRecord& r, domain::Ledger& ledger)
{
  if (attestations == nullptr || !attestations->is_object()) {
    return;
  }
  const json& a = *attestations;
  ledger.recalls = counter(a, "recalls");
  ledger.validations = counter(a, "validations");
  ledger.failures = counter(a, "failures");
  ledger.not_reproduced = counter(a, "not_reproduced");
  ledger.inapplicable = counter(a, "inapplicable");
  ledger.last_outcome = plain_text(a, "last_outcome");
  ledger.last_at = plain_text(a, "last_at");
  ledger.last_by = plain_text(a, "last_by");
  if (a.contains("history") && a.at("history").is_array()) {
    for (const json& e : a.at("history")) {
      if (!e.is_object()) {
        continue; // dropped, as GEAK does
      }
      domain::LedgerEntry entry{plain_text(e, "at"), plain_text(e, "outcome"), plain_text(e, "by")};
      json evidence = json::object();
      for (const auto& [k, v] : e.items()) {
        if (k != "at" && k != "outcome" && k != "by" && !v.is_null()) {
          evidence[k] = v;
        }
      }
      r.history.push_back(store::KbAttestation{entry.at, entry.outcome, entry.by, evidence.dump()});
      ledger.history.push_back(std::move(entry));
    }
  }
  r.recalls = ledger.recalls;
  r.validations = ledger.validations;
  r.failures = ledger.failures;
  r.not_reproduced = ledger.not_reproduced;
  r.inapplicable = ledger.inapplicable;
  r.last_outcome = ledger.last_outcome;
  r.last_at = ledger.last_at;
  r.last_by = ledger.last_by;
}

// GEAK's ROCm address cut (GEAK-KB §1.5): "7.2.0-98765" → "7.2"; empty → "".
std::string short_rocm(const std::string& raw)
{
  static const std::regex k_lead(R"(^\s*(\d+)(\.(\d+))?)");
  std::smatch m;
  if (std::regex_search(raw, m, k_lead)) {
    return m[2].matched ? m[1].str() + "." + m[3].str() : m[1].str();
  }
  return raw;
}

// "tp_8" → 8 for prefix "tp".
std::optional<std::int64_t> counted(const std::string& segment, std::string_view prefix)
{
  if (!segment.starts_with(std::string(prefix) + "_")) {
    return std::nullopt;
  }
  std::int64_t v = 0;
  const char* b = segment.data() + prefix.size() + 1;
  const char* e = segment.data() + segment.size();
  const auto [p, ec] = std::from_chars(b, e, v);
  return ec == std::errc() && p == e && v > 0 ? std::optional(v) : std::nullopt;
}

std::string join_id(const std::vector<std::string>& parts)
{
  return fmt::format("{}", fmt::join(parts, ":"));
}

// Kernel lane identity from knowledge.json `identity` or, missing fields, from its path:
// current order geak:kernel:{gpu}:{kernel}:{backend}:rocm[:{ver}], or the old order
// geak:kernel:{producer}:{kernel}:rocm:{ver}:{backend}:{gpu} (GEAK-KB §11).
Result<void> kernel_identity(const json& doc, const RecordContext& ctx, store::KbRecord& r)
{
  const json* id = nullptr;
  RFDB_TRY_ASSIGN(id, object_member(doc, "identity", ""));
  RFDB_TRY_ASSIGN(r.gfx, text(id, "gpu", "/identity"));
  RFDB_TRY_ASSIGN(r.kernel_name, text(id, "kernel_name", "/identity"));
  RFDB_TRY_ASSIGN(r.backend, text(id, "backend", "/identity"));
  RFDB_TRY_ASSIGN(r.framework, text(id, "framework", "/identity"));
  RFDB_TRY_ASSIGN(r.framework_version, text(id, "framework_version", "/identity"));
  const auto& p = ctx.identity; // geak, kernel, …
  const auto at = [&](std::size_t i) { return i < p.size() ? p[i] : std::string(); };
  const bool old_order = at(4) == "rocm" && at(5) != "rocm";
  r.id_order = old_order ? "old" : "current";
  const std::string gpu = old_order ? at(7) : at(2);
  const std::string backend = old_order ? at(6) : at(4);
  const std::string version = old_order ? at(5) : at(6);
  r.gfx = r.gfx.empty() ? gpu : r.gfx;
  r.kernel_name = r.kernel_name.empty() ? at(3) : r.kernel_name;
  r.backend = r.backend.empty() ? backend : r.backend;
  r.framework = r.framework.empty() ? std::string("rocm") : r.framework;
  r.framework_version = r.framework_version.empty() ? version : r.framework_version;
  return {};
}

// E2E identity from `value` (model, gpu, framework, framework_version, precision, workload) and,
// missing fields, from the path geak:e2e:{model}:{gpu}:{fw}:{ver}:{prec}[:tp_N[:ep_M]][:…].
Result<void> e2e_identity(const json* value, const RecordContext& ctx, store::KbRecord& r)
{
  RFDB_TRY_ASSIGN(r.model, text(value, "model", "/value"));
  RFDB_TRY_ASSIGN(r.gfx, text(value, "gpu", "/value"));
  RFDB_TRY_ASSIGN(r.framework, text(value, "framework", "/value"));
  RFDB_TRY_ASSIGN(r.framework_version, text(value, "framework_version", "/value"));
  RFDB_TRY_ASSIGN(r.precision, text(value, "precision", "/value"));
  RFDB_TRY_ASSIGN(r.workload_kind, text(value, "workload_kind", "/value"));
  const json* workload = nullptr;
  if (value != nullptr) {
    RFDB_TRY_ASSIGN(workload, object_member(*value, "workload", "/value"));
  }
  RFDB_TRY_ASSIGN(r.tp, integer(workload, "tp", "/value/workload"));
  RFDB_TRY_ASSIGN(r.ep, integer(workload, "ep", "/value/workload"));
  RFDB_TRY_ASSIGN(r.isl, integer(workload, "isl", "/value/workload"));
  RFDB_TRY_ASSIGN(r.osl, integer(workload, "osl", "/value/workload"));
  RFDB_TRY_ASSIGN(r.conc, integer(workload, "conc", "/value/workload"));
  const auto& p = ctx.identity;
  const auto at = [&](std::size_t i) { return i < p.size() ? p[i] : std::string(); };
  r.model = r.model.empty() ? at(2) : r.model;
  r.gfx = r.gfx.empty() ? at(3) : r.gfx;
  r.framework = r.framework.empty() ? at(4) : r.framework;
  r.framework_version = r.framework_version.empty() ? at(5) : r.framework_version;
  r.precision = r.precision.empty() ? at(6) : r.precision;
  for (std::size_t i = 7; i < p.size(); ++i) {
    const auto fill = [&](std::optional<std::int64_t>& v, std::string_view prefix) {
      if (!v) {
        v = counted(p[i], prefix);
      }
    };
    fill(r.tp, "tp");
    fill(r.ep, "ep");
    fill(r.isl, "isl");
    fill(r.osl, "osl");
    fill(r.conc, "conc");
    if (p[i] == "wl_agentx" && r.workload_kind.empty()) {
      r.workload_kind = "agentx_trace_replay";
    }
  }
  r.id_order = "current";
  return {};
}

// The keys kept in kb_records.extra when present (everything else read has its own column).
constexpr std::array k_extra_keys{"source_eval_dir",
                                  "derived_from",
                                  "measured_by",
                                  "tuner",
                                  "cache_invalidation",
                                  "artifact_files",
                                  "artifact_names",
                                  "upstream",
                                  "validation_basis",
                                  "validation_status",
                                  "parity",
                                  "recorded_at",
                                  "retracted_by",
                                  "unretired_at",
                                  "unretired_from_reason",
                                  "accepted_config",
                                  "accepted_kernels",
                                  "comparability",
                                  "repro",
                                  "dead_ends",
                                  "language"};

} // namespace

Result<json> parse_yaml_text(std::string_view text)
{
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    return yaml_to_json(root, 0);
  } catch (const YAML::Exception& e) {
    return fail(make_error(ErrorCode::invalid_input, fmt::format("invalid YAML at line {}, column {}: {}",
                                                                 e.mark.line + 1, e.mark.column + 1, e.msg)));
  }
}

bool valid_session_id(std::string_view sid)
{
  static const std::regex k_sid(R"([A-Za-z0-9][A-Za-z0-9._-]{0,127})");
  return std::regex_match(sid.begin(), sid.end(), k_sid);
}

Result<store::KbRecord> parse_record(const json& doc, const RecordContext& ctx,
                                     std::vector<std::string>* warnings)
{
  if (!doc.is_object()) {
    return fail(field_error("(document)", "an object", doc));
  }
  store::KbRecord r;
  r.lane = ctx.lane;
  r.record_key = ctx.record_key;
  const bool experience = ctx.lane == "experience";
  const bool e2e = ctx.lane == "e2e";
  // The record's body: knowledge.json keeps it under `value`, meta.yaml at top level.
  const json* value = &doc;
  std::string vp; // its JSON pointer
  if (!experience) {
    RFDB_TRY_ASSIGN(value, object_member(doc, "value", ""));
    vp = "/value";
  }
  static const json k_empty = json::object();
  const json* body = value != nullptr ? value : &k_empty;
  if (experience) {
    const auto& p = ctx.identity; // gfx, kernel_class, slug, exp_id
    RFDB_TRY_ASSIGN(r.gfx, text(body, "gfx", vp));
    RFDB_TRY_ASSIGN(r.kernel_class, text(body, "kernel_class", vp));
    RFDB_TRY_ASSIGN(r.kernel_name, text(body, "kernel_name", vp));
    RFDB_TRY_ASSIGN(r.backend, text(body, "language", vp));
    r.gfx = r.gfx.empty() && !p.empty() ? p[0] : r.gfx;
    r.kernel_class = r.kernel_class.empty() && p.size() > 1 ? p[1] : r.kernel_class;
    if (p.size() > 2 && (r.kernel_name.empty() || r.backend.empty())) { // slug name__language__gfx
      const std::string& slug = p[2];
      const auto last = slug.rfind("__");
      const auto mid =
          last == std::string::npos || last == 0 ? std::string::npos : slug.rfind("__", last - 1);
      if (mid != std::string::npos) {
        r.kernel_name = r.kernel_name.empty() ? slug.substr(0, mid) : r.kernel_name;
        r.backend = r.backend.empty() ? slug.substr(mid + 2, last - mid - 2) : r.backend;
      }
    }
    r.framework = "rocm";
    r.id_order = "current";
  } else if (e2e) {
    RFDB_TRY(e2e_identity(value, ctx, r));
  } else {
    RFDB_TRY(kernel_identity(doc, ctx, r));
  }
  if (!experience) {
    r.canonical_id = join_id(ctx.identity);
    r.rung = 0;
    r.rungs = ctx.rungs;
  }
  // Metric.
  const json* metric = nullptr;
  RFDB_TRY_ASSIGN(metric, object_member(*body, "metric", vp));
  const std::string mp = vp + "/metric";
  std::optional<double> metric_speedup;
  RFDB_TRY_ASSIGN(metric_speedup, number(metric, "speedup", mp));
  RFDB_TRY_ASSIGN(r.metric_kind, text(metric, "metric_kind", mp));
  RFDB_TRY_ASSIGN(r.bench_key, text(metric, "bench_key", mp));
  RFDB_TRY_ASSIGN(r.case_names, string_list(metric, "case_names", mp));
  RFDB_TRY_ASSIGN(r.withdrawn_scores, object_text(body, "withdrawn_scores", vp));
  std::optional<double> withdrawn_speedup;
  if (!r.withdrawn_scores.empty()) {
    const json* w = nullptr;
    RFDB_TRY_ASSIGN(w, object_member(*body, "withdrawn_scores", vp));
    RFDB_TRY_ASSIGN(withdrawn_speedup, number(w, "speedup", vp + "/withdrawn_scores"));
  }
  std::optional<double> top_speedup;
  RFDB_TRY_ASSIGN(top_speedup, get_double(doc, "speedup", ""));
  if (e2e) {
    r.metric_name = "throughput_tok_s";
    RFDB_TRY_ASSIGN(r.metric_value, get_double(doc, "throughput_tok_s", ""));
    if (!r.metric_value) {
      return fail(make_error(ErrorCode::invalid_input, "/throughput_tok_s: missing (an e2e record's ranking "
                                                       "scalar, tokens/s)"));
    }
    std::optional<double> final_tok_s;
    RFDB_TRY_ASSIGN(final_tok_s, number(body, "final_throughput_tok_s", vp));
    RFDB_TRY_ASSIGN(r.baseline_tok_s, number(body, "baseline_throughput_tok_s", vp));
    r.throughput_tok_s = final_tok_s ? final_tok_s : (*r.metric_value > 0 ? r.metric_value : std::nullopt);
    r.speedup = top_speedup && *top_speedup > 0 ? top_speedup : std::nullopt;
    if (!r.speedup && r.throughput_tok_s && r.baseline_tok_s && *r.baseline_tok_s > 0) {
      r.speedup = *r.throughput_tok_s / *r.baseline_tok_s;
    }
  } else {
    r.metric_name = "speedup";
    r.metric_value = experience ? metric_speedup : top_speedup;
    r.speedup = metric_speedup                      ? metric_speedup
                : top_speedup && *top_speedup > 0.0 ? top_speedup
                                                    : withdrawn_speedup;
  }
  // Text fields.
  RFDB_TRY_ASSIGN(r.direction, text(body, "direction", vp));
  RFDB_TRY_ASSIGN(r.techniques, string_list(body, "techniques", vp));
  RFDB_TRY_ASSIGN(r.strategy, text(body, "strategy", vp));
  RFDB_TRY_ASSIGN(r.verified_on, text(body, "verified_on", vp));
  RFDB_TRY_ASSIGN(r.verified_stack, object_text(body, "verified_stack", vp));
  RFDB_TRY_ASSIGN(r.reproductions, integer(body, "reproductions", vp));
  RFDB_TRY_ASSIGN(r.lifecycle, text(body, "lifecycle", vp));
  RFDB_TRY_ASSIGN(r.validated, flag(body, "validated", vp));
  // `retained`: GEAK tests `retained is False`, so only the boolean false retires a record; any
  // other value (a quoted 'false', 0, "no") retires nothing and is named in a warning.
  if (body->contains("retained") && !body->at("retained").is_null()) {
    const json& v = body->at("retained");
    if (v.is_boolean()) {
      r.retained = v.get<bool>();
    } else if (warnings != nullptr) {
      warnings->push_back(retained_warning(child_pointer(vp, "retained"), v, experience ? "YAML" : "JSON"));
    }
  }
  RFDB_TRY_ASSIGN(r.retired_reason, text(body, "retired_reason", vp));
  RFDB_TRY_ASSIGN(r.retracted_at, text(body, "retracted_at", vp));
  RFDB_TRY_ASSIGN(r.carrier, text(body, "carrier", vp));
  RFDB_TRY_ASSIGN(r.apply_env, text(body, "apply_env", vp));
  RFDB_TRY_ASSIGN(r.apply_route, text(body, "apply_route", vp));
  if (experience || r.carrier.empty()) {
    r.carrier = r.carrier.empty() && !e2e ? std::string("patch") : r.carrier; // absent ⇒ patch (§3.2)
  }
  // Upstream precision (kernel lanes: a filter, not an address dimension, §3.4).
  const json* upstream = nullptr;
  RFDB_TRY_ASSIGN(upstream, object_member(*body, "upstream", vp));
  if (!e2e) {
    RFDB_TRY_ASSIGN(r.precision, text(upstream, "precision", vp + "/upstream"));
  }
  if (experience && !r.verified_stack.empty()) {
    const json* stack = nullptr;
    RFDB_TRY_ASSIGN(stack, object_member(*body, "verified_stack", vp));
    std::string rocm;
    RFDB_TRY_ASSIGN(rocm, text(stack, "rocm", vp + "/verified_stack"));
    r.framework_version = short_rocm(rocm);
  }
  // Signature: stored, else computed from the files (GEAK-KB §3.3).
  RFDB_TRY_ASSIGN(r.content_signature, text(body, "content_signature", vp));
  if (!r.content_signature.empty()) {
    r.signature_origin = "stored";
  } else if (r.carrier == "tuned_artifact" && !ctx.artifacts.empty()) {
    std::vector<domain::ArtifactFile> files;
    for (const auto& [name, bytes] : ctx.artifacts) {
      files.push_back(domain::ArtifactFile{name, bytes});
    }
    r.content_signature = domain::artifact_signature(std::move(files));
    r.signature_origin = r.content_signature.empty() ? "" : "artifact";
  } else if (ctx.patch) {
    r.content_signature = domain::content_signature(*ctx.patch);
    r.signature_origin = r.content_signature.empty() ? "" : "patch";
  }
  // Ledger and retirement.
  const json* attestations = nullptr;
  RFDB_TRY_ASSIGN(attestations, object_member(*body, "attestations", vp));
  domain::Ledger ledger;
  read_ledger(attestations, r, ledger);
  const auto why = domain::record_retired_why(r.retained, r.retired_reason, ledger);
  r.retired = why.has_value();
  r.retired_why = why.value_or("");
  // Everything else worth keeping.
  json extra = json::object();
  for (const char* k : k_extra_keys) {
    if (body->contains(k) && !body->at(k).is_null()) {
      extra[k] = body->at(k);
    }
  }
  if (e2e && !ctx.kernel_patches.empty()) {
    json signatures = json::object();
    for (const auto& [rel, bytes] : ctx.kernel_patches) {
      if (std::string sig = domain::content_signature(bytes); !sig.empty()) {
        signatures[rel] = std::move(sig);
      }
    }
    if (!signatures.empty()) {
      extra["kernel_patches"] = std::move(signatures);
    }
  }
  if (doc.contains("schema") && doc.at("schema").is_string()) {
    extra["schema"] = doc.at("schema");
  }
  if (doc.contains("producer") && doc.at("producer").is_string()) {
    extra["producer"] = doc.at("producer");
  }
  r.extra = extra.empty() ? std::string() : extra.dump();
  return r;
}

Result<store::KbChampion> parse_champion(const json& doc, const std::string& canonical_id)
{
  if (!doc.is_object()) {
    return fail(field_error("(document)", "an object", doc));
  }
  store::KbChampion c;
  c.canonical_id = canonical_id;
  std::optional<std::string> metric;
  std::optional<std::string> sid;
  RFDB_TRY_ASSIGN(metric, get_string(doc, "metric", ""));
  RFDB_TRY_ASSIGN(sid, get_string(doc, "session_id", ""));
  RFDB_TRY_ASSIGN(c.value, get_double(doc, "value", ""));
  if (!sid) {
    return fail(make_error(ErrorCode::invalid_input, "/session_id: missing"));
  }
  c.metric = metric.value_or("");
  c.session_id = *sid;
  return c;
}

} // namespace rfdb::ingest::kb
