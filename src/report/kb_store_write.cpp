// Writing a GEAK local kb store (report/kb_export.hpp, write_kb_store; GEAK-KB §2):
// identity directories, sessions, files/ and champion.json by the promotion rule.
#include "domain/kb_identity.hpp"
#include "report/kb_export.hpp"
#include "util/safe_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/file.h>
#include <unistd.h>

namespace rfdb::report {

namespace {

namespace fs = std::filesystem;
namespace kb = domain::kb;
using nlohmann::json;

constexpr std::string_view k_own_prefix = "rfdb-";

Error io_error(const fs::path& p, const std::string& what)
{
  return make_error(ErrorCode::io, fmt::format("{}: {}", p.string(), what));
}

// Ok when no directory from `root` (exclusive; the user chose it) down to `dir` (inclusive)
// is a symbolic link or something other than a directory: a write must not leave the store.
Result<void> no_link_below(const fs::path& root, const fs::path& dir)
{
  fs::path at = root;
  for (const auto& part : dir.lexically_relative(root)) {
    if (part == ".") {
      continue;
    }
    at /= part;
    std::error_code ec;
    const auto st = fs::symlink_status(at, ec);
    if (st.type() == fs::file_type::symlink) {
      return fail(io_error(at, "is a symbolic link").with_hint("a kb store is written without links"));
    }
    if (st.type() != fs::file_type::not_found && st.type() != fs::file_type::directory && !ec) {
      return fail(io_error(at, "is not a directory"));
    }
  }
  return {};
}

Result<void> make_dirs(const fs::path& root, const fs::path& dir)
{
  RFDB_TRY(no_link_below(root, dir));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return fail(io_error(dir, "cannot create the directory: " + ec.message()));
  }
  return no_link_below(root, dir); // nothing swapped in a link meanwhile
}

// Write `bytes` to `path` atomically unless it already holds exactly them. Returns whether it
// wrote. Errors: io (not a plain file, a link below root, a failed write).
Result<bool> write_if_changed(const fs::path& root, const fs::path& path, std::string_view bytes)
{
  RFDB_TRY(make_dirs(root, path.parent_path()));
  auto old = util::read_plain_file(path);
  if (!old) {
    return fail(old.error());
  }
  if (*old && **old == bytes) {
    return false;
  }
  RFDB_TRY(util::write_file_atomically(path, bytes));
  return true;
}

// The identity's `.lock`, flock'd exclusively as GEAK's LocalKBStore does (skipped when the
// file system refuses locks: EACCES, EPERM, EROFS, ENOSYS, ENOLCK).
class IdentityLock {
public:
  static Result<IdentityLock> take(const fs::path& dir)
  {
    const fs::path p = dir / ".lock";
    const int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      return fail(io_error(p, std::string("cannot open the lock file: ") + std::strerror(errno)));
    }
    IdentityLock lock(fd);
    if (::flock(fd, LOCK_EX) != 0 && errno != EACCES && errno != EPERM && errno != EROFS && errno != ENOSYS &&
        errno != ENOLCK && errno != EOPNOTSUPP) {
      return fail(io_error(p, std::string("cannot lock: ") + std::strerror(errno)));
    }
    return lock;
  }
  IdentityLock(IdentityLock&& o) noexcept : m_fd(std::exchange(o.m_fd, -1)) {}
  IdentityLock& operator=(IdentityLock&&) = delete;
  IdentityLock(const IdentityLock&) = delete;
  IdentityLock& operator=(const IdentityLock&) = delete;
  ~IdentityLock()
  {
    if (m_fd >= 0) {
      ::close(m_fd); // releases the flock
    }
  }

private:
  explicit IdentityLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

// champion.json as stored: nullopt when absent or not {"metric": str, "session_id": str,
// "value": number} (then any promotable score replaces it, as GEAK's maybe_promote does).
Result<std::optional<kb::Champion>> read_champion(const fs::path& path)
{
  auto text = util::read_plain_file(path);
  if (!text) {
    return fail(text.error());
  }
  if (!*text) {
    return std::optional<kb::Champion>();
  }
  const json j = json::parse(**text, nullptr, false);
  if (!j.is_object() || !j.contains("metric") || !j["metric"].is_string() || !j.contains("session_id") ||
      !j["session_id"].is_string() || !j.contains("value") || !j["value"].is_number()) {
    return std::optional<kb::Champion>();
  }
  return std::optional<kb::Champion>(kb::Champion{
      j["metric"].get<std::string>(), j["session_id"].get<std::string>(), j["value"].get<double>()});
}

// Remove the files under an rfdb session's files/ that `keep` does not list (GEAK replaces a
// whole session, dropping artifacts not re-supplied), then the directories left empty.
Result<bool> drop_stale_files(const fs::path& files_dir, const std::map<std::string, std::string>& keep)
{
  std::error_code ec;
  if (fs::symlink_status(files_dir, ec).type() != fs::file_type::directory) {
    return false;
  }
  std::vector<fs::path> stale;
  std::vector<fs::path> dirs;
  for (auto it = fs::recursive_directory_iterator(files_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto type = it->symlink_status(ec).type();
    if (type == fs::file_type::directory) {
      dirs.push_back(it->path());
    } else if (!keep.contains(it->path().lexically_relative(files_dir).generic_string())) {
      stale.push_back(it->path());
    }
  }
  if (ec) {
    return fail(io_error(files_dir, "cannot list: " + ec.message()));
  }
  for (const auto& p : stale) {
    if (!fs::remove(p, ec) || ec) {
      return fail(io_error(p, "cannot remove a file no longer exported"));
    }
  }
  std::sort(dirs.begin(), dirs.end(), std::greater<>()); // children before parents
  for (const auto& d : dirs) {
    if (fs::is_empty(d, ec) && !ec) {
      fs::remove(d, ec);
    }
  }
  return !stale.empty();
}

struct Page {
  int rung = 0;
  const KbRecord* record = nullptr;
};

// Refuse, before anything is written, what GEAK's store would refuse.
Result<void> check_records(const std::vector<KbRecord>& records)
{
  for (const auto& r : records) {
    if (!kb::is_valid_session_id(r.session_id) || !r.session_id.starts_with(k_own_prefix)) {
      return fail(ErrorCode::invalid_input,
                  fmt::format("{}: session id '{}' is not an rfdb session id", r.source, r.session_id));
    }
    if (!r.knowledge.is_object() || r.ladder.empty()) {
      return fail(ErrorCode::invalid_input, fmt::format("{}: no knowledge document or identity", r.source));
    }
    for (const auto& cid : r.ladder) {
      RFDB_TRY(kb::check_canonical_id(cid));
    }
    for (const auto& [rel, bytes] : r.files) {
      if (const auto why = kb_rel_path_problem(rel)) {
        return fail(ErrorCode::invalid_input,
                    fmt::format("{}: artifact path '{}' has {}", r.source, rel, *why));
      }
    }
  }
  return {};
}

} // namespace

Result<KbExportSummary> write_kb_store(const fs::path& root, const std::vector<KbRecord>& records)
{
  RFDB_TRY(check_records(records));
  std::error_code ec;
  const auto st = fs::status(root, ec);
  if (st.type() != fs::file_type::not_found && st.type() != fs::file_type::directory) {
    return fail(io_error(root, "is not a directory").with_hint("--kb names the kb store's root directory"));
  }
  fs::create_directories(root, ec);
  if (ec) {
    return fail(io_error(root, "cannot create the directory: " + ec.message()));
  }
  // Pages by identity (sorted canonical id), each identity's sessions in session-id order.
  std::map<std::string, std::vector<Page>> by_identity;
  for (const auto& r : records) {
    for (std::size_t i = 0; i < r.ladder.size(); ++i) {
      by_identity[r.ladder[i]].push_back(Page{static_cast<int>(i), &r});
    }
  }
  KbExportSummary summary;
  for (auto& [cid, pages] : by_identity) {
    std::stable_sort(pages.begin(), pages.end(), [](const Page& a, const Page& b) {
      return a.record->session_id < b.record->session_id;
    });
    fs::path dir = root;
    for (std::size_t start = 0;;) {
      const std::size_t colon = cid.find(':', start);
      dir /= cid.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (colon == std::string::npos) {
        break;
      }
      start = colon + 1;
    }
    RFDB_TRY(make_dirs(root, dir / "sessions"));
    auto lock = IdentityLock::take(dir);
    if (!lock) {
      return fail(lock.error());
    }
    ++summary.identities;
    for (const Page& p : pages) {
      const KbRecord& r = *p.record;
      const fs::path session = dir / "sessions" / r.session_id;
      bool changed = false;
      auto wrote = write_if_changed(root, session / "knowledge.json", kb_json_text(r.knowledge));
      if (!wrote) {
        return fail(wrote.error());
      }
      changed = changed || *wrote;
      for (const auto& [rel, bytes] : r.files) {
        auto f = write_if_changed(root, session / "files" / rel, bytes);
        if (!f) {
          return fail(f.error());
        }
        changed = changed || *f;
      }
      auto dropped = drop_stale_files(session / "files", r.files);
      if (!dropped) {
        return fail(dropped.error());
      }
      changed = changed || *dropped;
      ++(changed ? summary.sessions_written : summary.sessions_unchanged);
    }
    // champion.json: the promotion rule over this identity's rfdb sessions, in order.
    const kb::PromotionLane lane = pages.front().record->lane == "e2e"
                                       ? kb::e2e_lane(pages.front().rung, pages.front().record->ladder.size())
                                       : kb::kernel_lane(pages.front().rung);
    auto incumbent = read_champion(dir / "champion.json");
    if (!incumbent) {
      return fail(incumbent.error());
    }
    std::optional<kb::Champion> champion = *incumbent;
    for (const Page& p : pages) {
      const auto score = kb_score(p.record->knowledge, lane.metric);
      if (kb::should_promote(score, lane, champion)) {
        champion = kb::Champion{std::string(lane.metric), p.record->session_id, *score};
      }
    }
    const bool same = champion && *incumbent && champion->metric == (*incumbent)->metric &&
                      champion->session_id == (*incumbent)->session_id &&
                      champion->value == (*incumbent)->value;
    if (champion && !same) {
      const json doc{
          {"metric", champion->metric}, {"session_id", champion->session_id}, {"value", champion->value}};
      RFDB_TRY(util::write_file_atomically(dir / "champion.json", kb_json_text(doc)));
      ++summary.champions_promoted;
    } else if (*incumbent) {
      ++summary.champions_kept;
    }
  }
  return summary;
}

} // namespace rfdb::report
