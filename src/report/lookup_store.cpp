// The stored runs as `rfdb lookup` evidence (see lookup_store.hpp).
#include "report/lookup_store.hpp"

#include "domain/kb_identity.hpp"
#include "domain/noise.hpp"
#include "domain/normalize.hpp"
#include "domain/vocab.hpp"
#include "report/findings.hpp"
#include "report/kb_export.hpp"
#include "store/attempt_sources.hpp"
#include "store/kb_records.hpp"
#include "store/runs.hpp"
#include "store/sources.hpp"
#include "store/stack.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace rfdb::report {

namespace {

AttemptInfo info_of(const store::RunDetail& run, const store::AttemptRow& a, const domain::E2eBand& band)
{
  AttemptInfo i;
  i.run_id = run.run_id;
  i.run_date = run.run_date.value_or("");
  i.gfx = run.gfx.value_or("");
  i.short_name = a.short_name;
  i.op_class = std::string(domain::to_string(a.op_class));
  i.regime = a.regime.value_or("");
  i.lever = a.lever;
  i.lever_kind = std::string(domain::to_string(a.lever_kind));
  i.backend = a.backend.value_or("");
  i.isolated_speedup = a.isolated_speedup;
  i.e2e_delta_pct = a.e2e_delta_pct;
  i.gate = a.gate.value_or("");
  i.verdict = std::string(domain::to_string(a.verdict));
  i.run_validation_class = std::string(domain::to_string(a.validation_class));
  i.validation_speedup = a.validation_speedup;
  i.attempt_key = a.attempt_key;
  i.kind = std::string(domain::to_string(a.kind));
  i.candidate = a.candidate.value_or("");
  i.measured = a.measured;
  i.deployed = a.deployed;
  i.output_parity = a.output_parity.value_or("");
  i.parity_kind = a.parity_kind.value_or("");
  i.reason = a.reason.value_or("");
  i.reject_reason = a.reject_reason.value_or("");
  i.prediction = a.prediction;
  i.e2e_band = band;
  return i;
}

// "env: A=1 B=2" or "… (env A=1 B=2)" → ("env", "A=1 B=2"); a lever naming a `--flag` →
// ("flag", the lever); else ("other", the lever).
std::pair<std::string, std::string> apply_of_lever(const std::string& lever)
{
  for (const std::string_view prefix : {"env: ", "env:", "env "}) {
    if (lever.starts_with(prefix)) {
      return {"env", lever.substr(prefix.size())};
    }
  }
  // "backend ck (env A=1 B=x.csv)": the env change the lever carries.
  if (const auto at = lever.find("(env "); at != std::string::npos && lever.ends_with(")")) {
    return {"env", lever.substr(at + 5, lever.size() - at - 6)};
  }
  if (lever.find("--") != std::string::npos) {
    return {"flag", lever.starts_with("config: ") ? lever.substr(8) : lever};
  }
  if (lever.find('=') != std::string::npos && lever.find(' ') == std::string::npos) {
    return {"env", lever};
  }
  return {"other", lever};
}

} // namespace

