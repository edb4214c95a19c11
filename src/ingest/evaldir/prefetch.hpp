// Listing the next eval dirs of an ingest on background threads while the current run is stored.
//
// A re-ingest of unchanged runs spends most of its time in the kernel,
// listing directories; the rest (the stored stats, the report) waits on
// it. ListingPrefetcher lists the eval dirs of a command a few runs ahead,
// on two threads, so listing overlaps storing (and a second core lists too). A listing only reads
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
  // that order) with `max_file_size` on `threads` threads, at most `ahead`
  // dirs past the last take(). A path that is not an eval dir
  // (looks_like_eval_dir) is not listed. When no thread can be started,
  // take() returns nullopt.
  ListingPrefetcher(std::vector<std::string> dirs, std::uint64_t max_file_size, std::size_t ahead = 8,
                    std::size_t threads = 2);
  ListingPrefetcher(const ListingPrefetcher&) = delete;
  ListingPrefetcher& operator=(const ListingPrefetcher&) = delete;
  // Stops the threads after the listings in progress and joins them.
  ~ListingPrefetcher();

  // The listing of `dir` (what list_eval_dir(dir, max_file_size) returned,
  // errors included), waiting for it if needed. Listings of the dirs before
  // it in the order are dropped. nullopt when `dir` is not among the dirs
  // still ahead or was not listed, or when max_file_size differs: the
  // caller lists it itself.
  std::optional<Result<EvalDirContents>> take(const std::string& dir, std::uint64_t max_file_size);

private:
  // The listing of one dir, once a thread has made it (nullopt: not an eval dir).
  struct Slot {
    bool ready = false;
    std::optional<Result<EvalDirContents>> listing;
  };

  void run();

  std::vector<std::string> m_dirs;
  std::uint64_t m_max_file_size;
  std::size_t m_ahead;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<Slot> m_slots;  // m_dirs[m_taken + k] is m_slots[k]
  std::size_t m_taken = 0;   // dirs before it are taken or dropped
  std::size_t m_next = 0;    // the next dir a thread lists
  std::size_t m_running = 0; // threads not finished
  bool m_stop = false;
  std::vector<std::thread> m_threads;
};

} // namespace rfdb::ingest
