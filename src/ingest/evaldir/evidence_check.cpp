// Re-reading stored sources to verify each attempt's citations.
#include "ingest/evaldir/evidence_check.hpp"

#include "rfdb_sql.hpp"

#include "ingest/evaldir/attempt_model.hpp"
#include "ingest/evaldir/derive.hpp"
#include "ingest/evaldir/files.hpp"

#include <fmt/core.h>

#include <optional>

namespace rfdb::ingest {

namespace {

std::string show(const std::optional<double>& v)
{
  return v ? fmt::format("{}", *v) : std::string("null");
}

} // namespace

Result<std::vector<Disagreement>> check_evidence(store::Database& db)
{
  store::Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_evidence_check_sources, "evidence_check_sources"));
  std::vector<Disagreement> out;
  std::int64_t cached_id = -1;
  std::vector<AttemptRecord> records;
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    const std::string run_id = s.get_text(0);
    const std::string key = s.get_text(1);
    const std::optional<double> iso = s.is_null(2) ? std::nullopt : std::optional(s.get_double(2));
    const std::optional<double> e2e = s.is_null(3) ? std::nullopt : std::optional(s.get_double(3));
    const std::int64_t source_id = s.get_int(4);
    const std::string rel_path = s.get_text(5);
    const std::string pointer = s.get_text(8);
    if (source_id != cached_id) {
      const auto kind = classify_artifact(rel_path).value_or(ArtifactKind{s.get_text(6), "", "", ""});
      auto parsed = attempt_records(kind, rel_path, s.get_text(7));
      if (!parsed) {
        return fail(std::move(parsed).error().with_context("run " + run_id));
      }
      records = std::move(*parsed);
      cached_id = source_id;
    }
    const AttemptRecord* cited = nullptr;
    for (const auto& r : records) {
      if (r.json_pointer == pointer) {
        cited = &r;
        break;
      }
    }
    const auto disagree = [&](std::string field, std::string mine, std::string theirs) {
      out.push_back(
          Disagreement{run_id, key, rel_path, pointer, std::move(field), std::move(mine), std::move(theirs)});
    };
    if (cited == nullptr) {
      disagree("row", "cited", "no attempt row at this pointer");
      continue;
    }
    // A number the cited row states must be the attempt's too (within the
    // attempt model's tolerance); one it leaves out says nothing.
    const auto compare = [&](const char* field, const std::optional<double>& mine,
                             const std::optional<double>& theirs, bool (*agrees)(double, double)) {
      if (theirs && (!mine || !agrees(*mine, *theirs))) {
        disagree(field, show(mine), show(theirs));
      }
    };
    compare("isolated_speedup", iso, cited->isolated_speedup, isolated_agrees);
    compare("e2e_delta_pct", e2e, cited->e2e_delta_pct, e2e_agrees);
  }
  return out;
}

} // namespace rfdb::ingest