Result<std::vector<LookupCandidate>> run_lookup_candidates(store::Database& db,
                                                           std::vector<LookupHead>* heads)
{
  auto runs = store::list_runs(db, store::IncludeRetracted::no);
  if (!runs) {
    return fail(std::move(runs).error());
  }
  std::vector<LookupCandidate> out;
  for (const auto& summary : *runs) {
    auto run = store::get_run(db, summary.run_id);
    if (!run) {
      return fail(std::move(run).error());
    }
    if (heads != nullptr && run->gfx) {
      for (const auto& v : run->verdicts) {
        if (v.pct_gpu_time && *v.pct_gpu_time >= domain::k_head_min_pct) {
          heads->push_back(LookupHead{run->run_id, run->run_date.value_or(""), domain::gfx_key(*run->gfx),
                                      v.short_name, v.op_class, v.headroom_class, v.bound_type, v.source_kind,
                                      v.round, v.pct_gpu_time, v.roofline_pct, v.target_eff,
                                      v.expected_e2e_gain_pct});
        }
      }
    }
    const domain::E2eBand band = domain::run_e2e_band(store::measured_spread_pct(run->bench));
    std::string stack;
    if (run->backend) {
      const auto* row = store::find_package(run->stack, "backend", run->backend);
      stack = *run->backend + " " + (row != nullptr ? row->raw : run->backend_version.value_or("?"));
    }
    const auto* rocm = store::find_package(run->stack, "rocm", run->backend);
    bool texts_read = false; // the run's stored diffs, read at its first signed patch
    std::unordered_map<std::string, std::string> texts;
    for (const auto& a : run->attempts) {
      if (a.kind == domain::AttemptKind::config || !a.measured) {
        continue;
      }
      const AttemptInfo info = info_of(*run, a, band);
      LookupCandidate c;
      c.kernel = a.short_name;
      c.gfx = domain::gfx_key(run->gfx.value_or(""));
      c.backend = a.backend.value_or("");
      c.dtype = run->model_dtype.value_or("");
      c.model = run->model.value_or("");
      const auto as_int = [](const std::optional<std::int64_t>& v) {
        return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
      };
      c.isl = as_int(run->isl);
      c.osl = as_int(run->osl);
      c.conc = as_int(run->conc);
      c.lever = attempt_lever_text(info);
      c.lever_key = domain::lever_key(c.lever, info.op_class);
      c.lever_kind = info.lever_kind;
      std::tie(c.apply_kind, c.apply) = apply_of_lever(c.lever);
      if (a.content_signature) {
        c.content_signature = *a.content_signature;
        auto cited = store::attempt_cited_sources(db, run->run_id, a.attempt_key);
        if (!cited) {
          return fail(std::move(cited).error());
        }
        for (const auto& s : *cited) {
          if (!s.superseded && (s.kind == "patch" || s.kind == "tuned_table")) {
            c.files.push_back(s.rel_path);
            c.apply_kind = s.kind;
          }
        }
        if (!c.files.empty()) {
          c.apply = c.files.front();
        }
        // A csha: names the stored diff it was computed from — of a shared diff only the
        // lever's own section, as `export --kb` writes it (signed_patch).
        if (c.content_signature.starts_with("csha:") && c.apply_kind == "patch") {
          if (!texts_read) {
            texts_read = true;
            store::FileScope scope;
            scope.run_id = run->run_id;
            scope.verify = true;
            RFDB_TRY(store::for_each_current_file(db, scope, [&](const store::StoredFile& f) -> Result<void> {
              if (!f.problem && f.kind == "patch") {
                texts.emplace(f.rel_path, f.text);
              }
              return {};
            }));
          }
          if (auto sp = signed_patch(c.content_signature, *cited, texts)) {
            c.files = sp->files;
            c.apply = sp->section.empty() ? c.files.front()
                                          : fmt::format("{}, section {} (lines {}-{})", c.files.front(),
                                                        sp->section, sp->first_line, sp->last_line);
            c.apply_section = sp->section;
            c.apply_first_line = sp->first_line;
            c.apply_last_line = sp->last_line;
          }
        }
      }
      for (const auto& share : a.prediction.case_mix) {
        c.cases.push_back(share.case_id);
      }
      c.isolated_speedup = a.isolated_speedup;
      c.e2e_delta_pct = a.e2e_delta_pct;
      c.win = in_what_works(info);
      c.clean = c.win && info.isolated_speedup && domain::is(info.gate, domain::Gate::accepted);
      c.verified_e2e = c.win && validation_won(info) && validation_includes(info);
      c.validation_lost = validation_lost(info);
      c.validation_speedup = a.validation_speedup;
      c.run_id = run->run_id;
      c.attempt_key = a.attempt_key;
      c.date = run->run_date.value_or("");
      c.stack = stack;
      c.rocm = rocm != nullptr ? rocm->release.value_or(rocm->raw) : "";
      out.push_back(std::move(c));
    }
  }
  return out;
}

