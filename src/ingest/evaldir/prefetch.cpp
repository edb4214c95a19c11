// The background listing of the next eval dirs of an ingest (see prefetch.hpp).
#include "ingest/evaldir/prefetch.hpp"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <pthread.h>
#include <system_error>

namespace rfdb::ingest {

ListingPrefetcher::ListingPrefetcher(std::vector<std::string> dirs, std::uint64_t max_file_size,
                                     std::size_t ahead)
    : m_dirs(std::move(dirs)), m_max_file_size(max_file_size), m_ahead(std::max<std::size_t>(ahead, 1))
{
  // The thread blocks every signal (it inherits the mask): SIGINT stays with
  // the main thread, whose handler asks the command to stop between runs.
  sigset_t all{};
  sigset_t old{};
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  try {
    m_thread = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    m_done = true; // no thread: take() finds nothing and the caller lists
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

ListingPrefetcher::~ListingPrefetcher()
{
  {
    const std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_changed.notify_all();
  if (m_thread.joinable()) {
    m_thread.join();
  }
}

void ListingPrefetcher::run()
{
  for (std::size_t i = 0; i < m_dirs.size(); ++i) {
    {
      std::unique_lock lock(m_mutex);
      m_changed.wait(lock, [&] { return m_stop || i < m_taken + m_ahead; });
      if (m_stop) {
        break;
      }
      if (i < m_taken) {
        continue; // taken past already: not needed
      }
    }
    std::optional<Result<EvalDirContents>> listing;
    std::error_code ec;
    const std::filesystem::path dir(m_dirs[i]);
    if (std::filesystem::is_directory(dir, ec) && looks_like_eval_dir(dir)) {
      listing = list_eval_dir(dir, m_max_file_size);
    }
    {
      const std::lock_guard lock(m_mutex);
      if (i >= m_taken) {
        // m_ready holds m_dirs[m_taken .. i - 1]: this one goes last.
        m_ready.push_back(std::move(listing));
      }
    }
    m_changed.notify_all();
  }
  {
    const std::lock_guard lock(m_mutex);
    m_done = true;
  }
  m_changed.notify_all();
}

std::optional<Result<EvalDirContents>> ListingPrefetcher::take(const std::string& dir,
                                                               std::uint64_t max_file_size)
{
  if (max_file_size != m_max_file_size) {
    return std::nullopt;
  }
  std::unique_lock lock(m_mutex);
  const auto begin = m_dirs.begin() + static_cast<std::ptrdiff_t>(m_taken);
  const auto found = std::find(begin, m_dirs.end(), dir);
  if (found == m_dirs.end()) {
    return std::nullopt;
  }
  const auto index = static_cast<std::size_t>(found - m_dirs.begin());
  // Drop the listings before `index` (listed or not) and let the thread run
  // ahead of it.
  while (m_taken < index) {
    if (!m_ready.empty()) {
      m_ready.pop_front();
    }
    ++m_taken;
  }
  m_changed.notify_all();
  m_changed.wait(lock, [&] { return !m_ready.empty() || m_done; });
  if (m_ready.empty()) {
    return std::nullopt; // the thread stopped before listing it
  }
  auto out = std::move(m_ready.front());
  m_ready.pop_front();
  ++m_taken;
  m_changed.notify_all();
  return out;
}

} // namespace rfdb::ingest
