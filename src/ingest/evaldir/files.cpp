// Finding, classifying and reading the artifacts of an eval dir (links, FIFOs and size limits refused).
#include "ingest/evaldir/files.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rfdb::ingest {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_path(std::string_view rel)
{
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= rel.size()) {
    const auto end = rel.find('/', start);
    parts.emplace_back(rel.substr(start, end == std::string_view::npos ? rel.size() - start : end - start));
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return parts;
}

bool starts_with(std::string_view s, std::string_view p)
{
  return s.substr(0, p.size()) == p;
}

std::optional<ArtifactKind> classify_bench(const std::vector<std::string>& p)
{
  const auto n = p.size();
  if (p[0] == "baseline" && n == 2) {
    return ArtifactKind{"bench_summary", "baseline", "baseline", ""};
  }
  if (p[0] == "validation" && n == 3) {
    const std::string role = p[1] == "base"    ? "validation_base"
                             : p[1] == "final" ? "validation_final"
                                               : "other";
    return ArtifactKind{"bench_summary", role, p[1], ""};
  }
  if (p[0] == "config" && n == 3) {
    return ArtifactKind{"bench_summary", "config", p[1], ""};
  }
  // overlay/cand_X/{ref,cand*}/ and final/overlay/cand_X/{ref,cand*}/
  const std::size_t o = p[0] == "final" ? 1 : 0;
  if (n == o + 4 && p[o] == "overlay" && starts_with(p[o + 1], "cand")) {
    const std::string role = p[o + 2] == "ref" ? "overlay_ref" : "overlay_cand";
    return ArtifactKind{"bench_summary", role, p[o + 1], ""};
  }
  if (p[0] == "final" && n == 3 && p[1] == "bench") {
    return ArtifactKind{"bench_summary", "final", "final", ""};
  }
  return std::nullopt;
}

