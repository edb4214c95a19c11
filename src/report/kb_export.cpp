// `rfdb export --kb`: the records (report/kb_export.hpp). Which attempts, their identities and
// their knowledge documents; the writing is in kb_store_write.cpp.
#include "report/kb_export.hpp"

#include "domain/content_signature.hpp"
#include "domain/kb_identity.hpp"
#include "report/findings.hpp"
#include "report/from_store.hpp"
#include "store/attempt_sources.hpp"
#include "store/report_evidence.hpp"
#include "store/runs.hpp"
#include "store/sources.hpp"
#include "store/stack.hpp"
#include "util/digest.hpp"
#include "util/hex.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <set>
#include <unordered_map>

namespace rfdb::report {

namespace {

// The kernel lane's backend segment: GEAK keys a kernel by its language
// (triton, hip, ck …). An attempt's backend names the language for a tuned
// or authored kernel, but the route for a rewrite, rebind or launcher change,
// which is not a language: those are "unknown" (GEAK's fallback segment).
std::string kernel_language(const std::string& backend)
{
  static constexpr std::array<std::string_view, 7> k_languages = {"triton", "ck",   "hip",     "flydsl",
                                                                  "asm",    "cuda", "tilelang"};
  return std::find(k_languages.begin(), k_languages.end(), backend) != k_languages.end() ? backend
                                                                                         : "unknown";
}

using nlohmann::json;
namespace kb = domain::kb;

constexpr std::size_t k_direction_chars = 120; // GEAK's direction ≤ 120 (§3.2)
constexpr std::size_t k_technique_chars = 300; // GEAK's strategy ≤ 300 (§3.2)

// `x` rounded to `places` decimals as Python's round() does (the correctly rounded decimal of
// the double), so the JSON shows the short form ("1.8742").
double round_to(double x, int places)
{
  return std::strtod(fmt::format("{:.{}f}", x, places).c_str(), nullptr);
}

// GEAK drops "", null, [] and {} from a value (§3.6); false and 0 stay.
void put(json& obj, const std::string& key, json v)
{
  if (v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()) ||
      ((v.is_array() || v.is_object()) && v.empty())) {
    return;
  }
  obj[key] = std::move(v);
}

// A package's version as the run's stack states it; rocm as its release (the rocm row's raw
// string is the one it was read from, e.g. torch's "2.9.0+rocm7.0.2" → 7.0.2).
std::string stack_raw(const std::vector<store::StackRow>& stack, const std::string& package,
                      const std::optional<std::string>& backend)
{
  const store::StackRow* row = store::find_package(stack, package, backend);
  if (row == nullptr) {
    return "";
  }
  return package == "rocm" && row->release ? *row->release : row->raw;
}

// The model's name: the last component of a model path ("/data/huggingface/moonshotai/Kimi-K2.6"
// → "Kimi-K2.6"), as GEAK's --model dimension names it.
std::string model_name(std::string_view model)
{
  while (!model.empty() && model.back() == '/') {
    model.remove_suffix(1);
  }
  const std::size_t slash = model.find_last_of('/');
  return std::string(slash == std::string_view::npos ? model : model.substr(slash + 1));
}

// The lever as the run wrote it, without rfdb's "config: " / "env " label: the flags or
// env binding to apply.
std::string config_text(std::string_view lever)
{
  for (const std::string_view label : {"config: ", "config:", "env: ", "env "}) {
    if (lever.starts_with(label)) {
      lever.remove_prefix(label.size());
      break;
    }
  }
  while (!lever.empty() && lever.front() == ' ') {
    lever.remove_prefix(1);
  }
  return std::string(lever);
}

// An env binding ("KEY=VALUE …") or serving flags: GEAK's accepted_config {env | flags}.
bool is_env_binding(std::string_view lever)
{
  const std::size_t eq = lever.find('=');
  return eq != std::string_view::npos && eq > 0 && !lever.starts_with("-") &&
         lever.substr(0, eq).find(' ') == std::string_view::npos;
}

json env_pairs(std::string_view env)
{
  json pairs = json::object();
  std::size_t i = 0;
  while (i < env.size()) {
    const std::size_t end = std::min(env.find(' ', i), env.size());
    const std::string_view item = env.substr(i, end - i);
    if (const std::size_t eq = item.find('='); eq != std::string_view::npos && eq > 0) {
      pairs[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    }
    i = end + 1;
  }
  return pairs;
}

struct RunData {
  store::RunSummary summary;
  RunInfo info;
};

// The artifacts map and files of one attempt: its cited current files under evidence/.
void add_evidence(const std::vector<std::string>& rel_paths,
                  const std::unordered_map<std::string, std::string>& texts, json& value,
                  std::map<std::string, std::string>& files)
{
  json artifacts = json::object();
  for (const auto& rel : rel_paths) {
    const auto it = texts.find(rel);
    if (it == texts.end()) {
      continue;
    }
    const std::string stored = "evidence/" + rel;
    if (kb_rel_path_problem(stored)) {
      continue;
    }
    artifacts["evidence:" + rel] = stored;
    files[stored] = it->second;
  }
  put(value, "artifacts", std::move(artifacts));
}

// The sections of a git diff: each from a line starting "diff " to the next (text before the
// first is not a section), with its first and last line (1-based).
struct GitSection {
  std::string_view text;
  std::size_t first_line = 0, last_line = 0;
};
std::vector<GitSection> git_sections(std::string_view diff)
{
  std::vector<GitSection> out;
  std::size_t start = std::string_view::npos;
  std::size_t line = 0;
  for (std::size_t at = 0; at < diff.size();) {
    const std::size_t nl = diff.find('\n', at);
    const std::size_t next = nl == std::string_view::npos ? diff.size() : nl + 1;
    ++line;
    if (diff.substr(at).starts_with("diff ")) {
      if (start != std::string_view::npos) {
        out.back().text = diff.substr(start, at - start);
        out.back().last_line = line - 1;
      }
      start = at;
      out.push_back(GitSection{{}, line, line});
    }
    at = next;
  }
  if (start != std::string_view::npos) {
    out.back().text = diff.substr(start);
    out.back().last_line = line;
  }
  return out;
}

// The file a section changes: its `+++ b/<p>` path, else the b/ path of its `diff --git a/… b/…`
// line, else the rest of its `diff ` line.
std::string section_file(std::string_view section)
{
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < section.size();) {
    const std::size_t nl = std::min(section.find('\n', at), section.size());
    std::string_view l = section.substr(at, nl - at);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) {
      l.remove_suffix(1);
    }
    lines.push_back(l);
    at = nl + 1;
  }
  for (const std::string_view l : lines) {
    if (std::string_view p = l.starts_with("+++ ") ? l.substr(4, l.find('\t', 4) - 4) : "";
        !p.empty() && p != "/dev/null") {
      return std::string(p.starts_with("b/") ? p.substr(2) : p);
    }
  }
  const std::string_view head = lines.empty() ? std::string_view() : lines.front();
  if (const auto b = head.rfind(" b/"); head.starts_with("diff --git ") && b != std::string_view::npos) {
    return std::string(head.substr(b + 3));
  }
  return std::string(head.substr(std::min<std::size_t>(5, head.size())));
}

