// The stored runs as `rfdb lookup` evidence (see lookup_store.hpp).
#include "report/lookup_store.hpp"

#include "domain/noise.hpp"
#include "domain/normalize.hpp"
#include "domain/vocab.hpp"
#include "report/findings.hpp"
#include "store/attempt_sources.hpp"
#include "store/runs.hpp"
#include "store/stack.hpp"

#include <algorithm>

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

Result<std::vector<LookupCandidate>> run_lookup_candidates(store::Database& db)
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
    const domain::E2eBand band = domain::run_e2e_band(store::measured_spread_pct(run->bench));
    std::string stack;
    if (run->backend) {
      const auto* row = store::find_package(run->stack, "backend", run->backend);
      stack = *run->backend + " " + (row != nullptr ? row->raw : run->backend_version.value_or("?"));
    }
    const auto* rocm = store::find_package(run->stack, "rocm", run->backend);
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

} // namespace rfdb::report
