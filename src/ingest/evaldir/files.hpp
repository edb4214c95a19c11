// Finding and reading the artifacts of an eval dir (docs/artifacts.md, "The files, in the order a run writes
// them").
//
// classify_artifact maps a path relative to the eval dir to the artifact
// kind rfdb reads (or nullopt: ignored). Everything else in an eval dir —
// traces, logs, reports — is not read. Diffs and tuning tables are stored
// as they are (kinds patch, tuned_table) and only signed (issue 31).
#pragma once

#include "util/result.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest {

// What a file is, where it sits in the run, and how to label its rows.
struct ArtifactKind {
  std::string kind;  // env_report | bench_summary | profile_topn | profile_roofline |
                     // measured_roofline | integrate_result | opbench_result |
                     // sweep_results | director_validation | workflow_return |
                     // env_info | roofline_install | patch | tuned_table | bench_runs
  std::string role;  // bench_summary, bench_runs: baseline | validation_base | validation_final |
                     // config | overlay_ref | overlay_cand | final | other
  std::string label; // bench: config dir / overlay candidate; profile: round; measured: task;
                     // patch: the candidate dir (cand_X) or "final"; tuned_table: its config/ dir
  std::string phase; // measured_roofline: baseline | post
};

// Classify `rel_path` ('/'-separated, relative to the eval dir).
std::optional<ArtifactKind> classify_artifact(std::string_view rel_path);

// A directory held open by its descriptor (closed with the last owner): the
// directory a walk listed, so that its files are opened beneath it later
// without resolving its path again.
class DirHandle {
public:
  explicit DirHandle(int fd) : m_fd(fd) {}
  DirHandle(const DirHandle&) = delete;
  DirHandle& operator=(const DirHandle&) = delete;
  ~DirHandle();
  [[nodiscard]] int fd() const { return m_fd; }

private:
  int m_fd;
};

// One file read into memory with its content hash. list_eval_dir fills
// only the path, kind, stat and where to open it; load_file adds the content
// and hash.
struct FileData {
  std::string rel_path;
  ArtifactKind kind;
  std::string content;
  std::string sha256;        // lower-case hex; empty until loaded
  std::string path;          // where it was found (under the link's own path), for messages
  std::int64_t size = 0;     // stat st_size when listed
  std::int64_t mtime_ns = 0; // stat st_mtim when listed, ns since the epoch
  // Where load_file opens it: `open_rel` ('/'-separated, every component a
  // real directory or file as the walk saw it, a link's target in place of
  // the link) beneath the directory `base` holds open, and the device and
  // inode the walk saw there. Null base: opened by `path` (a file built by
  // hand, not listed by a walk).
  std::shared_ptr<const DirHandle> base;
  std::string open_rel;
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
};

// Files larger than this are refused before they are read (--max-file-size):
// real artifacts are a few MiB at most, and ingest holds a run in memory.
inline constexpr std::uint64_t k_default_max_file_size = std::uint64_t{64} << 20U;

// The reason of a listed entry that is gone when it is stat'ed or opened
// (ENOENT, ENOTDIR). The walk and load_file report it only for a file the
// rules list; an unlisted entry (a temporary file, a directory) that
// vanishes is skipped silently.
inline constexpr std::string_view k_vanished_reason = "vanished between listing and reading";

// An entry of an eval dir that was not read, and why.
struct RefusedEntry {
  std::string rel_path;
  std::string reason; // "symlink leaving the eval dir (→ /x)", "FIFO", …
};

struct EvalDirContents {
  std::vector<FileData> files;       // sorted by rel_path
  std::vector<RefusedEntry> refused; // sorted by rel_path
};

// Every artifact of the eval dir `dir`. A symlink that resolves inside `dir`
// is followed, to a file or a directory (read under the link's own path; a
// link back into a directory being walked is a loop and is refused). A
// symlink that leaves `dir` or resolves nowhere, and every FIFO, socket or
// device, is refused — listed in `refused`, never opened.
// Errors: io when a directory cannot be listed or a file read; invalid_input
// when an artifact is larger than `max_file_size` bytes (checked before it
// is read).
Result<EvalDirContents> read_eval_dir(const std::filesystem::path& dir,
                                      std::uint64_t max_file_size = k_default_max_file_size);

// The artifacts of `dir` as read_eval_dir finds them, with their stat but
// without reading any content (sha256 and content empty). Errors: as
// read_eval_dir, except that no file is opened.
Result<EvalDirContents> list_eval_dir(const std::filesystem::path& dir,
                                      std::uint64_t max_file_size = k_default_max_file_size);

