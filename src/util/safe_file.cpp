// Atomic, symlink- and FIFO-safe file writes (temp file + rename).
#include "util/safe_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rfdb::util {

namespace fs = std::filesystem;

namespace {

std::optional<std::size_t> g_fault_after; // test hook, see set_write_fault_after

Error io_error(const fs::path& path, const std::string& what, int err)
{
  return make_error(ErrorCode::io, what + ": " + std::strerror(err)).with_context(path.string());
}

const char* kind_of(mode_t mode)
{
  if (S_ISLNK(mode)) {
    return "a symbolic link";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return "not a regular file";
}

// write(2) honouring the fault hook.
ssize_t write_some(int fd, const char* data, std::size_t n)
{
  if (g_fault_after) {
    if (*g_fault_after == 0) {
      errno = ENOSPC;
      return -1;
    }
    n = std::min(n, *g_fault_after);
  }
  const ssize_t w = ::write(fd, data, n);
  if (w > 0 && g_fault_after) {
    *g_fault_after -= static_cast<std::size_t>(w);
  }
  return w;
}

Result<void> write_all(int fd, std::string_view content, const fs::path& path)
{
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t w = write_some(fd, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      return fail(io_error(path, "cannot write", w < 0 ? errno : EIO));
    }
    done += static_cast<std::size_t>(w);
  }
  return {};
}

} // namespace

Result<void> check_plain_target(const fs::path& path)
{
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      return {};
    }
    return fail(io_error(path, "cannot inspect", errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return fail(make_error(ErrorCode::io, std::string("refusing to write: it is ") + kind_of(st.st_mode))
                    .with_context(path.string())
                    .with_hint("remove or rename it; rfdb writes only regular files it can replace"));
  }
  return {};
}

Result<std::optional<std::string>> read_plain_file(const fs::path& path)
{
  RFDB_TRY(check_plain_target(path));
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return std::optional<std::string>();
    }
    return fail(io_error(path, "cannot open", errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    ::close(fd);
    return fail(
        S_ISREG(st.st_mode)
            ? io_error(path, "cannot inspect", err)
            : make_error(ErrorCode::io, "refusing to read: not a regular file").with_context(path.string()));
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) {
      continue;
    }
    if (r < 0) {
      const int err = errno;
      ::close(fd);
      return fail(io_error(path, "cannot read", err));
    }
    if (r == 0) {
      break;
    }
    out.append(buf, static_cast<std::size_t>(r));
  }
  ::close(fd);
  return std::optional<std::string>(std::move(out));
}

Result<void> write_file_atomically(const fs::path& path, std::string_view content)
{
  RFDB_TRY(check_plain_target(path));
  mode_t mode = 0644;
  if (struct stat st{}; ::lstat(path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + path.filename().string() + ".rfdb-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    return fail(io_error(path, "cannot create a temporary file beside it", errno));
  }
  const fs::path tmp = tmpl;
  // Errors name the target: the temporary is an implementation detail.
  auto written = write_all(fd, content, path);
  if (written && ::fchmod(fd, mode) != 0) {
    written = fail(io_error(path, "cannot set permissions", errno));
  }
  if (written && ::fsync(fd) != 0) {
    written = fail(io_error(path, "cannot sync", errno));
  }
  if (::close(fd) != 0 && written) {
    written = fail(io_error(path, "cannot close", errno));
  }
  if (written && ::rename(tmp.c_str(), path.c_str()) != 0) {
    written = fail(io_error(path, "cannot replace", errno));
  }
  if (!written) {
    ::unlink(tmp.c_str());
  }
  return written;
}

void set_write_fault_after(std::optional<std::size_t> bytes)
{
  g_fault_after = bytes;
}

} // namespace rfdb::util
