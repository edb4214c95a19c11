// Listing (and reading) the next eval dirs of an ingest on background threads while the current run is
// stored.
//
// A re-ingest of unchanged runs spends most of its time in the kernel,
// listing directories; the rest (the stored stats, the report) waits on
// it. ListingPrefetcher lists the eval dirs of a command a few runs ahead,
// on two threads, so listing overlaps storing (and a second core lists too). A listing only reads
// directories and stats files (list_eval_dir opens no file): taking it a
// moment earlier is the same as an eval dir changing while it is ingested.
//
// A first ingest spends a third of its time reading, hashing and parsing
// files. While the runs ingested need reading (set_load), the threads also
// load each listed file (load_file: content and sha256) and parse it
// (parse_artifact) and compresses it (as store::TextCodec would) ahead,
// within a byte budget. Ingest still decides on its
// own thread, with the store, which files are unchanged and which content
// is new; it uses a parse made ahead only for new content, exactly as if it
// had parsed the file itself (same result, same warnings, same error).
#pragma once

#include "ingest/evaldir/derive.hpp"
#include "ingest/evaldir/files.hpp"
#include "store/text_codec.hpp"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rfdb::ingest {

// One file loaded ahead: the content ingest will use (a view of the
// FileData's content), parse_artifact's result and warnings for it, and its
// zstd frame (store::TextCodec::compress_ahead with the dictionary given to
// set_load). Ingest takes (resets) the parse and the frame when it uses them.
struct FileAhead {
  std::string_view text;
  std::optional<Result<ParsedArtifact>> artifact;
  std::vector<Warning> warnings;
  std::optional<store::FrameAhead> frame;
};

// An eval dir as a thread prefetched it: its listing and, when its files
// were loaded ahead, one entry per file (by index into listing->files; empty
// or nullopt where ingest loads the file itself).
struct PrefetchedDir {
  Result<EvalDirContents> listing;
  std::vector<std::optional<FileAhead>> files;
};

class ListingPrefetcher {
public:
  // Start listing `dirs` (paths as the caller will pass them to take(), in
  // that order) with `max_file_size` on `threads` threads, at most `ahead`
  // dirs past the last take(). A path that is not an eval dir
  // (looks_like_eval_dir) is not listed. When no thread can be started,
  // take() returns nullopt. Files are loaded ahead only after set_load(true),
  // and only while the dirs loaded and not yet taken hold at most
  // `load_budget` bytes.
  ListingPrefetcher(std::vector<std::string> dirs, std::uint64_t max_file_size, std::size_t ahead = 8,
                    std::size_t threads = 2, std::uint64_t load_budget = std::uint64_t{32} << 20U);
  ListingPrefetcher(const ListingPrefetcher&) = delete;
  ListingPrefetcher& operator=(const ListingPrefetcher&) = delete;
  // Stops the threads after the listings in progress and joins them.
  ~ListingPrefetcher();

  // The listing of `dir` (what list_eval_dir(dir, max_file_size) returned,
  // errors included), waiting for it if needed. Listings of the dirs before
  // it in the order are dropped. nullopt when `dir` is not among the dirs
  // still ahead or was not listed, or when max_file_size differs: the
  // caller lists it itself.
  std::optional<PrefetchedDir> take(const std::string& dir, std::uint64_t max_file_size);

  // Whether the dirs listed from now on also have their files loaded,
  // parsed and compressed (against `dict`, null: none) ahead: true while
  // the runs ingested need reading (a first ingest), false while they are
  // unchanged by their stat (a re-ingest reads nothing it does not need).
  void set_load(bool load, std::shared_ptr<const util::zstd::Dictionary> dict);

private:
  // The listing of one dir, once a thread has made it (nullopt: not an eval dir).
  struct Slot {
    bool ready = false;
    std::optional<PrefetchedDir> dir;
    std::uint64_t loaded_bytes = 0; // counted in m_loaded_bytes until taken or dropped
  };

  void run();
  // Drop the front slot (the lock held), giving back its loaded bytes.
  void pop_front_slot();

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
  bool m_load = false;
  std::shared_ptr<const util::zstd::Dictionary> m_dict; // for the frames made ahead
  std::uint64_t m_load_budget;
  std::uint64_t m_loaded_bytes = 0; // sizes of the files of the slots loaded ahead
  std::vector<std::thread> m_threads;
};

} // namespace rfdb::ingest
