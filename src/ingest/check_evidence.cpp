// `rfdb check`'s evidence check: re-reading stored sources to verify each attempt's citations.
#include "ingest/check_evidence.hpp"

#include "ingest/evaldir/attempt_model.hpp"
#include "ingest/evaldir/derive.hpp"
#include "ingest/evaldir/files.hpp"
#include "store/attempt_sources.hpp"

#include <fmt/core.h>

#include <optional>

namespace rfdb::ingest {

namespace {

std::string show(const std::optional<double>& v)
{
  return v ? fmt::format("{}", *v) : std::string("null");
}

} // namespace

Result<std::vector<Disagreement>> check_evidence(store::Database& db, const std::vector<std::int64_t>& skip)
{
  std::vector<Disagreement> out;
  std::vector<AttemptRecord> records;
  const auto visit = [&](const store::AttemptCitation& c) -> Result<void> {
    const std::string& run_id = c.run_id;
    const std::string& rel_path = c.rel_path;
    const std::string& pointer = c.json_pointer;
    if (c.raw) { // the first citation of this file version
      const auto kind = classify_artifact(rel_path).value_or(ArtifactKind{c.kind, "", "", ""});
      auto parsed = attempt_records(kind, rel_path, *c.raw);
      if (!parsed) {
        return fail(std::move(parsed).error().with_context("run " + run_id));
      }
      records = std::move(*parsed);
    }
    const AttemptRecord* cited = nullptr;
    for (const auto& r : records) {
      if (r.json_pointer == pointer) {
        cited = &r;
        break;
      }
    }
    const auto disagree = [&](std::string field, std::string mine, std::string theirs) {
      out.push_back(Disagreement{run_id, c.attempt_key, rel_path, pointer, std::move(field), std::move(mine),
                                 std::move(theirs)});
    };
    if (cited == nullptr) {
      disagree("row", "cited", "no attempt row at this pointer");
      return {};
    }
    // A number the cited row states must be the attempt's too (within the
    // attempt model's tolerance); one it leaves out says nothing.
    const auto compare = [&](const char* field, const std::optional<double>& mine,
                             const std::optional<double>& theirs, bool (*agrees)(double, double)) {
      if (theirs && (!mine || !agrees(*mine, *theirs))) {
        disagree(field, show(mine), show(theirs));
      }
    };
    compare("isolated_speedup", c.isolated_speedup, cited->isolated_speedup, isolated_agrees);
    compare("e2e_delta_pct", c.e2e_delta_pct, cited->e2e_delta_pct, e2e_agrees);
    return {};
  };
  RFDB_TRY(store::for_each_attempt_citation(db, visit, skip));
  return out;
}

} // namespace rfdb::ingest
