// Reading the files attempts cite (see attempt_sources.hpp).
#include "store/attempt_sources.hpp"

#include "rfdb_sql.hpp"

#include "store/sources.hpp"

#include <algorithm>

namespace rfdb::store {

Result<std::vector<CitedSource>> attempt_cited_sources(Database& db, const std::string& run_id,
                                                       const std::string& attempt_key)
{
  auto prepared = db.prepare(sql::k_attempt_cited_sources, "attempt_cited_sources");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run_id).bind(":attempt_key", attempt_key);
  std::vector<CitedSource> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    out.push_back({row.get_text("rel_path"), row.get_text("kind"), row.get_text("json_pointer"),
                   digest_hex(row.get_blob("sha256")), row.get_int("superseded") != 0});
  }));
  return out;
}

Result<void> for_each_attempt_citation(Database& db,
                                       const std::function<Result<void>(const AttemptCitation&)>& fn,
                                       const std::vector<std::int64_t>& skip)
{
  auto s = db.prepare(sql::k_evidence_check_sources, "evidence_check_sources");
  if (!s) {
    return fail(std::move(s).error());
  }
  std::int64_t previous = -1;
  TextCodec codec(db);
  return for_each_row(*s, [&](const Statement& row) -> Result<void> {
    AttemptCitation c;
    c.run_id = row.get_text("run_id");
    c.attempt_key = row.get_text("attempt_key");
    c.isolated_speedup = row.get_opt_double("isolated_speedup");
    c.e2e_delta_pct = row.get_opt_double("e2e_delta_pct");
    c.source_id = row.get_int("source_id");
    if (std::binary_search(skip.begin(), skip.end(), c.source_id)) {
      return {};
    }
    c.rel_path = row.get_text("rel_path");
    c.kind = row.get_text("kind");
    c.json_pointer = row.get_text("json_pointer");
    if (c.source_id != previous) {
      RFDB_TRY_ASSIGN(c.raw, stored_text(codec, row));
      previous = c.source_id;
    }
    return fn(c);
  });
}

} // namespace rfdb::store
