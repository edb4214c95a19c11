// `rfdb ingest PATH...` as one call: every path its own transaction, in
// order, on one Ingester (statements prepared once, the next eval dirs
// listed ahead), each path's report handed to the caller as it commits or
// fails, and the stops: a stop asked between paths, a path rolled back at
// once, a full disk (every later path would fail the same way).
#pragma once

#include "ingest/ingest.hpp"
#include "store/database.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace rfdb::ingest {

// What ingest_paths tells its caller as it goes (either may be empty).
struct IngestObserver {
  // Before path `index` (0-based) of `total` is ingested.
  std::function<void(std::size_t index, std::size_t total, const std::string& path)> starting;
  // Each path's report, as it committed or failed.
  std::function<void(const PathReport& report)> finished;
};

// How ingest_paths ended.
struct IngestSummary {
  std::size_t paths = 0;  // given
  std::size_t tried = 0;  // ingested (committed or failed); the rest were not tried
  int committed = 0;      // paths that committed (or, on a dry run, would have)
  bool all_ok = true;     // no path failed
  bool disk_full = false; // a path failed on a full disk: the ingest stopped there
  // The user asked to stop (IngestRequest::stop): after a path, or at once
  // (rolled_back: the path in progress failed interrupted, nothing of it stored).
  bool stopped = false;
  bool rolled_back = false;
  bool stopped_after_last = false; // the stop came during the last path, which then completed
};

// Ingest each of `paths` (as expand_paths gives them) with `req` (its
// `paths` ignored): one Ingester::ingest call per path, in order. Before
// each path `req.stop` is polled (true: stop, the rest untouched), and
// once more after the last path. Stops after a path that failed on a full
// disk (ErrorCode::disk_full) or was rolled back at once
// (ErrorCode::interrupted, from `req.abort`). Also keeps freed memory in the
// process between paths (glibc's mallopt): ingest frees and allocates a
// run's files for every run. Never throws; each path's failure is in its
// report.
IngestSummary ingest_paths(store::Database& db, const std::vector<std::string>& paths, IngestRequest req,
                           const IngestObserver& observer);

} // namespace rfdb::ingest
