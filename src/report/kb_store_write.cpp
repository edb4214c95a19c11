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

// The directory of canonical id `cid` under `root` (its segments split on ':').
fs::path identity_dir(const fs::path& root, const std::string& cid)
{
  fs::path dir = root;
  for (std::size_t start = 0;;) {
    const std::size_t colon = cid.find(':', start);
    dir /= cid.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (colon == std::string::npos) {
      return dir;
    }
    start = colon + 1;
  }
}

// Ok when `path` can be written: no link or non-directory from `root` down to its parent, and
// `path` itself absent or a plain file. Errors: io naming the path.
Result<void> check_target(const fs::path& root, const fs::path& path)
{
  RFDB_TRY(no_link_below(root, path.parent_path()));
  std::error_code ec;
  const auto type = fs::symlink_status(path, ec).type();
  if (type == fs::file_type::symlink) {
    return fail(io_error(path, "is a symbolic link").with_hint("a kb store is written without links"));
  }
  if (type != fs::file_type::not_found && type != fs::file_type::regular) {
    return fail(io_error(path, "is not a plain file"));
  }
  return {};
}

// An rfdb session found on disk that this export no longer writes.
struct StaleSession {
  std::string cid;
  fs::path identity;
  std::string session_id;
};

// The rfdb sessions under `root`/geak whose (canonical id, session id) `keep` does not hold:
// every `<identity>/sessions/<rfdb-…>` directory (links are not followed). Errors: io.
Result<std::vector<StaleSession>>
find_stale_sessions(const fs::path& root, const std::set<std::pair<std::string, std::string>>& keep)
{
  std::vector<StaleSession> out;
  std::error_code ec;
  const fs::path geak = root / "geak";
  if (fs::symlink_status(geak, ec).type() != fs::file_type::directory) {
    return out;
  }
  for (auto it = fs::recursive_directory_iterator(geak, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->symlink_status(ec).type() != fs::file_type::directory || it->path().filename() != "sessions") {
      continue;
    }
    it.disable_recursion_pending(); // a session's files/ may hold a "sessions" directory too
    const fs::path identity = it->path().parent_path();
    std::string cid;
    for (const auto& part : identity.lexically_relative(root)) {
      cid += (cid.empty() ? "" : ":") + part.string();
    }
    std::vector<std::string> ids;
    for (const auto& e : fs::directory_iterator(it->path(), ec)) {
      const std::string sid = e.path().filename().string();
      if (sid.starts_with(k_own_prefix) && e.symlink_status(ec).type() == fs::file_type::directory &&
          !keep.contains({cid, sid})) {
        ids.push_back(sid);
      }
    }
    std::sort(ids.begin(), ids.end());
    for (auto& sid : ids) {
      out.push_back(StaleSession{cid, identity, std::move(sid)});
    }
  }
  if (ec) {
    return fail(io_error(geak, "cannot list: " + ec.message()));
  }
  return out;
}

// The rung's promotion lane read from its canonical id: the kernel lane; the e2e lane's
// exact-workload rung (an `isl_` segment) ranks by throughput_tok_s, its other rungs by speedup.
kb::PromotionLane lane_of(const std::string& cid)
{
  if (cid.starts_with("geak:e2e:")) {
    return cid.find(":isl_") != std::string::npos ? kb::e2e_lane(0, 3) : kb::e2e_lane(1, 3);
  }
  return kb::kernel_lane(0);
}

