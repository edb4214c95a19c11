// The files behind one attempt, with the JSON pointer of each cited row:
// what `rfdb show RUN --attempt KEY` (the playbook's RUN#ATTEMPT
// references) lists.
#pragma once

#include "store/database.hpp"

#include <string>
#include <vector>

namespace rfdb::store {

struct CitedSource {
  std::string rel_path, kind, json_pointer, sha256;
  bool superseded = false; // a newer version of the file exists
};

// Sources of attempt `attempt_key` of run `run_id`, by path then pointer;
// empty when the attempt cites none (or does not exist). Errors: db.
Result<std::vector<CitedSource>> attempt_cited_sources(Database& db, const std::string& run_id,
                                                       const std::string& attempt_key);

} // namespace rfdb::store
