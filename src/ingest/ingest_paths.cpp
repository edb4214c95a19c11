// One ingest per path, in order, with the stops (see ingest/ingest_paths.hpp).
#include "ingest/ingest_paths.hpp"

#include <malloc.h>

namespace rfdb::ingest {

namespace {

// Keep freed memory in the process between runs. Ingest allocates and frees
// a run's files, parses and rows for every run; glibc's defaults give large
// blocks back to the kernel (mmap'd above 128 KiB, heap trimmed above
// 128 KiB free) and fault them in zeroed again for the next run, which cost
// ~9 % of ingest CPU (tools/bench). The heap stays bounded by the largest
// run, so peak RSS still does not grow with the number of runs.
void keep_freed_memory()
{
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
}

} // namespace

IngestSummary ingest_paths(store::Database& db, const std::vector<std::string>& paths, IngestRequest req,
                           const IngestObserver& observer)
{
  IngestSummary summary;
  summary.paths = paths.size();
  const auto stop_asked = [&req] { return req.stop && req.stop(); };
  keep_freed_memory();
  Ingester ingester(db); // statements prepared once for every run
  if (paths.size() > 1) {
    ingester.prefetch(paths, req.max_file_size); // list the next runs while storing this one
  }
  for (std::size_t i = 0; i < paths.size() && !summary.stopped && !summary.disk_full; ++i) {
    if (stop_asked()) {
      summary.stopped = true;
      break;
    }
    if (observer.starting) {
      observer.starting(i, paths.size(), paths[i]);
    }
    req.paths = {paths[i]};
    auto one = ingester.ingest(req, {});
    ++summary.tried;
    for (const auto& p : one.paths) {
      if (p.error) {
        summary.rolled_back = summary.rolled_back || p.error->code == ErrorCode::interrupted;
        summary.disk_full = summary.disk_full || p.error->code == ErrorCode::disk_full;
        summary.all_ok = false;
      } else {
        ++summary.committed;
      }
      if (observer.finished) {
        observer.finished(p);
      }
    }
    summary.stopped = summary.stopped || summary.rolled_back;
  }
  // A stop asked for during the last run, which then committed: still a stop.
  summary.stopped_after_last = !summary.stopped && !summary.disk_full && stop_asked();
  summary.stopped = summary.stopped || summary.stopped_after_last;
  return summary;
}

} // namespace rfdb::ingest