namespace {

nlohmann::json parse_or_null(const std::string& text)
{
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text, nullptr, false);
}

std::vector<std::string> strings_of(const nlohmann::json& j)
{
  std::vector<std::string> out;
  if (j.is_array()) {
    for (const auto& e : j) {
      if (e.is_string()) {
        out.push_back(e.get<std::string>());
      }
    }
  }
  return out;
}

// "rocm 7.2.0-43, torch 2.9.0, triton 3.5.0" (keys sorted).
std::string stack_text(const nlohmann::json& j)
{
  std::vector<std::string> parts;
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      parts.push_back(k + " " + (v.is_string() ? v.get<std::string>() : v.dump()));
    }
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string lower_text(std::string s)
{
  for (auto& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

// What every candidate of a record shares: source, ledger, retirement, date, stack.
LookupCandidate kb_base(const store::KbRecord& r)
{
  LookupCandidate c;
  c.source = "kb";
  c.kb_record = r.record_key;
  c.kb_lane = r.lane;
  c.gfx = lower_text(r.gfx);
  c.backend = r.backend;
  c.dtype = r.precision;
  c.techniques = strings_of(parse_or_null(r.techniques));
  c.kb_reproductions = static_cast<int>(r.reproductions.value_or(1));
  c.validations = static_cast<int>(r.validations);
  c.failures = static_cast<int>(r.failures);
  c.not_reproduced = static_cast<int>(r.not_reproduced);
  c.inapplicable = static_cast<int>(r.inapplicable);
  c.kb_validated = r.validated.value_or(false);
  c.retired = r.retired;
  c.retired_why = r.retired_why;
  c.content_signature = r.content_signature;
  const auto extra = parse_or_null(r.extra);
  std::string date = r.verified_on.empty() ? r.last_at : r.verified_on;
  if (date.empty() && extra.is_object() && extra.contains("recorded_at") &&
      extra["recorded_at"].is_string()) {
    date = extra["recorded_at"].get<std::string>();
  }
  c.date = date.substr(0, 10);
  const auto stack = parse_or_null(r.verified_stack);
  c.stack = stack_text(stack);
  if (stack.is_object() && stack.contains("rocm") && stack["rocm"].is_string()) {
    c.rocm = stack["rocm"].get<std::string>();
  }
  c.lever = !r.direction.empty()    ? r.direction
            : !r.strategy.empty()   ? r.strategy
            : !c.techniques.empty() ? fmt::format("{}", fmt::join(c.techniques, ", "))
                                    : "kb record " + r.record_key;
  c.lever_kind = r.carrier == "tuned_artifact" ? "tuning" : !r.apply_env.empty() ? "config" : "authored";
  c.lever_key = "kb " + r.record_key;
  return c;
}

} // namespace

Result<std::vector<LookupCandidate>> kb_lookup_candidates(store::Database& db)
{
  auto records = store::list_kb_records(db);
  if (!records) {
    return fail(std::move(records).error());
  }
  std::vector<LookupCandidate> out;
  for (const auto& r : *records) {
    if (r.lane == "e2e") {
      const auto extra = parse_or_null(r.extra);
      if (!extra.is_object() || !extra.contains("accepted_kernels") ||
          !extra["accepted_kernels"].is_array()) {
        continue;
      }
      for (const auto& k : extra["accepted_kernels"]) {
        if (!k.is_object() || !k.contains("name") || !k["name"].is_string()) {
          continue;
        }
        LookupCandidate c = kb_base(r);
        c.kernel = domain::kb::canon_name(k["name"].get<std::string>());
        if (k.contains("language") && k["language"].is_string()) {
          c.backend = k["language"].get<std::string>();
        }
        c.model = r.model;
        const auto as_int = [](const std::optional<std::int64_t>& v) {
          return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
        };
        c.isl = as_int(r.isl);
        c.osl = as_int(r.osl);
        c.conc = as_int(r.conc);
        c.content_signature.clear(); // the session's signature is of its whole change, not this kernel's
        if (k.contains("isolated_speedup") && k["isolated_speedup"].is_number()) {
          c.isolated_speedup = k["isolated_speedup"].get<double>();
        }
        c.throughput_tok_s = r.throughput_tok_s;
        c.baseline_tok_s = r.baseline_tok_s;
        if (r.throughput_tok_s && r.baseline_tok_s && *r.baseline_tok_s > 0) {
          c.e2e_delta_pct = (*r.throughput_tok_s / *r.baseline_tok_s - 1.0) * 100.0;
        }
        c.apply_kind = "patch";
        c.apply = k.contains("patch") && k["patch"].is_string()
                      ? k["patch"].get<std::string>() + " (as the e2e record names it; not stored)"
                      : "(the e2e record names no patch)";
        // The entry's patch stored with the session (files/kernels/<name>.patch): applied by that
        // file, and signed, so it joins the lever of a run or kb record of the same change.
        if (const std::string patch =
                k.contains("patch") && k["patch"].is_string() ? k["patch"].get<std::string>() : std::string();
            !patch.empty() && extra.contains("kernel_patches") && extra["kernel_patches"].is_object() &&
            extra["kernel_patches"].contains(patch) && extra["kernel_patches"][patch].is_string()) {
          const std::string dir = r.store_path.substr(0, r.store_path.rfind('/') + 1);
          c.content_signature = extra["kernel_patches"][patch].get<std::string>();
          c.apply = dir + "files/" + patch;
          c.files = {c.apply};
        }
        c.win =
            (c.isolated_speedup && *c.isolated_speedup > 1.0) || (c.e2e_delta_pct && *c.e2e_delta_pct > 0);
        out.push_back(std::move(c));
      }
      continue;
    }
    LookupCandidate c = kb_base(r);
    c.kernel = domain::kb::canon_name(r.kernel_name);
    c.cases = strings_of(parse_or_null(r.case_names));
    if (r.speedup && *r.speedup > 0) {
      c.isolated_speedup = r.speedup;
    }
    const std::string dir = r.store_path.substr(0, r.store_path.rfind('/') + 1);
    const std::string files = r.lane == "experience" ? dir : dir + "files/";
    if (!r.apply_env.empty()) {
      c.apply_kind = "env";
      c.apply = r.apply_env;
    } else if (r.signature_origin.empty()) {
      // No stored signature and none computed: the record came with no patch.diff or artifact/.
      c.apply_kind = "other";
      c.apply = "no patch or tuned table stored with the record";
    } else if (r.carrier == "tuned_artifact") {
      c.apply_kind = "tuned_table";
      c.files.push_back(files + "artifact/");
      c.apply = c.files.front();
    } else {
      c.apply_kind = "patch";
      c.files.push_back(files + "patch.diff");
      c.apply = c.files.front();
    }
    c.win = c.isolated_speedup && *c.isolated_speedup > 1.0;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<LookupHead> lookup_heads(const std::vector<LookupHead>& heads, const std::string& kernel,
                                     const std::string& gfx)
{
  std::vector<LookupHead> exact;
  std::vector<LookupHead> folded;
  const std::string want = fold_kernel_name(kernel);
  for (const auto& h : heads) {
    if (h.gfx != gfx) {
      continue;
    }
    const bool is_exact = h.short_name == kernel;
    if (is_exact || fold_kernel_name(h.short_name) == want) {
      (is_exact ? exact : folded).push_back(h);
    }
  }
  auto& out = exact.empty() ? folded : exact;
  std::stable_sort(out.begin(), out.end(), [](const LookupHead& a, const LookupHead& b) {
    if (a.run_date != b.run_date) {
      return a.run_date > b.run_date;
    }
    if (a.run_id != b.run_id) {
      return a.run_id < b.run_id;
    }
    if (a.round != b.round) {
      return a.round < b.round;
    }
    return a.source_kind > b.source_kind; // measured before analytic
  });
  return std::move(out);
}

} // namespace rfdb::report