// How walk_dir lists a directory that is not an eval dir (a knowledge dir).
struct WalkRules {
  // The kind of the file at this relative path, or nullopt: not listed.
  std::optional<ArtifactKind> (*classify)(std::string_view rel_path) = nullptr;
  // The directory in refusals: "symlink leaving the <noun> (→ /x)".
  std::string noun = "eval dir";
  // Which symlinks are followed: those that stay inside the directory (eval
  // dirs; the rest are refused as leaving it), none (each refused), or any
  // (--follow-links: the files of a link leaving the directory are opened
  // beneath "/" through the target's resolved path, checked as any other).
  enum class Links { inside, none, any };
  Links links = Links::inside;
  // Appended to a refused link's reason ("; --follow-links reads it").
  std::string link_hint;
  // Refuse a listed file over max_file_size while listing (eval dirs: every
  // listed file is read); otherwise load_file refuses it when it is read.
  bool size_limit_when_listing = true;
  // Refuse a directory whose name classifies as a file kind (eval dirs).
  bool refuse_dirs_named_like_files = true;
};

// The files of `dir` as `rules` list them (list_eval_dir is walk_dir with
// classify_artifact and the defaults). Symlinks, special files and loops as
// read_eval_dir says, links followed as rules.links says. Errors: as
// list_eval_dir.
Result<EvalDirContents> walk_dir(const std::filesystem::path& dir, const WalkRules& rules,
                                 std::uint64_t max_file_size = k_default_max_file_size);

// The one entry `name` of the directory `dir`, as walk_dir would list it
// (a directory is not entered and gives no file). Errors: as walk_dir.
Result<EvalDirContents> walk_entry(const std::filesystem::path& dir, const std::string& name,
                                   const WalkRules& rules,
                                   std::uint64_t max_file_size = k_default_max_file_size);

// Read a listed file's content and hash it, race-free: the file is opened
// beneath the directory the walk held open (`base`), through `open_rel` with
// no link followed (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the
// kernel has it, else openat with O_NOFOLLOW one component at a time), and
// the opened descriptor must be the device and inode the walk listed; the
// content is read from that descriptor (size checked with fstat first).
// Returns nullopt when read, or why nothing was read when the file is no
// longer what the walk listed ("it became a symlink between listing and
// reading", "a directory on its path became a symlink …", "replaced by
// another file …", k_vanished_reason when it is gone): content and sha256
// stay empty. Errors: as read_file.
Result<std::optional<std::string>> load_file(FileData& file,
                                             std::uint64_t max_file_size = k_default_max_file_size);

// Read one regular file of at most `max_bytes`. The size is checked with
// fstat before anything is read, and the file is opened non-blocking, so a
// FIFO cannot hang the read. Errors: io (cannot open or read), invalid_input
// (not a regular file; larger than `max_bytes`, naming its size).
Result<std::string> read_file(const std::filesystem::path& path,
                              std::uint64_t max_bytes = k_default_max_file_size);

// Test hook: when set, called with a listed file's rel_path just before
// load_file opens it — between the walk that listed the file and the open —
// on whichever thread loads it (the prefetcher's or ingest's); nullptr turns
// it off. Lets a test swap a file for a link at exactly that moment.
using BeforeOpenHook = void (*)(const std::string& rel_path);
void set_before_open_hook(BeforeOpenHook hook);

// Test hook: when set, called with a directory's path relative to the walked
// root ("" for the root) just after the walk listed its entries and before
// it stats or enters any of them; nullptr turns it off. Lets a test remove
// an entry between listing and stat.
using AfterListHook = void (*)(const std::string& dir_rel);
void set_after_list_hook(AfterListHook hook);

// Test hook: false makes load_file open component by component (openat
// with O_NOFOLLOW), as on a kernel without openat2; true tries openat2 again.
void set_openat2_enabled(bool enabled);

// "67108864 bytes (64.0 MiB)": a byte count for messages.
std::string describe_size(std::uint64_t bytes);

// Lower-case hex SHA-256 of `data` (OpenSSL libcrypto).
std::string sha256_hex(std::string_view data);

// The name of a directory as the user means it: "runs/e2e_x/", "e2e_x/." and
// "." all name e2e_x (a trailing separator has an empty filename()).
std::string directory_name(const std::filesystem::path& dir);

// True when `dir` looks like an eval dir: its name is e2e_…_YYYYmmdd_HHMMSS…,
// or it holds a file or directory an eval dir has from its first milestone
// on (env_report.json, env_info.txt, model_path.txt, env_report.md,
// baseline/, profile/, overlay/, kernels/, validation/, workflow_return.json,
// director_e2e_validation.json). Anything else is read as knowledge.
bool looks_like_eval_dir(const std::filesystem::path& dir);

// For a single artifact given on the command line: its eval-dir-relative path,
// recovered from the known layout (".../profile/round_0/profile_topN.json" →
// "profile/round_0/profile_topN.json"), else the file name.
std::string relative_artifact_path(const std::filesystem::path& file);

} // namespace rfdb::ingest