// The attempt's cited current files of `kind` (patch / tuned_table, cited whole), by path.
std::vector<std::pair<std::string, const std::string*>>
cited_parts(const std::vector<store::CitedSource>& cited,
            const std::unordered_map<std::string, std::string>& texts, std::string_view kind)
{
  std::vector<std::pair<std::string, const std::string*>> parts; // rel_path → bytes, by path
  for (const auto& c : cited) {
    const auto it = texts.find(c.rel_path);
    if (c.superseded || !c.json_pointer.empty() || c.kind != kind || it == texts.end() ||
        (!parts.empty() && parts.back().first == c.rel_path)) {
      continue;
    }
    parts.emplace_back(c.rel_path, &it->second);
  }
  return parts;
}

} // namespace

std::optional<SignedPatch> signed_patch(std::string_view signature,
                                        const std::vector<store::CitedSource>& cited,
                                        const std::unordered_map<std::string, std::string>& texts)
{
  if (!signature.starts_with("csha:")) {
    return std::nullopt;
  }
  const auto parts = cited_parts(cited, texts, "patch");
  if (parts.empty()) {
    return std::nullopt;
  }
  SignedPatch out;
  for (const auto& [rel, bytes] : parts) {
    out.text += *bytes;
    out.files.push_back(rel);
    if (parts.size() > 1 && !out.text.empty() && out.text.back() != '\n') {
      out.text.push_back('\n');
    }
  }
  if (domain::content_signature(out.text) == signature) {
    return out;
  }
  // Only the signed change: of a shared diff (final_patch.diff, signed by its section that
  // changes the candidate's file) that section, never the whole diff with other changes.
  for (const auto& [rel, bytes] : parts) {
    for (const GitSection& section : git_sections(*bytes)) {
      if (domain::content_signature(section.text) == signature) {
        return SignedPatch{std::string(section.text),
                           {rel},
                           section_file(section.text),
                           section.first_line,
                           section.last_line};
      }
    }
  }
  return std::nullopt;
}