// GEAK's re-point after a retraction (retract_session): the best session left in `identity`
// that is not retired (value.retained false or a retired_reason) and whose score under the
// rung's metric would promote over no incumbent; ties by ascending session id. nullopt: none.
std::optional<kb::Champion> best_remaining(const fs::path& identity, const kb::PromotionLane& lane)
{
  std::vector<fs::path> sessions;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(identity / "sessions", ec)) {
    if (e.symlink_status(ec).type() == fs::file_type::directory) {
      sessions.push_back(e.path());
    }
  }
  std::sort(sessions.begin(), sessions.end());
  std::optional<kb::Champion> best;
  for (const auto& dir : sessions) {
    auto text = util::read_plain_file(dir / "knowledge.json");
    if (!text || !*text) {
      continue;
    }
    const json k = json::parse(**text, nullptr, false);
    if (!k.is_object()) {
      continue;
    }
    const json value = k.contains("value") && k["value"].is_object() ? k["value"] : json::object();
    const bool retired = (value.contains("retained") && value["retained"] == false) ||
                         (value.contains("retired_reason") && value["retired_reason"].is_string() &&
                          !value["retired_reason"].get_ref<const std::string&>().empty());
    const auto score = kb_score(k, lane.metric);
    if (!retired && kb::should_promote(score, lane, std::nullopt) && (!best || *score > best->value)) {
      best = kb::Champion{std::string(lane.metric), dir.filename().string(), *score};
    }
  }
  return best;
}

// Remove the stale rfdb sessions (each identity under its lock), then re-point a champion.json
// that named one of them (best_remaining), or remove it when no session is left to name.
Result<void> remove_stale(const std::vector<StaleSession>& stale, KbExportSummary& summary)
{
  for (std::size_t i = 0; i < stale.size();) {
    const fs::path identity = stale[i].identity;
    const std::string cid = stale[i].cid;
    auto lock = IdentityLock::take(identity);
    if (!lock) {
      return fail(lock.error());
    }
    std::set<std::string> removed;
    for (; i < stale.size() && stale[i].identity == identity; ++i) {
      std::error_code ec;
      fs::remove_all(identity / "sessions" / stale[i].session_id, ec);
      if (ec) {
        return fail(io_error(identity / "sessions" / stale[i].session_id,
                             "cannot remove an rfdb session no longer exported: " + ec.message()));
      }
      removed.insert(stale[i].session_id);
      ++summary.sessions_removed;
    }
    auto incumbent = read_champion(identity / "champion.json");
    if (!incumbent) {
      return fail(incumbent.error());
    }
    if (!*incumbent || !removed.contains((*incumbent)->session_id)) {
      continue;
    }
    const auto best = best_remaining(identity, lane_of(cid));
    if (best) {
      const json doc{{"metric", best->metric}, {"session_id", best->session_id}, {"value", best->value}};
      RFDB_TRY(util::write_file_atomically(identity / "champion.json", kb_json_text(doc)));
      ++summary.champions_promoted;
    } else {
      std::error_code ec;
      fs::remove(identity / "champion.json", ec);
      if (ec) {
        return fail(io_error(identity / "champion.json", "cannot remove: " + ec.message()));
      }
      ++summary.champions_removed;
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
  // Every target checked before anything is written (a link, or a file where a directory
  // belongs, found after some sessions were written would leave a half-written store).
  std::set<std::pair<std::string, std::string>> keep;
  for (const auto& [cid, pages] : by_identity) {
    const fs::path dir = identity_dir(root, cid);
    RFDB_TRY(no_link_below(root, dir / "sessions"));
    RFDB_TRY(check_target(root, dir / ".lock"));
    RFDB_TRY(check_target(root, dir / "champion.json"));
    for (const Page& p : pages) {
      keep.emplace(cid, p.record->session_id);
      const fs::path session = dir / "sessions" / p.record->session_id;
      RFDB_TRY(check_target(root, session / "knowledge.json"));
      for (const auto& [rel, bytes] : p.record->files) {
        RFDB_TRY(check_target(root, session / "files" / rel));
      }
    }
  }
  auto stale = find_stale_sessions(root, keep);
  if (!stale) {
    return fail(stale.error());
  }
  for (const auto& old : *stale) {
    RFDB_TRY(no_link_below(root, old.identity / "sessions"));
    RFDB_TRY(check_target(root, old.identity / "champion.json"));
  }
  KbExportSummary summary;
  RFDB_TRY(remove_stale(*stale, summary));
  for (auto& [cid, pages] : by_identity) {
    std::stable_sort(pages.begin(), pages.end(), [](const Page& a, const Page& b) {
      return a.record->session_id < b.record->session_id;
    });
    const fs::path dir = identity_dir(root, cid);
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
