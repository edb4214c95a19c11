// `rfdb check`'s evidence check: re-read every stored source an attempt
// cites and list the attempts whose cited numbers disagree with their own.
#pragma once

#include "store/database.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace rfdb::ingest {

// One cited row that contradicts its attempt. Speedups × over baseline,
// e2e deltas percent.
struct Disagreement {
  std::string run_id;
  std::string attempt_key;
  std::string file;    // the source's path relative to its eval dir
  std::string pointer; // JSON pointer of the cited row ("" = the file)
  std::string field;   // isolated_speedup | e2e_delta_pct | row
  std::string attempt_value;
  std::string source_value;
};

// Compare every attempt with the rows its sources hold, under the same
// tolerances as the attempt model (isolated 0.1 % relative, e2e 0.01
// percentage points). A cited row that is no longer in the file is a
// disagreement of field "row". The citations of the stored file versions in
// `skip` (source_ids, sorted: those whose stored text failed verification,
// store::check_stored_files) are not read. Errors: SQLite errors; a stored
// source that no longer parses.
Result<std::vector<Disagreement>> check_evidence(store::Database& db,
                                                 const std::vector<std::int64_t>& skip = {});

} // namespace rfdb::ingest
