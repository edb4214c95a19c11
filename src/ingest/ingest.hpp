// `rfdb ingest`: store eval dirs, single artifacts and legacy knowledge.
//
// Each run (and each knowledge path) is one transaction: all of it lands or
// none. Every input file is parsed and validated before the transaction
// starts, so bad input never touches the database. A file whose content is
// already stored (same run, path and sha256) is skipped; a path with new
// content stores a new version that supersedes the old one, and the run's
// rows are re-derived from its files (see derive.hpp).
//
// A run that is a copy of a stored run is refused inside the transaction,
// after its rows are derived (the run-copy rule: ingest/run_copy.hpp).
#pragma once

#include "domain/tags.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/files.hpp"
#include "ingest/evaldir/prefetch.hpp"
#include "store/database.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::ingest {

enum class DryRun { no, yes };
enum class Strict { no, yes };
enum class AllowCopy { no, yes };
enum class Rehash { no, yes };
enum class FollowLinks { no, yes };

struct IngestRequest {
  std::vector<std::string> paths;    // eval dirs, artifact files, card dirs, playbooks
  std::optional<std::string> run_id; // --run: identity for single artifacts / override
  DryRun dry_run = DryRun::no;
  Strict strict = Strict::no;           // knowledge: any warning fails the path; runs: a refused
                                        // symlink, FIFO, socket or device fails the run
  AllowCopy allow_copy = AllowCopy::no; // store a copy of a stored run anyway (with a note)
  // --rehash: read and hash every file of a run even when its size and mtime
  // match the stored version (the fast path), so a same-size edit with a
  // kept mtime is seen and a damaged stored copy is stored again.
  Rehash rehash = Rehash::no;
  std::uint64_t max_file_size = k_default_max_file_size; // bytes; larger artifacts fail the run
  FollowLinks follow_links = FollowLinks::no;            // follow symlinks in a knowledge dir, and a named
                                                         // knowledge file's or single artifact's link
                                                         // leaving its directory
  std::string now;                                       // ISO-8601 UTC timestamp for ingested_at
  // --tag: set on every run ingested (store::write_run_tags), in the run's
  // own transaction when it writes; an unchanged run gets them in a
  // transaction of their own. Knowledge paths are not tagged (a warning).
  std::vector<domain::Tag> tags;
  // Polled while a path is ingested (before its transaction, as it writes
  // and just before its commit); true once the user asked to stop at once
  // (a second Ctrl-C): the path's transaction is rolled back and the path
  // fails with ErrorCode::interrupted, nothing of it stored. Empty = never.
  std::function<bool()> abort;
  // Polled by ingest_paths before each path and after the last
  // (ingest/ingest_paths.hpp); true once the user asked to stop after the
  // path in progress (a first Ctrl-C). Empty = never.
  std::function<bool()> stop;
};

// What happened to one path.
struct PathReport {
  std::string path;
  std::string target; // run_id, or "knowledge"
  std::string kind;   // run | knowledge
  // added | updated | unchanged | repaired (content unchanged; a stored copy
  // that failed verification was stored again, see warnings) | failed
  std::string status;
  std::vector<std::string> new_files;
  std::vector<std::string> superseded_files;
  int unchanged_files = 0;
  int kernels = 0, verdicts = 0, verdicts_superseded = 0, attempts = 0, findings = 0;
  int skipped_files = 0;         // knowledge files skipped (malformed or not cards)
  std::vector<Warning> warnings; // warnings of the files read this time
  // A run's --tag results, "key=value (added | replaced | unchanged)", in --tag order.
  std::vector<std::string> tagged;
  std::optional<Error> error;
};

struct IngestReport {
  std::vector<PathReport> paths;
  [[nodiscard]] bool ok() const;
};

// The paths as ingest walks them: a directory that is neither an eval dir
// nor knowledge but holds eval dirs (`rfdb ingest exp/`) stands for those
// eval dirs, in name order; every other path stays as given.
std::vector<std::string> expand_paths(const std::vector<std::string>& paths);

// Ingest every path of `req` (each atomically). `progress` receives one line
// per path as work starts (may be empty). Never throws; per-path failures
// are in the report (status failed, error set) and later paths still run.
IngestReport ingest(store::Database& db, const IngestRequest& req,
                    const std::function<void(const std::string&)>& progress);

// An ingest session on one database: the statements are prepared on the
// first call and reused by every later one, so a caller ingesting one path
// per call (rfdb ingest reports each run as it commits) does not prepare
// them again per run. `db` must outlive the session.
class Ingester {
public:
  explicit Ingester(store::Database& db);
  Ingester(const Ingester&) = delete;
  Ingester& operator=(const Ingester&) = delete;
  ~Ingester();

  // As the free ingest() above, on this session's statements.
  IngestReport ingest(const IngestRequest& req, const std::function<void(const std::string&)>& progress);

  // The paths the next ingest() calls will take, in order (one call each,
  // as expand_paths gives them): their eval dirs are listed a few ahead on a
  // background threads (ListingPrefetcher), with `max_file_size`, so listing
  // the next run overlaps storing this one. Calls for other paths, or in
  // another order, list as usual.
  void prefetch(std::vector<std::string> paths, std::uint64_t max_file_size);

  struct Prepared; // the reused statements (ingest.cpp)

private:
  store::Database* m_db;
  std::unique_ptr<Prepared> m_prepared;          // null until the first call prepares it
  std::unique_ptr<ListingPrefetcher> m_prefetch; // null unless prefetch() was called
};

} // namespace rfdb::ingest