namespace {

// The implementation of a signed kernel attempt (its content_signature), as GEAK's layout
// holds it: the stored diff(s) the csha: was computed from as files/patch.diff (signed_patch),
// or the stored tuned tables the asha: was computed from under files/artifact/<stored name>
// (carrier tuned_artifact, artifact_files, artifact_names). `cited` are the attempt's stored
// sources (kind patch / tuned_table, cited whole), `texts` the run's current files.
void add_implementation(const AttemptInfo& a, const std::vector<store::CitedSource>& cited,
                        const std::unordered_map<std::string, std::string>& texts, json& value,
                        std::map<std::string, std::string>& files)
{
  const bool patch = a.content_signature.starts_with("csha:");
  const bool table = a.content_signature.starts_with("asha:");
  if (!patch && !table) {
    return;
  }
  value["content_signature"] = a.content_signature;
  json artifacts = value.contains("artifacts") ? value["artifacts"] : json::object();
  if (patch) {
    auto signed_diff = signed_patch(a.content_signature, cited, texts);
    if (!signed_diff) {
      return;
    }
    files["patch.diff"] = std::move(signed_diff->text);
    artifacts["patch"] = "patch.diff";
  } else {
    const auto parts = cited_parts(cited, texts, "tuned_table");
    if (parts.empty()) {
      return;
    }
    json names = json::object();
    json stored = json::array();
    std::vector<domain::ArtifactFile> signed_files;
    for (const auto& [rel, bytes] : parts) {
      const std::string file = rel.substr(rel.rfind('/') + 1);
      const std::string name = domain::geak_safe_name(file);
      if (names.contains(name)) {
        continue; // GEAK keeps the first of two files with one stored name
      }
      stored.push_back(name);
      names[name] = file;
      signed_files.push_back(domain::ArtifactFile{name, *bytes});
    }
    if (domain::artifact_signature(signed_files) != a.content_signature) {
      return;
    }
    for (auto& f : signed_files) {
      artifacts[f.stored_name] = "artifact/" + f.stored_name;
      files["artifact/" + f.stored_name] = std::move(f.bytes);
    }
    value["carrier"] = "tuned_artifact";
    value["artifact_files"] = std::move(stored);
    value["artifact_names"] = std::move(names);
  }
  put(value, "artifacts", std::move(artifacts));
}

// rfdb's own account of the attempt (GEAK's value is opaque to the store; this block is ours).
json rfdb_block(const AttemptInfo& a)
{
  json r = json::object();
  put(r, "attempt", a.run_id + "#" + a.attempt_key);
  put(r, "run_id", a.run_id);
  put(r, "attempt_key", a.attempt_key);
  put(r, "kernel", a.short_name);
  put(r, "op_class", a.op_class);
  put(r, "regime", a.regime);
  put(r, "lever_kind", a.lever_kind);
  put(r, "gate", a.gate);
  put(r, "verdict", a.verdict);
  put(r, "output_parity", a.output_parity);
  if (a.isolated_speedup) {
    r["isolated_speedup"] = round_to(*a.isolated_speedup, 6);
  }
  if (a.e2e_delta_pct) {
    r["e2e_delta_pct"] = round_to(*a.e2e_delta_pct, 4);
  }
  r["director_validation"] = validation_won(a) ? "won" : validation_lost(a) ? "lost" : "not_included";
  if (a.validation_speedup && validation_includes(a)) {
    r["director_speedup"] = round_to(*a.validation_speedup, 6);
  }
  r["show"] = fmt::format("rfdb show {} --attempt {}", a.run_id, a.attempt_key);
  return r;
}

std::string port_digest(const AttemptInfo& a)
{
  return util::hex_encode(util::sha256(fmt::format("{}|{}#{}", k_kb_producer, a.run_id, a.attempt_key)));
}

std::optional<KbRecord> kernel_record(const AttemptInfo& a, const RunData& run, std::string& why)
{
  const std::string gfx = kb::norm_gfx(a.gfx);
  if (gfx.empty()) {
    why = "no gfx target (GEAK refuses a kernel record without one: missing_arch)";
    return std::nullopt;
  }
  if (!a.isolated_speedup || !(*a.isolated_speedup > 1.0)) {
    why = "no isolated speedup above 1";
    return std::nullopt;
  }
  const auto& stack = run.summary.stack;
  const std::string rocm = stack_raw(stack, "rocm", run.summary.backend);
  const kb::KernelIdentity id =
      kb::kernel_identity(gfx, kb::canon_name(a.short_name), kernel_language(a.backend), rocm);
  KbRecord rec;
  rec.lane = "kernel";
  rec.ladder = kb::kernel_ladder(id);
  rec.session_id = kb::session_id(rec.ladder.front(), id.kernel_name, port_digest(a), k_kb_producer);
  rec.source = a.run_id + "#" + a.attempt_key;

  json value = json::object();
  put(value, "direction", util::truncate_utf8(attempt_lever_text(a), k_direction_chars));
  if (!a.reason.empty()) {
    put(value, "techniques", json::array({first_sentence(a.reason, k_technique_chars)}));
  }
  value["metric"] = json{{"metric_kind", "isolated"}, {"speedup", round_to(*a.isolated_speedup, 6)}};
  json verified = json::object();
  for (const std::string package : {"rocm", "torch", "triton"}) {
    put(verified, package, stack_raw(stack, package, run.summary.backend));
  }
  put(value, "verified_stack", std::move(verified));
  json upstream = json::object();
  put(upstream, "framework", run.info.backend);
  put(upstream, "framework_version", run.summary.backend_version.value_or(""));
  put(upstream, "precision", run.info.model_dtype);
  put(value, "upstream", std::move(upstream));
  put(value, "verified_on", a.run_date);
  put(value, "measured_by", k_kb_producer);
  value["reproductions"] = 1;
  value["lifecycle"] = "candidate";
  value["validated"] = false; // GEAK: lifecycle active (≥ 2 reproductions)
  value["validation_basis"] = "kernel_bench";
  value["rfdb"] = rfdb_block(a);
  rec.knowledge = json{{"identity",
                        {{"backend", id.backend},
                         {"framework", kb::k_kernel_framework},
                         {"framework_version", id.framework_version},
                         {"gpu", id.gpu},
                         {"kernel_name", id.kernel_name}}},
                       {"producer", k_kb_producer},
                       {"speedup", round_to(*a.isolated_speedup, 4)},
                       {"value", std::move(value)}};
  return rec;
}

std::optional<KbRecord> e2e_record(const AttemptInfo& a, const RunData& run, std::string& why)
{
  const auto& s = run.summary;
  if (!a.e2e_delta_pct) {
    why = "no e2e delta";
    return std::nullopt;
  }
  if (!s.baseline_throughput_tok_s || !(*s.baseline_throughput_tok_s > 0.0)) {
    why = "the run states no baseline throughput (GEAK refuses an e2e record without throughput_tok_s)";
    return std::nullopt;
  }
  const auto to_int = [](const std::optional<std::int64_t>& v) {
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  };
  const std::string gfx = kb::norm_gfx(a.gfx).empty() ? a.gfx : kb::norm_gfx(a.gfx);
  const std::string model = model_name(run.info.model);
  const kb::E2eIdentity id =
      kb::e2e_identity(kb::E2eInputs{.model = model,
                                     .gfx = gfx,
                                     .framework = run.info.backend,
                                     .framework_version = s.backend_version.value_or(""),
                                     .precision = run.info.model_dtype,
                                     .tp = to_int(s.tp),
                                     .isl = to_int(s.isl),
                                     .osl = to_int(s.osl),
                                     .conc = to_int(s.conc)});
  KbRecord rec;
  rec.lane = "e2e";
  rec.ladder = kb::e2e_ladder(id);
  rec.session_id = kb::session_id(rec.ladder.front(), id.model, port_digest(a), k_kb_producer);
  rec.source = a.run_id + "#" + a.attempt_key;

  const double baseline = *s.baseline_throughput_tok_s;
  const double speedup = 1.0 + *a.e2e_delta_pct / 100.0;
  const double final_tok_s = round_to(baseline * speedup, 4);
  const std::string lever = config_text(attempt_lever_text(a));
  json value = json::object();
  value["model"] = id.model;
  value["gpu"] = id.gpu;
  value["framework"] = id.framework;
  value["framework_version"] = id.framework_version;
  value["precision"] = id.precision;
  json workload = json::object();
  for (const auto& [key, v] : {std::pair{"tp", s.tp}, {"isl", s.isl}, {"osl", s.osl}, {"conc", s.conc}}) {
    if (v && *v > 0) {
      workload[key] = *v;
    }
  }
  put(value, "workload", workload);
  value["baseline_throughput_tok_s"] = round_to(baseline, 4);
  value["final_throughput_tok_s"] = final_tok_s;
  put(value, "direction", util::truncate_utf8(attempt_lever_text(a), k_direction_chars));
  const bool env = is_env_binding(lever);
  value["accepted_config"] = json{{env ? "env" : "flags", lever}};
  value["accepted_kernels"] = json::array();
  const std::string status = validation_won(a)    ? "validated_win"
                             : validation_lost(a) ? "validated_no_win"
                                                  : "";
  put(value, "validation_status", status);
  const std::string parity =
      (a.output_parity == "pass" || a.output_parity == "fail") ? a.output_parity : "n/a";
  const bool validated = status == "validated_win" && parity == "pass";
  value["parity"] = parity;
  value["validated"] = validated;
  value["validation_basis"] = validated ? "hot_ab" : "unverified";
  value["lifecycle"] = validated ? "active" : "candidate";
  value["retained"] = true;
  put(value, "measured_by", k_kb_producer);
  if (!a.run_date.empty()) {
    value["recorded_at"] = a.run_date + "T00:00:00Z";
  }
  json upstream = json::object();
  put(upstream, "rocm_version", stack_raw(s.stack, "rocm", s.backend));
  put(value, "upstream", std::move(upstream));
  json repro = json{{"backend", id.framework},    {"complete", false},       {"kernels", json::array()},
                    {"kernels_without_patch", 0}, {"model", run.info.model}, {"workload", workload}};
  if (env) {
    repro["env"] = lever;
    repro["env_pairs"] = env_pairs(lever);
  } else {
    repro["server_args"] = lever;
  }
  value["repro"] = std::move(repro);
  value["rfdb"] = rfdb_block(a);
  rec.knowledge = json{{"schema", "geak.e2e.v1"},
                       {"speedup", round_to(speedup, 6)},
                       {"throughput_tok_s", final_tok_s},
                       {"value", std::move(value)}};
  return rec;
}

} // namespace

