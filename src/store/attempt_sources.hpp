// The files behind attempts, with the JSON pointer of each cited row: what
// `rfdb show RUN --attempt KEY` (the playbook's RUN#ATTEMPT references)
// lists, and what `rfdb check` re-reads to verify each citation.
#pragma once

#include "store/database.hpp"

#include <cstdint>
#include <functional>
#include <optional>
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

// One citation of a stored attempt: the attempt's measured numbers (×,
// percent) and the cited file version and JSON pointer.
struct AttemptCitation {
  std::string run_id, attempt_key;
  std::optional<double> isolated_speedup, e2e_delta_pct;
  std::int64_t source_id = 0;
  std::string rel_path, kind, json_pointer;
  // The file's text: set on the first citation of each file version only
  // (citations come grouped by source_id), so each file is read once.
  std::optional<std::string> raw;
};

// Call `fn` on every citation of a file that holds attempt records
// (integrate_result, opbench_result, sweep_results, workflow_return), by
// source_id, then run and attempt key; the citations of the file versions
// in `skip` (source_ids, sorted) are left out, their text unread. Errors:
// db, or the first `fn` returns.
Result<void> for_each_attempt_citation(Database& db,
                                       const std::function<Result<void>(const AttemptCitation&)>& fn,
                                       const std::vector<std::int64_t>& skip = {});

} // namespace rfdb::store