// kernels/<TASK>/roofline/<phase>_roofline.json or
// kernels/_exp/…/<TASK>/roofline/<phase>/<phase>_roofline.json.
std::optional<ArtifactKind> classify_measured(const std::vector<std::string>& p)
{
  const std::string& file = p.back();
  std::string phase;
  if (file == "baseline_roofline.json") {
    phase = "baseline";
  } else if (file == "post_roofline.json") {
    phase = "post";
  } else {
    return std::nullopt;
  }
  for (std::size_t i = p.size(); i-- > 1;) {
    if (p[i] == "roofline" && p[0] == "kernels") {
      return ArtifactKind{"measured_roofline", "", p[i - 1], phase};
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<ArtifactKind> classify_artifact(std::string_view rel_path)
{
  const auto p = split_path(rel_path);
  const std::string& file = p.back();
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
    return std::nullopt;
  }
  if (file == "bench_summary.json") {
    return classify_bench(p);
  }
  if (p.size() == 3 && p[0] == "profile" && starts_with(p[1], "round_")) {
    const std::string round = p[1].substr(6);
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
  if (file == "integrate_result.json") {
    const std::size_t o = p[0] == "final" ? 1 : 0;
    if (p.size() == o + 3 && p[o] == "overlay") {
      return ArtifactKind{"integrate_result", "", p[o + 1], ""};
    }
    return std::nullopt;
  }
  if (p[0] == "kernels" && p.size() == 3 && starts_with(file, "opbench_result") && file.ends_with(".json")) {
    return ArtifactKind{"opbench_result", "", p[1], ""};
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
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::size_t{len} * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out += k_hex[md[i] >> 4];
    out += k_hex[md[i] & 0xF];
  }
  return out;
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

// read_file, naming the file `display` in errors.
Result<std::string> read_limited(const fs::path& path, const std::string& display, std::uint64_t max_bytes)
{
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) {
    return fail(ErrorCode::io, fmt::format("cannot open {}: {}", display, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    return fail(ErrorCode::io, fmt::format("cannot stat {}: {}", display, std::strerror(errno)));
  }
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
      const ssize_t p = ::read(f.fd, probe, sizeof probe);
      if (p < 0 && errno == EINTR) {
        continue;
      }
      if (p < 0) {
        return fail(ErrorCode::io, fmt::format("cannot read {}: {}", display, std::strerror(errno)));
      }
      if (p == 0) {
        break;
      }
      content.append(probe, static_cast<std::size_t>(p));
      done += static_cast<std::size_t>(p);
      if (done > max_bytes) {
        break;
      }
      content.resize(std::min<std::uint64_t>(max_bytes + 1, content.size() + 65536));
      continue;
    }
    const ssize_t n = ::read(f.fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return fail(ErrorCode::io, fmt::format("cannot read {}: {}", display, std::strerror(errno)));
    }
    if (n == 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (done > max_bytes) {
    return fail(ErrorCode::invalid_input, fmt::format("{} grew past the limit of {} while being read",
                                                      display, describe_size(max_bytes)));
  }
  content.resize(done);
  return content;
}

// Deeper than any real eval dir; keeps hostile link chains bounded.
constexpr int k_max_dir_depth = 64;

// `dir`/`name` as `dir / name` spells it, without building a path per entry.
std::string join(const std::string& dir, const std::string& name)
{
  if (dir.empty()) {
    return name;
  }
  return dir.back() == '/' ? dir + name : dir + '/' + name;
}

// A directory's identity: the same directory reached by two paths (a link
// back into a directory being walked) has the same device and inode.
struct DirId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const DirId&) const = default;
};

// One directory entry as readdir reports it.
struct Entry {
  std::string name;
  unsigned char type = DT_UNKNOWN;
};

// The recursive walk of read_eval_dir. Directories are read through their
// descriptors (openat, fstatat): no path is resolved from the root again per
// entry, and only artifacts, links and special files are stat'ed.
class EvalDirWalker {
public:
  explicit EvalDirWalker(std::uint64_t max_file_size) : m_max_file_size(max_file_size) {}

  Result<EvalDirContents> run(const fs::path& dir)
  {
    m_root = dir;
    const Fd fd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (fd.fd < 0) {
      return fail(ErrorCode::io, "cannot list " + dir.string() + ": " + std::strerror(errno));
    }
    RFDB_TRY(walk_fd(fd.fd, dir.string(), "", 0));
    const auto by_path = [](const auto& a, const auto& b) { return a.rel_path < b.rel_path; };
    std::sort(m_out.files.begin(), m_out.files.end(), by_path);
    std::sort(m_out.refused.begin(), m_out.refused.end(), by_path);
    return std::move(m_out);
  }

private:
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

  Result<bool> inside_root(const fs::path& canonical)
  {
    const fs::path* root = nullptr;
    RFDB_TRY_ASSIGN(root, root_canonical());
    const auto [r, t] = std::mismatch(root->begin(), root->end(), canonical.begin(), canonical.end());
    return r == root->end();
  }

  void refuse(std::string rel, std::string reason)
  {
    m_out.refused.push_back(RefusedEntry{std::move(rel), std::move(reason)});
  }

  // Walk the directory open as `fd` (owned by the caller), found at `dir`.
  Result<void> walk_fd(int fd, const std::string& dir, const std::string& prefix, int depth)
  {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      return fail(ErrorCode::io, "cannot list " + dir + ": " + std::strerror(errno));
    }
    const DirId id{st.st_dev, st.st_ino};
    if (std::find(m_ancestors.begin(), m_ancestors.end(), id) != m_ancestors.end()) {
      std::error_code ec;
      refuse(prefix.substr(0, prefix.size() - 1),
             fmt::format("symlink loop (→ {})", fs::canonical(dir, ec).string()));
      return {};
    }
    if (depth > k_max_dir_depth) {
      refuse(prefix.substr(0, prefix.size() - 1),
             fmt::format("directory nested deeper than {} levels", k_max_dir_depth));
      return {};
    }
    // getdents64 on the descriptor: no DIR stream (dup, fcntl, fstat) per directory.
    std::vector<Entry> entries;
    alignas(struct dirent64) std::array<char, 16384> buf{};
    for (;;) {
      const ssize_t n = ::getdents64(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0) {
        return fail(ErrorCode::io, "cannot list " + dir + ": " + std::strerror(errno));
      }
      if (n == 0) {
        break;
      }
      for (std::size_t off = 0; off < static_cast<std::size_t>(n);) {
        const auto* e = reinterpret_cast<const struct dirent64*>(buf.data() + off);
        off += e->d_reclen;
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
          entries.push_back(Entry{e->d_name, e->d_type});
        }
      }
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
    m_ancestors.push_back(id);
    for (const auto& e : entries) {
      auto r = visit(fd, dir, e, prefix + e.name, depth);
      if (!r) {
        return r;
      }
    }
    m_ancestors.pop_back();
    return {};
  }

  Result<void> visit(int dir_fd, const std::string& dir, const Entry& e, const std::string& rel, int depth)
  {
    if (e.type == DT_REG) {
      // Only an artifact's stat is needed: other files are never read.
      if (!classify_artifact(rel)) {
        return {};
      }
    } else if (e.type == DT_DIR) {
      return enter(dir_fd, dir, e.name, rel, depth);
    }
    struct stat st {};
    if (::fstatat(dir_fd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return fail(ErrorCode::io, fmt::format("cannot stat {}: {}", rel, std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) {
      return visit_link(dir_fd, dir, e.name, rel, depth);
    }
    if (S_ISDIR(st.st_mode)) {
      return enter(dir_fd, dir, e.name, rel, depth);
    }
    if (!S_ISREG(st.st_mode)) {
      refuse(rel, special_type(st));
      return {};
    }
    return list_artifact(join(dir, e.name), rel, st);
  }

  Result<void> visit_link(int dir_fd, const std::string& dir, const std::string& name, const std::string& rel,
                          int depth)
  {
    const fs::path path = join(dir, name);
    std::error_code ec;
    const fs::path target = fs::canonical(path, ec);
    if (ec) {
      refuse(rel, fmt::format("symlink that resolves nowhere ({})", ec.message()));
      return {};
    }
    bool inside = false;
    RFDB_TRY_ASSIGN(inside, inside_root(target));
    if (!inside) {
      refuse(rel, fmt::format("symlink leaving the eval dir (→ {})", target.string()));
      return {};
    }
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, 0) != 0) {
      refuse(rel, fmt::format("symlink that resolves nowhere ({})", std::strerror(errno)));
      return {};
    }
    if (S_ISDIR(st.st_mode)) {
      return enter(dir_fd, dir, name, rel, depth);
    }
    if (!S_ISREG(st.st_mode)) {
      refuse(rel, fmt::format("symlink to {} (→ {})", special_type(st), target.string()));
      return {};
    }
    if (!classify_artifact(rel)) {
      return {};
    }
    return list_artifact(path, rel, st);
  }

  // Walk the subdirectory `name` of the directory open as `dir_fd` (a link
  // to a directory is followed: the caller checked it stays inside).
  Result<void> enter(int dir_fd, const std::string& dir, const std::string& name, const std::string& rel,
                     int depth)
  {
    const Fd fd{::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (fd.fd < 0) {
      return fail(ErrorCode::io, fmt::format("cannot list {}: {}", join(dir, name), std::strerror(errno)));
    }
    return walk_fd(fd.fd, join(dir, name), rel + "/", depth + 1);
  }

  // Note an artifact with its stat; its content is read by load_file.
  Result<void> list_artifact(const fs::path& path, const std::string& rel, const struct stat& st)
  {
    auto kind = classify_artifact(rel);
    if (!kind) {
      return {}; // not an artifact: never read
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > m_max_file_size) {
      return fail(too_big(rel, size, m_max_file_size));
    }
    FileData f{rel,
               std::move(*kind),
               "",
               "",
               path,
               static_cast<std::int64_t>(st.st_size),
               static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                   static_cast<std::int64_t>(st.st_mtim.tv_nsec)};
    m_out.files.push_back(std::move(f));
    return {};
  }

  fs::path m_root;
  fs::path m_root_canonical; // empty until a link needs it
  std::uint64_t m_max_file_size;
  std::vector<DirId> m_ancestors; // directories being walked
  EvalDirContents m_out;
};

} // namespace

Result<std::string> read_file(const fs::path& path, std::uint64_t max_bytes)
{
  return read_limited(path, path.string(), max_bytes);
}

Result<EvalDirContents> list_eval_dir(const fs::path& dir, std::uint64_t max_file_size)
{
  return EvalDirWalker(max_file_size).run(dir);
}

Result<void> load_file(FileData& file, std::uint64_t max_file_size)
{
  RFDB_TRY_ASSIGN(file.content, read_limited(file.path, file.rel_path, max_file_size));
  file.sha256 = sha256_hex(file.content);
  return {};
}

Result<EvalDirContents> read_eval_dir(const fs::path& dir, std::uint64_t max_file_size)
{
  EvalDirContents out;
  RFDB_TRY_ASSIGN(out, list_eval_dir(dir, max_file_size));
  for (auto& f : out.files) {
    RFDB_TRY(load_file(f, max_file_size));
  }
  return out;
}

std::string directory_name(const fs::path& dir)
{
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
  for (const char* marker :
       {"env_report.json", "env_info.txt", "model_path.txt", "env_report.md", "baseline", "profile",
        "overlay", "kernels", "validation", "workflow_return.json", "director_e2e_validation.json"}) {
    // symlink_status: a marker that is a (possibly dangling) link still marks
    // the dir; the walk reports the link.
    if (fs::exists(fs::symlink_status(dir / marker, ec))) {
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
