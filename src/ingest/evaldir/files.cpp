// Finding, classifying and reading the artifacts of an eval dir (links, FIFOs and size limits refused).
#include "ingest/evaldir/files.hpp"

#include "util/hex.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <span>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

namespace rfdb::ingest {

namespace fs = std::filesystem;

namespace {

// The '/'-separated components of a relative path, as views into it: no
// allocation for paths of up to k_inline components (every real artifact).
class PathParts {
public:
  explicit PathParts(std::string_view rel)
  {
    std::size_t start = 0;
    for (;;) {
      const auto end = rel.find('/', start);
      add(rel.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
      if (end == std::string_view::npos) {
        break;
      }
      start = end + 1;
    }
  }

  std::span<const std::string_view> parts() const
  {
    return m_more.empty() ? std::span<const std::string_view>(m_inline.data(), m_count)
                          : std::span<const std::string_view>(m_more);
  }

private:
  void add(std::string_view part)
  {
    if (m_count < k_inline) {
      m_inline[m_count++] = part;
      return;
    }
    if (m_more.empty()) {
      m_more.assign(m_inline.begin(), m_inline.end());
    }
    m_more.push_back(part);
  }

  static constexpr std::size_t k_inline = 16;
  std::array<std::string_view, k_inline> m_inline{};
  std::size_t m_count = 0;
  std::vector<std::string_view> m_more; // every part, once there are more than k_inline
};

using Parts = std::span<const std::string_view>;

std::optional<ArtifactKind> classify_bench(Parts p)
{
  const auto n = p.size();
  if (p[0] == "baseline" && n == 2) {
    return ArtifactKind{"bench_summary", "baseline", "baseline", ""};
  }
  if (p[0] == "validation" && n == 3) {
    const char* role = p[1] == "base" ? "validation_base" : p[1] == "final" ? "validation_final" : "other";
    return ArtifactKind{"bench_summary", role, std::string(p[1]), ""};
  }
  if (p[0] == "config" && n == 3) {
    return ArtifactKind{"bench_summary", "config", std::string(p[1]), ""};
  }
  // overlay/cand_X/{ref,cand*}/ and final/overlay/cand_X/{ref,cand*}/
  const std::size_t o = p[0] == "final" ? 1 : 0;
  if (n == o + 4 && p[o] == "overlay" && p[o + 1].starts_with("cand")) {
    const char* role = p[o + 2] == "ref" ? "overlay_ref" : "overlay_cand";
    return ArtifactKind{"bench_summary", role, std::string(p[o + 1]), ""};
  }
  if (p[0] == "final" && n == 3 && p[1] == "bench") {
    return ArtifactKind{"bench_summary", "final", "final", ""};
  }
  return std::nullopt;
}

// kernels/<TASK>/roofline/<phase>_roofline.json or
// kernels/_exp/…/<TASK>/roofline/<phase>/<phase>_roofline.json.
std::optional<ArtifactKind> classify_measured(Parts p)
{
  const std::string_view file = p.back();
  const char* phase = nullptr;
  if (file == "install.json" && p.size() == 4 && p[2] == "roofline") {
    return ArtifactKind{"roofline_install", "", std::string(p[1]), ""};
  }
  if (file == "baseline_roofline.json") {
    phase = "baseline";
  } else if (file == "post_roofline.json") {
    phase = "post";
  } else {
    return std::nullopt;
  }
  for (std::size_t i = p.size(); i-- > 1;) {
    if (p[i] == "roofline" && p[0] == "kernels") {
      return ArtifactKind{"measured_roofline", "", std::string(p[i - 1]), phase};
    }
  }
  return std::nullopt;
}

bool ends_with_ci(std::string_view s, std::string_view suffix)
{
  if (s.size() < suffix.size()) {
    return false;
  }
  const auto tail = s.substr(s.size() - suffix.size());
  return std::equal(tail.begin(), tail.end(), suffix.begin(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

// The files that carry a candidate's implementation (issue 31; its `csha:` / `asha:`
// signature, ingest/evaldir/signature.hpp): the run's final diff `final/final_patch.diff`, a
// `*.diff` / `*.patch` inside a candidate dir (`overlay/cand_X/…`, `final/overlay/cand_X/…`;
// label cand_X), and the tuning tables under `config/ck_tune/` and `config/moe_tuned*/`
// (`*.csv`, `*.json`; label the table dir).
std::optional<ArtifactKind> classify_implementation(Parts p)
{
  const std::string_view file = p.back();
  const bool is_diff = ends_with_ci(file, ".diff") || ends_with_ci(file, ".patch");
  if (p.size() == 2 && p[0] == "final" && file == "final_patch.diff") {
    return ArtifactKind{"patch", "", "final", ""};
  }
  const std::size_t o = p[0] == "final" ? 1 : 0;
  if (is_diff && p.size() >= o + 3 && p[o] == "overlay" && p[o + 1].starts_with("cand")) {
    return ArtifactKind{"patch", "", std::string(p[o + 1]), ""};
  }
  const bool table_file = ends_with_ci(file, ".csv") || ends_with_ci(file, ".json");
  if (table_file && p.size() >= 3 && p[0] == "config" &&
      (p[1] == "ck_tune" || p[1].starts_with("moe_tuned"))) {
    return ArtifactKind{"tuned_table", "", std::string(p[1]), ""};
  }
  return std::nullopt;
}

} // namespace

std::optional<ArtifactKind> classify_artifact(std::string_view rel_path)
{
  const PathParts parts(rel_path);
  const Parts p = parts.parts();
  const std::string_view file = p.back();
  if (p.size() == 1) {
    if (file == "env_report.json") {
      return ArtifactKind{"env_report", "", "", ""};
    }
    if (file == "director_e2e_validation.json") {
      return ArtifactKind{"director_validation", "", "", ""};
    }
    if (file == "workflow_return.json") {
      return ArtifactKind{"workflow_return", "", "", ""};
    }
    if (file == "env_info.txt") {
      return ArtifactKind{"env_info", "", "", ""};
    }
    return std::nullopt;
  }
  if (file == "bench_summary.json") {
    return classify_bench(p);
  }
  if (file == "bench_runs.jsonl") { // the rounds behind the bench_summary.json beside it
    auto k = classify_bench(p);
    if (k) {
      k->kind = "bench_runs";
    }
    return k;
  }
  if (p.size() == 3 && p[0] == "profile" && p[1].starts_with("round_")) {
    const std::string round(p[1].substr(6));
    if (file == "profile_topN.json") {
      return ArtifactKind{"profile_topn", "", round, ""};
    }
    if (file == "profile_roofline.json") {
      return ArtifactKind{"profile_roofline", "", round, ""};
    }
    return std::nullopt;
  }
  if (p.size() == 2 && p[0] == "config" && file == "sweep_results.json") {
    return ArtifactKind{"sweep_results", "", "", ""};
  }
  if (auto k = classify_implementation(p)) {
    return k;
  }
  if (file == "integrate_result.json") {
    const std::size_t o = p[0] == "final" ? 1 : 0;
    if (p.size() == o + 3 && p[o] == "overlay") {
      return ArtifactKind{"integrate_result", "", std::string(p[o + 1]), ""};
    }
    return std::nullopt;
  }
  if (p[0] == "kernels" && p.size() == 3 && file.starts_with("opbench_result") && file.ends_with(".json")) {
    return ArtifactKind{"opbench_result", "", std::string(p[1]), ""};
  }
  if (p[0] == "kernels") {
    return classify_measured(p);
  }
  return std::nullopt;
}

std::string sha256_hex(std::string_view data)
{
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md.data(), &len, EVP_sha256(), nullptr);
  return util::hex_encode(std::string_view(reinterpret_cast<const char*>(md.data()), len));
}

std::string describe_size(std::uint64_t bytes)
{
  if (bytes < 1024) {
    return fmt::format("{} bytes", bytes);
  }
  static constexpr std::array<const char*, 4> k_units = {"KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes) / 1024.0;
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < k_units.size()) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{} bytes ({:.1f} {})", bytes, value, k_units[unit]);
}

namespace {

// POSIX file type of `st` for messages; "" for a regular file or directory.
const char* special_type(const struct stat& st)
{
  if (S_ISFIFO(st.st_mode)) {
    return "a FIFO";
  }
  if (S_ISSOCK(st.st_mode)) {
    return "a socket";
  }
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    return "a device";
  }
  return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ? "" : "not a regular file";
}

// Closes a file descriptor on scope exit.
struct Fd {
  int fd = -1;
  explicit Fd(int descriptor) : fd(descriptor) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd()
  {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

// A file over --max-file-size, refused before it is read.
Error too_big(const std::string& display, std::uint64_t size, std::uint64_t max_bytes)
{
  return make_error(ErrorCode::invalid_input, fmt::format("{} is {}, over the limit of {}; not read", display,
                                                          describe_size(size), describe_size(max_bytes)))
      .with_hint("raise the limit with --max-file-size (e.g. 256M) if the file is genuine");
}

// One read(2) of at most `n` bytes into `buf`, retried on EINTR: the bytes
// read, 0 at end of file; an io error naming `display` on failure.
Result<std::size_t> read_some(int fd, char* buf, std::size_t n, const std::string& display)
{
  for (;;) {
    const ssize_t got = ::read(fd, buf, n);
    if (got >= 0) {
      return static_cast<std::size_t>(got);
    }
    if (errno != EINTR) {
      return fail(ErrorCode::io, fmt::format("cannot read {}: {}", display, std::strerror(errno)));
    }
  }
}

// The regular file open as `fd` (stat `st`), read whole within `max_bytes`,
// naming it `display` in errors.
Result<std::string> read_fd(int fd, const struct stat& st, const std::string& display,
                            std::uint64_t max_bytes)
{
  if (!S_ISREG(st.st_mode)) {
    const char* type = special_type(st);
    return fail(ErrorCode::invalid_input,
                fmt::format("{} is {}, not a regular file", display, *type != '\0' ? type : "a directory"));
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    return fail(too_big(display, size, max_bytes));
  }
  std::string content;
  content.resize(static_cast<std::size_t>(size));
  std::size_t done = 0;
  for (;;) {
    if (done == content.size()) {
      // The file may have grown since fstat: read on, within the limit. The
      // usual end-of-file probe reads into a small buffer first, so a file
      // that did not grow costs no 64 kB resize (zero-filled) per file.
      if (content.size() >= max_bytes + 1) {
        break;
      }
      char probe[512];
      std::size_t p = 0;
      RFDB_TRY_ASSIGN(p, read_some(fd, probe, sizeof probe, display));
      if (p == 0) {
        break;
      }
      content.append(probe, p);
      done += p;
      if (done > max_bytes) {
        break;
      }
      content.resize(std::min<std::uint64_t>(max_bytes + 1, content.size() + 65536));
      continue;
    }
    std::size_t n = 0;
    RFDB_TRY_ASSIGN(n, read_some(fd, content.data() + done, content.size() - done, display));
    if (n == 0) {
      break;
    }
    done += n;
  }
  if (done > max_bytes) {
    return fail(ErrorCode::invalid_input, fmt::format("{} grew past the limit of {} while being read",
                                                      display, describe_size(max_bytes)));
  }
  content.resize(done);
  return content;
}

// read_file, naming the file `display` in errors.
Result<std::string> read_limited(const char* path, const std::string& display, std::uint64_t max_bytes)
{
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const Fd f{::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) {
    return fail(ErrorCode::io, fmt::format("cannot open {}: {}", display, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    return fail(ErrorCode::io, fmt::format("cannot stat {}: {}", display, std::strerror(errno)));
  }
  return read_fd(f.fd, st, display, max_bytes);
}

// A file opened beneath a directory, or why not: `changed` says how the
// tree differs from what the walk saw (nothing is read then); `err` is the
// errno of any other failure.
struct OpenedBeneath {
  int fd = -1;
  std::string changed;
  int err = 0;
};

constexpr int k_open_file_flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW;

// Open `rel` beneath `base` one component at a time, following no link:
// each directory with O_DIRECTORY|O_NOFOLLOW, the file with O_NOFOLLOW
// (O_NONBLOCK: a FIFO swapped in cannot hang the open).
OpenedBeneath open_by_components(int base, std::string_view rel)
{
  const PathParts parts(rel);
  const Parts p = parts.parts();
  int dir = base;
  std::optional<Fd> held; // the directory being descended, once below `base`
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::string part(p[i]);
    if (part.empty() || part == "." || part == "..") {
      return OpenedBeneath{-1, "", EINVAL}; // never made by a walk
    }
    const bool last = i + 1 == p.size();
    int fd = -1;
    do {
      fd = ::openat(dir, part.c_str(),
                    last ? k_open_file_flags : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      if (errno == ELOOP) {
        return OpenedBeneath{-1,
                             last ? "it became a symlink between listing and reading"
                                  : "a directory on its path became a symlink between listing and reading",
                             0};
      }
      if (errno == ENOTDIR && !last) {
        // O_DIRECTORY|O_NOFOLLOW on a link gives ENOTDIR: tell which it is
        // (for the message only; nothing is opened).
        struct stat st {};
        const bool link = ::fstatat(dir, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
        return OpenedBeneath{-1,
                             link ? "a directory on its path became a symlink between listing and reading"
                                  : "a directory on its path is no longer a directory",
                             0};
      }
      return OpenedBeneath{-1, "", errno};
    }
    if (last) {
      return OpenedBeneath{fd, "", 0};
    }
    held.emplace(fd);
    dir = fd;
  }
  return OpenedBeneath{-1, "", EINVAL};
}

// Set once openat2 answered ENOSYS (or by set_openat2_enabled(false)).
std::atomic<bool> g_no_openat2{false};

// Open `rel` beneath `base` following no link: openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the kernel has it (ENOSYS once:
// never tried again), else component by component. A link on the way (or
// an escape) is told by the component walk, which opens the same file.
OpenedBeneath open_beneath(int base, const std::string& rel)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  if (!g_no_openat2.load(std::memory_order_relaxed)) {
    struct open_how how {};
    how.flags = static_cast<std::uint64_t>(k_open_file_flags);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd = -1;
    do {
      fd = ::syscall(SYS_openat2, base, rel.c_str(), &how, sizeof how);
    } while (fd < 0 && errno == EINTR);
    if (fd >= 0) {
      return OpenedBeneath{static_cast<int>(fd), "", 0};
    }
    if (errno == ENOSYS) {
      g_no_openat2.store(true, std::memory_order_relaxed);
    } else if (errno != ELOOP && errno != EXDEV && errno != ENOTDIR && errno != EAGAIN) {
      return OpenedBeneath{-1, "", errno};
    }
  }
#endif
  return open_by_components(base, rel);
}

std::atomic<AfterListHook> g_after_list{nullptr}; // test hook, see set_after_list_hook

// An entry gone (or its directory gone) since it was listed: ENOENT, or
// ENOTDIR when a directory on its path was replaced by a file.
bool vanished_errno(int err)
{
  return err == ENOENT || err == ENOTDIR;
}

// Deeper than any real eval dir; keeps hostile link chains bounded.
constexpr int k_max_dir_depth = 64;

// `dir`/`name` as `dir / name` spells it, without building a path per entry.
std::string join(std::string_view dir, std::string_view name)
{
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out.append(dir);
  if (!dir.empty() && dir.back() != '/') {
    out += '/';
  }
  out.append(name);
  return out;
}

// A directory's identity: the same directory reached by two paths (a link
// back into a directory being walked) has the same device and inode.
struct DirId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const DirId&) const = default;
};

// One directory entry as readdir reports it: its name is the NUL-terminated
// text at `offset` in its Level's `names`.
struct Entry {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  unsigned char type = DT_UNKNOWN;
};

// The entries of the directory being walked at one depth. Reused for every
// directory at that depth, so a walk allocates per level, not per entry.
struct Level {
  std::vector<char> names;
  std::vector<Entry> entries;

  const char* c_name(const Entry& e) const { return names.data() + e.offset; }
  std::string_view name(const Entry& e) const { return {names.data() + e.offset, e.size}; }
};

// Appends to a string for the life of a scope, then cuts it back: the walk
// keeps one relative path and one directory path, not a copy per entry.
class Extend {
public:
  Extend(std::string& s, std::string_view part) : m_s(s), m_size(s.size()) { s.append(part); }
  Extend(const Extend&) = delete;
  Extend& operator=(const Extend&) = delete;
  ~Extend() { m_s.resize(m_size); }

private:
  std::string& m_s;
  std::size_t m_size;
};

// The recursive walk of read_eval_dir. Directories are read through their
// descriptors (openat, fstatat): no path is resolved from the root again per
// entry, and only listed files, links and special files are stat'ed. Each
// listed file records where it is physically (beneath the root's descriptor,
// held open for load_file) and its device and inode.
class EvalDirWalker {
public:
  EvalDirWalker(const WalkRules& rules, std::uint64_t max_file_size)
      : m_rules(rules), m_max_file_size(max_file_size)
  {
  }

  Result<EvalDirContents> run(const fs::path& dir)
  {
    RFDB_TRY(open_root(dir));
    RFDB_TRY(walk_fd(m_root_handle->fd(), 0));
    return finish();
  }

  Result<EvalDirContents> run_one(const fs::path& dir, const std::string& name)
  {
    RFDB_TRY(open_root(dir));
    const Extend rel(m_rel, name);
    struct stat st {};
    if (::fstatat(m_root_handle->fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (vanished_errno(errno)) {
        RFDB_TRY(vanished());
        return finish();
      }
      return fail(ErrorCode::io, fmt::format("cannot stat {}: {}", join(m_dir, name), std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) {
      RFDB_TRY(visit_link(m_root_handle->fd(), name.c_str(), -1));
    } else if (S_ISREG(st.st_mode)) {
      RFDB_TRY(list_file(join(m_dir, name), classify(m_rel), st, name));
    } else if (!S_ISDIR(st.st_mode)) {
      refuse(m_rel, special_type(st));
    }
    return finish();
  }

private:
  Result<void> open_root(const fs::path& dir)
  {
    m_root = dir;
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      return fail(ErrorCode::io, "cannot list " + dir.string() + ": " + std::strerror(errno));
    }
    m_root_handle = std::make_shared<const DirHandle>(fd);
    m_base = m_root_handle;
    m_dir = dir.string();
    return {};
  }

  EvalDirContents finish()
  {
    const auto by_path = [](const auto& a, const auto& b) { return a.rel_path < b.rel_path; };
    std::sort(m_out.files.begin(), m_out.files.end(), by_path);
    std::sort(m_out.refused.begin(), m_out.refused.end(), by_path);
    return std::move(m_out);
  }

  std::optional<ArtifactKind> classify(std::string_view rel) const
  {
    return m_rules.classify != nullptr ? m_rules.classify(rel) : classify_artifact(rel);
  }

  // The root resolved, for links: computed at the first link.
  Result<const fs::path*> root_canonical()
  {
    if (m_root_canonical.empty()) {
      std::error_code ec;
      m_root_canonical = fs::canonical(m_root, ec);
      if (ec) {
        return fail(ErrorCode::io, "cannot resolve " + m_root.string() + ": " + ec.message());
      }
    }
    return &m_root_canonical;
  }

  // `canonical` relative to the root ("" for the root itself), or nullopt
  // when it lies outside.
  Result<std::optional<std::string>> beneath_root(const fs::path& canonical)
  {
    const fs::path* root = nullptr;
    RFDB_TRY_ASSIGN(root, root_canonical());
    const auto [r, t] = std::mismatch(root->begin(), root->end(), canonical.begin(), canonical.end());
    if (r != root->end()) {
      return std::optional<std::string>();
    }
    std::string rel;
    for (auto it = t; it != canonical.end(); ++it) {
      const std::string part = it->string();
      if (!part.empty()) {
        rel += (rel.empty() ? "" : "/") + part;
      }
    }
    return std::optional<std::string>(std::move(rel));
  }

  // "/" held open, for links followed outside the root (Links::any).
  Result<std::shared_ptr<const DirHandle>> filesystem_root()
  {
    if (!m_fs_root) {
      const int fd = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) {
        return fail(ErrorCode::io, fmt::format("cannot open /: {}", std::strerror(errno)));
      }
      m_fs_root = std::make_shared<const DirHandle>(fd);
    }
    return m_fs_root;
  }

  // The entry m_rel, listed, is gone: skipped, with a refusal when it is a
  // file the rules list (classify), none otherwise (a temporary file).
  Result<void> vanished()
  {
    if (classify(m_rel)) {
      refuse(m_rel, std::string(k_vanished_reason));
    }
    return {};
  }

  void refuse(std::string rel, std::string reason)
  {
    m_out.refused.push_back(RefusedEntry{std::move(rel), std::move(reason)});
  }

  // The relative path of the directory being walked ("" at the root; m_rel
  // holds it with a trailing '/').
  std::string dir_rel() const { return m_rel.empty() ? std::string() : m_rel.substr(0, m_rel.size() - 1); }

  // Where the entry `name` of the directory being walked is, beneath m_base.
  std::string phys(std::string_view name) const { return m_phys + std::string(name); }

  // Read the entries of the directory open as `fd` into `level`, sorted by name.
  Result<void> read_entries(int fd, Level& level)
  {
    level.names.clear();
    level.entries.clear();
    // getdents64 on the descriptor: no DIR stream (dup, fcntl, fstat) per directory.
    alignas(struct dirent64) std::array<char, 16384> buf; // NOLINT(cppcoreguidelines-pro-type-member-init)
    for (;;) {
      const ssize_t n = ::getdents64(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0 && vanished_errno(errno)) {
        break; // removed since it was opened: nothing in it is read
      }
      if (n < 0) {
        return fail(ErrorCode::io, "cannot list " + m_dir + ": " + std::strerror(errno));
      }
      if (n == 0) {
        break;
      }
      for (std::size_t off = 0; off < static_cast<std::size_t>(n);) {
        const auto* e = reinterpret_cast<const struct dirent64*>(buf.data() + off);
        off += e->d_reclen;
        const std::string_view name(e->d_name);
        if (name != "." && name != "..") {
          level.entries.push_back(Entry{static_cast<std::uint32_t>(level.names.size()),
                                        static_cast<std::uint32_t>(name.size()), e->d_type});
          level.names.insert(level.names.end(), name.begin(), name.end());
          level.names.push_back('\0');
        }
      }
    }
    std::sort(level.entries.begin(), level.entries.end(),
              [&](const Entry& a, const Entry& b) { return level.name(a) < level.name(b); });
    return {};
  }

  // Walk the directory open as `fd` (owned by the caller), found at m_dir,
  // whose entries are m_rel + their name.
  Result<void> walk_fd(int fd, int depth)
  {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      return fail(ErrorCode::io, "cannot list " + m_dir + ": " + std::strerror(errno));
    }
    const DirId id{st.st_dev, st.st_ino};
    if (std::find(m_ancestors.begin(), m_ancestors.end(), id) != m_ancestors.end()) {
      std::error_code ec;
      refuse(dir_rel(), fmt::format("symlink loop (→ {})", fs::canonical(m_dir, ec).string()));
      return {};
    }
    if (depth > k_max_dir_depth) {
      refuse(dir_rel(), fmt::format("directory nested deeper than {} levels", k_max_dir_depth));
      return {};
    }
    while (m_levels.size() <= static_cast<std::size_t>(depth)) {
      m_levels.emplace_back();
    }
    Level& level = m_levels[static_cast<std::size_t>(depth)]; // deque: stable while deeper levels are added
    RFDB_TRY(read_entries(fd, level));
    if (const AfterListHook hook = g_after_list.load(); hook != nullptr) {
      hook(dir_rel());
    }
    m_ancestors.push_back(id);
    for (const auto& e : level.entries) {
      const Extend rel(m_rel, level.name(e));
      RFDB_TRY(visit(fd, level.c_name(e), e.type, depth));
    }
    m_ancestors.pop_back();
    return {};
  }

  // Visit the entry `name` of the directory open as `dir_fd`; m_rel is its
  // relative path.
  Result<void> visit(int dir_fd, const char* name, unsigned char type, int depth)
  {
    std::optional<ArtifactKind> kind;
    if (type == DT_REG) {
      // Only a listed file's stat is needed: other files are never read.
      kind = classify(m_rel);
      if (!kind) {
        return {};
      }
    } else if (type == DT_DIR) {
      return enter(dir_fd, name, depth, phys(name) + "/", m_base);
    }
    struct stat st {};
    if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (vanished_errno(errno)) {
        return vanished();
      }
      return fail(ErrorCode::io, fmt::format("cannot stat {}: {}", m_rel, std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) {
      return visit_link(dir_fd, name, depth);
    }
    if (S_ISDIR(st.st_mode)) {
      return enter(dir_fd, name, depth, phys(name) + "/", m_base);
    }
    if (!S_ISREG(st.st_mode)) {
      refuse(m_rel, special_type(st));
      return {};
    }
    if (!kind) {
      kind = classify(m_rel);
    }
    return list_file(join(m_dir, name), std::move(kind), st, phys(name));
  }

  // A link: followed as m_rules.links says, to its target's real path
  // beneath the root (or "/" for a target outside).
  // depth -1: a lone entry (walk_entry), whose directory is not entered.
  Result<void> visit_link(int dir_fd, const char* name, int depth)
  {
    std::string path = join(m_dir, name);
    std::error_code ec;
    const fs::path target = fs::canonical(path, ec);
    if (ec) {
      refuse(m_rel, fmt::format("symlink that resolves nowhere ({})", ec.message()));
      return {};
    }
    if (m_rules.links == WalkRules::Links::none) {
      refuse(m_rel, fmt::format("symlink (→ {}){}", target.string(), m_rules.link_hint));
      return {};
    }
    std::optional<std::string> inside;
    RFDB_TRY_ASSIGN(inside, beneath_root(target));
    std::shared_ptr<const DirHandle> base = m_root_handle;
    std::string target_rel;
    if (inside) {
      target_rel = std::move(*inside);
    } else if (m_rules.links == WalkRules::Links::any) {
      RFDB_TRY_ASSIGN(base, filesystem_root());
      target_rel = target.relative_path().generic_string();
    } else {
      refuse(m_rel, fmt::format("symlink leaving the {} (→ {}){}", m_rules.noun, target.string(),
                                m_rules.link_hint));
      return {};
    }
    struct stat st {};
    if (::fstatat(dir_fd, name, &st, 0) != 0) {
      refuse(m_rel, fmt::format("symlink that resolves nowhere ({})", std::strerror(errno)));
      return {};
    }
    if (S_ISDIR(st.st_mode)) {
      if (depth < 0) {
        return {};
      }
      return enter(dir_fd, name, depth, target_rel.empty() ? std::string() : target_rel + "/",
                   std::move(base));
    }
    if (!S_ISREG(st.st_mode)) {
      refuse(m_rel, fmt::format("symlink to {} (→ {})", special_type(st), target.string()));
      return {};
    }
    const std::shared_ptr<const DirHandle> saved = std::exchange(m_base, std::move(base));
    auto listed = list_file(std::move(path), classify(m_rel), st, target_rel);
    m_base = saved;
    return listed;
  }

  // Walk the subdirectory `name` (m_rel) of the directory open as `dir_fd`
  // (a link to a directory is followed: the caller checked it may be),
  // which is `phys_dir` beneath `base`.
  Result<void> enter(int dir_fd, const char* name, int depth, std::string phys_dir,
                     std::shared_ptr<const DirHandle> base)
  {
    if (m_rules.refuse_dirs_named_like_files && classify(m_rel)) {
      // e.g. an integrate_result.json that is a directory: say so, or the
      // run would silently lack the artifact its name promises.
      refuse(m_rel, "a directory, not the artifact file its name says");
    }
    const Fd fd{::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (fd.fd < 0 && vanished_errno(errno)) {
      return {}; // a directory gone since it was listed: no file in it was listed
    }
    if (fd.fd < 0) {
      return fail(ErrorCode::io, fmt::format("cannot list {}: {}", join(m_dir, name), std::strerror(errno)));
    }
    const std::string_view sep = !m_dir.empty() && m_dir.back() != '/' ? "/" : "";
    const Extend dir(m_dir, sep);
    const Extend dir_name(m_dir, name);
    const Extend rel(m_rel, "/");
    std::string saved_phys = std::exchange(m_phys, std::move(phys_dir));
    std::shared_ptr<const DirHandle> saved_base = std::exchange(m_base, std::move(base));
    auto walked = walk_fd(fd.fd, depth + 1);
    m_phys = std::move(saved_phys);
    m_base = std::move(saved_base);
    return walked;
  }

  // Note a file (`kind`; nullopt: not listed, never read) found at `path`
  // (m_rel) with its stat, which is `phys` beneath m_base; its content is
  // read by load_file.
  Result<void> list_file(std::string path, std::optional<ArtifactKind> kind, const struct stat& st,
                         std::string phys)
  {
    if (!kind) {
      return {};
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (m_rules.size_limit_when_listing && size > m_max_file_size) {
      return fail(too_big(m_rel, size, m_max_file_size));
    }
    FileData f{m_rel,
               std::move(*kind),
               "",
               "",
               std::move(path),
               static_cast<std::int64_t>(st.st_size),
               static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                   static_cast<std::int64_t>(st.st_mtim.tv_nsec),
               m_base,
               std::move(phys),
               static_cast<std::uint64_t>(st.st_dev),
               static_cast<std::uint64_t>(st.st_ino)};
    m_out.files.push_back(std::move(f));
    return {};
  }

  const WalkRules& m_rules;
  fs::path m_root;
  fs::path m_root_canonical;                      // empty until a link needs it
  std::shared_ptr<const DirHandle> m_root_handle; // the root, open from the start of the walk
  std::shared_ptr<const DirHandle> m_fs_root;     // "/", once a link outside is followed
  std::shared_ptr<const DirHandle> m_base;        // what m_phys is relative to
  std::uint64_t m_max_file_size;
  std::string m_dir;              // the directory being walked, as the caller spelled its path
  std::string m_rel;              // the entry being visited, relative to the root
  std::string m_phys;             // the directory being walked, beneath m_base ("" or ending in '/')
  std::vector<DirId> m_ancestors; // directories being walked
  std::deque<Level> m_levels;     // by depth
  EvalDirContents m_out;
};

const WalkRules& eval_dir_rules()
{
  static const WalkRules rules;
  return rules;
}

std::atomic<BeforeOpenHook> g_before_open{nullptr}; // test hook, see set_before_open_hook

} // namespace

DirHandle::~DirHandle()
{
  if (m_fd >= 0) {
    ::close(m_fd);
  }
}

Result<std::string> read_file(const fs::path& path, std::uint64_t max_bytes)
{
  return read_limited(path.c_str(), path.string(), max_bytes);
}

Result<EvalDirContents> walk_dir(const fs::path& dir, const WalkRules& rules, std::uint64_t max_file_size)
{
  return EvalDirWalker(rules, max_file_size).run(dir);
}

Result<EvalDirContents> walk_entry(const fs::path& dir, const std::string& name, const WalkRules& rules,
                                   std::uint64_t max_file_size)
{
  return EvalDirWalker(rules, max_file_size).run_one(dir, name);
}

Result<EvalDirContents> list_eval_dir(const fs::path& dir, std::uint64_t max_file_size)
{
  return EvalDirWalker(eval_dir_rules(), max_file_size).run(dir);
}

void set_before_open_hook(BeforeOpenHook hook)
{
  g_before_open.store(hook);
}

void set_after_list_hook(AfterListHook hook)
{
  g_after_list.store(hook);
}

void set_openat2_enabled(bool enabled)
{
  g_no_openat2.store(!enabled);
}

Result<std::optional<std::string>> load_file(FileData& file, std::uint64_t max_file_size)
{
  if (const BeforeOpenHook hook = g_before_open.load(); hook != nullptr) {
    hook(file.rel_path);
  }
  if (!file.base) {
    RFDB_TRY_ASSIGN(file.content, read_limited(file.path.c_str(), file.rel_path, max_file_size));
    file.sha256 = sha256_hex(file.content);
    return std::optional<std::string>();
  }
  const OpenedBeneath opened = open_beneath(file.base->fd(), file.open_rel);
  if (!opened.changed.empty()) {
    return std::optional<std::string>(opened.changed);
  }
  if (opened.fd < 0 && vanished_errno(opened.err)) {
    return std::optional<std::string>(std::string(k_vanished_reason));
  }
  if (opened.fd < 0) {
    return fail(ErrorCode::io, fmt::format("cannot open {}: {}", file.rel_path, std::strerror(opened.err)));
  }
  const Fd f{opened.fd};
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    return fail(ErrorCode::io, fmt::format("cannot stat {}: {}", file.rel_path, std::strerror(errno)));
  }
  if (static_cast<std::uint64_t>(st.st_dev) != file.dev ||
      static_cast<std::uint64_t>(st.st_ino) != file.ino) {
    return std::optional<std::string>("replaced by another file between listing and reading");
  }
  RFDB_TRY_ASSIGN(file.content, read_fd(f.fd, st, file.rel_path, max_file_size));
  file.sha256 = sha256_hex(file.content);
  return std::optional<std::string>();
}

Result<EvalDirContents> read_eval_dir(const fs::path& dir, std::uint64_t max_file_size)
{
  EvalDirContents out;
  RFDB_TRY_ASSIGN(out, list_eval_dir(dir, max_file_size));
  std::vector<FileData> kept;
  kept.reserve(out.files.size());
  for (auto& f : out.files) {
    std::optional<std::string> changed;
    RFDB_TRY_ASSIGN(changed, load_file(f, max_file_size));
    if (changed) {
      out.refused.push_back(RefusedEntry{f.rel_path, std::move(*changed)});
    } else {
      kept.push_back(std::move(f));
    }
  }
  out.files = std::move(kept);
  std::sort(out.refused.begin(), out.refused.end(),
            [](const auto& a, const auto& b) { return a.rel_path < b.rel_path; });
  return out;
}

std::string directory_name(const fs::path& dir)
{
  // A last component that is a name (not ".", ".." or empty after a trailing
  // separator) is the directory's name however the rest is spelled.
  const std::string_view whole = dir.native();
  const auto slash = whole.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? whole : whole.substr(slash + 1);
  if (!last.empty() && last != "." && last != "..") {
    return std::string(last);
  }
  fs::path p = fs::absolute(dir).lexically_normal();
  if (p.filename().empty()) {
    p = p.parent_path();
  }
  return p.filename().string();
}

namespace {

// e2e_<model>_<YYYYmmdd>_<HHMMSS>…: the producer's eval-dir name.
bool has_eval_dir_name(const std::string& name)
{
  if (!name.starts_with("e2e_")) {
    return false;
  }
  const auto digits = [&](std::size_t at, std::size_t n) {
    return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(at),
                       name.begin() + static_cast<std::ptrdiff_t>(at + n),
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  // "_YYYYmmdd_HHMMSS" is 16 characters, after "e2e_" and at least one more.
  for (std::size_t i = 5; i + 16 <= name.size(); ++i) {
    if (name[i] == '_' && digits(i + 1, 8) && name[i + 9] == '_' && digits(i + 10, 6)) {
      return true;
    }
  }
  return false;
}

} // namespace

bool looks_like_eval_dir(const fs::path& dir)
{
  if (has_eval_dir_name(directory_name(dir))) {
    return true;
  }
  std::error_code ec;
  for (const char* marker : {"env_report.json", "env_info.txt", "model_path.txt", "env_report.md",
                             "workflow_return.json", "director_e2e_validation.json"}) {
    // symlink_status: a marker that is a (possibly dangling) link still marks
    // the dir; the walk reports the link.
    if (fs::exists(fs::symlink_status(dir / marker, ec))) {
      return true;
    }
  }
  // The stage directories mark it only as directories (or links): a plain
  // file named `profile` (/etc/profile) makes no eval dir.
  for (const char* marker : {"baseline", "profile", "overlay", "kernels", "validation"}) {
    const auto st = fs::symlink_status(dir / marker, ec);
    if (fs::is_directory(st) || fs::is_symlink(st)) {
      return true;
    }
  }
  return false;
}

std::string relative_artifact_path(const fs::path& file)
{
  std::vector<std::string> parts;
  for (const auto& part : fs::absolute(file).lexically_normal()) {
    parts.push_back(part.string());
  }
  // Try every suffix, longest first, and keep the first the layout knows.
  for (std::size_t start = 0; start < parts.size(); ++start) {
    std::string rel;
    for (std::size_t i = start; i < parts.size(); ++i) {
      rel += (rel.empty() ? "" : "/") + parts[i];
    }
    if (!rel.empty() && rel[0] != '/' && classify_artifact(rel)) {
      return rel;
    }
  }
  return file.filename().string();
}

} // namespace rfdb::ingest