std::optional<double> kb_score(const nlohmann::json& knowledge, std::string_view metric)
{
  if (!knowledge.is_object()) {
    return std::nullopt;
  }
  const auto it = knowledge.find(std::string(metric));
  if (it == knowledge.end() || !it->is_number()) {
    return std::nullopt; // missing, null, bool, string
  }
  return it->get<double>();
}

std::string kb_json_text(const nlohmann::json& j)
{
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

std::optional<std::string> kb_rel_path_problem(std::string_view rel)
{
  if (rel.empty()) {
    return "empty";
  }
  if (rel.find('\0') != std::string_view::npos) {
    return "a NUL byte";
  }
  if (rel.find('\\') != std::string_view::npos) {
    return "a backslash";
  }
  if (rel.front() == '/') {
    return "a leading '/'";
  }
  if (rel.find(':') != std::string_view::npos) {
    return "a ':'";
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t slash = rel.find('/', start);
    const std::string_view part =
        rel.substr(start, slash == std::string_view::npos ? rel.npos : slash - start);
    if (part.empty() || part == "." || part == "..") {
      return "an empty, '.' or '..' component";
    }
    if (slash == std::string_view::npos) {
      return std::nullopt;
    }
    start = slash + 1;
  }
}

Result<KbPlan> plan_kb_export(store::Database& db)
{
  auto runs = store::list_runs(db, store::IncludeRetracted::no);
  if (!runs) {
    return fail(runs.error());
  }
  auto stacks = store::all_run_stacks(db);
  if (!stacks) {
    return fail(stacks.error());
  }
  // list_runs: tp, throughputs and the backend's version; the report's own run rows (its
  // RunInfo, with model_dtype and the measured e2e spread in_what_works judges by).
  std::unordered_map<std::string, RunData> by_id;
  for (auto& r : *runs) {
    if (auto it = stacks->find(r.run_id); it != stacks->end()) {
      r.stack = it->second;
    }
    const std::string id = r.run_id;
    by_id.emplace(id, RunData{std::move(r), RunInfo{}});
  }
  std::set<std::string> report_runs;
  // The What works attempts (in_what_works), by run then attempt key.
  std::map<std::pair<std::string, std::string>, AttemptInfo> winners;
  store::ReportEvidenceSink sink;
  sink.run = [&](store::RunSummary&& r) {
    if (auto it = by_id.find(r.run_id); it != by_id.end()) {
      report_runs.insert(r.run_id);
      it->second.info = run_info(std::move(r));
    }
  };
  sink.attempt = [&](store::Attempt&& a) {
    const auto it = by_id.find(a.run_id);
    if (it == by_id.end() || !report_runs.contains(a.run_id)) {
      return;
    }
    AttemptInfo x = attempt_view(std::move(a), it->second.info);
    if (in_what_works(x)) {
      auto key = std::make_pair(x.run_id, x.attempt_key);
      winners.emplace(std::move(key), std::move(x));
    }
  };
  RFDB_TRY(store::read_report_evidence(db, store::EvidenceFilter{}, sink,
                                       store::ReportRows::runs | store::ReportRows::attempts));

  KbPlan plan;
  std::string current_run;
  std::unordered_map<std::string, std::string> texts; // the current run's current files
  for (const auto& [key, a] : winners) {
    const RunData& run = by_id.at(a.run_id);
    if (a.run_id != current_run) {
      current_run = a.run_id;
      texts.clear();
      store::FileScope scope;
      scope.run_id = a.run_id;
      scope.verify = true;
      RFDB_TRY(store::for_each_current_file(db, scope, [&](const store::StoredFile& f) -> Result<void> {
        if (!f.problem) {
          texts.emplace(f.rel_path, f.text);
        }
        return {};
      }));
    }
    std::string why;
    auto rec = is_config_trial(a) ? e2e_record(a, run, why) : kernel_record(a, run, why);
    if (!rec) {
      plan.skipped.push_back(fmt::format("{}#{}: {}", a.run_id, a.attempt_key, why));
      continue;
    }
    auto cited = store::attempt_cited_sources(db, a.run_id, a.attempt_key);
    if (!cited) {
      return fail(cited.error());
    }
    std::vector<std::string> rels;
    for (const auto& c : *cited) {
      if (!c.superseded && (rels.empty() || rels.back() != c.rel_path)) {
        rels.push_back(c.rel_path);
      }
    }
    add_evidence(rels, texts, rec->knowledge["value"], rec->files);
    if (rec->lane == "kernel") {
      add_implementation(a, *cited, texts, rec->knowledge["value"], rec->files);
    }
    plan.records.push_back(std::move(*rec));
  }
  std::sort(plan.records.begin(), plan.records.end(),
            [](const KbRecord& x, const KbRecord& y) { return x.session_id < y.session_id; });
  return plan;
}

Result<KbExportSummary> export_kb(store::Database& db, const std::filesystem::path& root)
{
  auto plan = plan_kb_export(db);
  if (!plan) {
    return fail(plan.error());
  }
  auto summary = write_kb_store(root, plan->records);
  if (!summary) {
    return fail(summary.error());
  }
  summary->skipped = std::move(plan->skipped);
  return summary;
}

} // namespace rfdb::report
