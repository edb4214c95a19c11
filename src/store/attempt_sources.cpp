#include "store/attempt_sources.hpp"

#include "rfdb_sql.hpp"

namespace rfdb::store {

Result<std::vector<CitedSource>> attempt_cited_sources(Database& db, const std::string& run_id,
                                                       const std::string& attempt_key)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_attempt_cited_sources, "attempt_cited_sources"));
  s.bind(":run_id", run_id).bind(":attempt_key", attempt_key);
  std::vector<CitedSource> out;
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      return out;
    }
    out.push_back({s.get_text(0), s.get_text(1), s.get_text(2), s.get_text(3), s.get_int(4) != 0});
  }
}

} // namespace rfdb::store
