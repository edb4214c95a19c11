// Listing the next eval dirs of an ingest in a background thread while the current run is stored.
//
// A re-ingest of unchanged runs spends most of its time in the kernel,
// listing directories; the rest (the stored stats, the report) waits on
// it. ListingPrefetcher lists the eval dirs of a command in order, a few
// runs ahead, on a second thread, so the two overlap. A listing only reads
// directories and stats files (list_eval_dir opens no file): taking it a
// moment earlier is the same as an eval dir changing while it is ingested.
#pragma once

#include "ingest/evaldir/files.hpp"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace rfdb::ingest {

class ListingPrefetcher {
public:
  // Start listing `dirs` (paths as the caller will pass them to take(), in
  // that order) with `max_file_size`, at most `ahead` listings ahead of the
  // last take(). A path that is not an eval dir (looks_like_eval_dir) is not
  // listed. No thread is started when none can be (take() then returns
  // nullopt).
  ListingPrefetcher(std::vector<std::string> dirs, std::uint64_t max_file_size, std::size_t ahead = 8);
  ListingPrefetcher(const ListingPrefetcher&) = delete;
  ListingPrefetcher& operator=(const ListingPrefetcher&) = delete;
  // Stops the thread after the listing in progress and joins it.
  ~ListingPrefetcher();

  // The listing of `dir` (what list_eval_dir(dir, max_file_size) returned,
  // errors included), waiting for it if needed. Listings of the dirs before
  // it in the order are dropped. nullopt when `dir` is not among the dirs
  // still ahead or was not listed, or when max_file_size differs: the
  // caller lists it itself.
  std::optional<Result<EvalDirContents>> take(const std::string& dir, std::uint64_t max_file_size);

private:
  void run();

  std::vector<std::string> m_dirs;
  std::uint64_t m_max_file_size;
  std::size_t m_ahead;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  // Listings of m_dirs[m_taken ...], in order; nullopt for a path that is
  // not an eval dir.
  std::deque<std::optional<Result<EvalDirContents>>> m_ready;
  std::size_t m_taken = 0; // index in m_dirs of m_ready.front()
  bool m_stop = false;
  bool m_done = false; // the thread listed every dir (or stopped)
  std::thread m_thread;
};

} // namespace rfdb::ingest
