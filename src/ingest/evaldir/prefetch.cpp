// The background listing and loading of the next eval dirs of an ingest (see prefetch.hpp).
#include "ingest/evaldir/prefetch.hpp"

#include <algorithm>
#include <csignal>
#include <exception>
#include <filesystem>
#include <pthread.h>
#include <system_error>

namespace rfdb::ingest {

ListingPrefetcher::ListingPrefetcher(std::vector<std::string> dirs, std::uint64_t max_file_size,
                                     std::size_t ahead, std::size_t threads, std::uint64_t load_budget)
    : m_dirs(std::move(dirs)), m_max_file_size(max_file_size), m_ahead(std::max<std::size_t>(ahead, 1)),
      m_load_budget(load_budget)
{
  // The threads block every signal (they inherit the mask): SIGINT stays
  // with the main thread, whose handler asks the command to stop between runs.
  sigset_t all{};
  sigset_t old{};
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) {
    try {
      const std::lock_guard lock(m_mutex);
      m_threads.emplace_back([this] { run(); });
      ++m_running;
    } catch (const std::system_error&) {
      break; // fewer threads; with none, take() finds nothing and the caller lists
    }
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
  for (auto& t : m_threads) {
    t.join();
  }
}

namespace {

std::uint64_t listed_bytes(const EvalDirContents& contents)
{
  std::uint64_t sum = 0;
  for (const auto& f : contents.files) {
    sum += static_cast<std::uint64_t>(std::max<std::int64_t>(f.size, 0));
  }
  return sum;
}

// Load, parse and compress every file of `contents` as ingest would
// (load_file, parse_artifact, TextCodec::compress_ahead with `dict`). A file
// that cannot be read, or changed since it was listed, is left unloaded, for
// ingest to read and report itself.
std::vector<std::optional<FileAhead>> load_ahead(EvalDirContents& contents, std::uint64_t max_file_size,
                                                 const std::shared_ptr<const util::zstd::Dictionary>& dict)
{
  std::vector<std::optional<FileAhead>> out(contents.files.size());
  for (std::size_t i = 0; i < contents.files.size(); ++i) {
    FileData& f = contents.files[i];
    if (auto loaded = load_file(f, max_file_size); !loaded || *loaded) {
      // Unreadable, or no longer what the listing saw: ingest opens it
      // again and reports what it finds.
      f.content.clear();
      f.sha256.clear();
      continue;
    }
    try {
      FileAhead ahead;
      ahead.text = f.content;
      ahead.artifact = parse_artifact(f.kind, f.rel_path, f.content, ahead.warnings);
      ahead.frame = store::TextCodec::compress_ahead(f.content, dict);
      out[i] = std::move(ahead);
    } catch (const std::exception&) {
      // Out of memory (or a zstd failure): ingest parses and compresses
      // the file itself, and meets the failure there.
    }
  }
  return out;
}

} // namespace

void ListingPrefetcher::run()
{
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_changed.wait(lock, [&] { return m_stop || m_next >= m_dirs.size() || m_next < m_taken + m_ahead; });
    if (m_stop || m_next >= m_dirs.size()) {
      break;
    }
    const std::size_t i = std::max(m_next, m_taken); // dirs before m_taken are not needed
    m_next = i + 1;
    if (i >= m_dirs.size()) {
      break;
    }
    const bool load = m_load;
    const std::shared_ptr<const util::zstd::Dictionary> dict = m_dict;
    lock.unlock();
    std::optional<PrefetchedDir> listed;
    std::uint64_t loaded_bytes = 0;
    bool loaded = false;
    std::error_code ec;
    const std::filesystem::path dir(m_dirs[i]);
    if (std::filesystem::is_directory(dir, ec) && looks_like_eval_dir(dir)) {
      listed = PrefetchedDir{list_eval_dir(dir, m_max_file_size), {}};
      if (load && listed->listing) {
        const std::uint64_t bytes = listed_bytes(*listed->listing);
        lock.lock();
        if (m_loaded_bytes + bytes <= m_load_budget && i >= m_taken) {
          m_loaded_bytes += bytes;
          loaded_bytes = bytes;
          loaded = true;
        }
        lock.unlock();
        if (loaded) {
          listed->files = load_ahead(*listed->listing, m_max_file_size, dict);
        }
      }
    }
    lock.lock();
    if (i >= m_taken) {
      const std::size_t k = i - m_taken;
      if (m_slots.size() <= k) {
        m_slots.resize(k + 1);
      }
      m_slots[k] = Slot{true, std::move(listed), loaded_bytes};
      m_changed.notify_all();
    } else {
      m_loaded_bytes -= loaded_bytes; // dropped while it was loaded
    }
  }
  --m_running;
  m_changed.notify_all();
}

void ListingPrefetcher::pop_front_slot()
{
  m_loaded_bytes -= m_slots.front().loaded_bytes;
  m_slots.pop_front();
}

void ListingPrefetcher::set_load(bool load, std::shared_ptr<const util::zstd::Dictionary> dict)
{
  const std::lock_guard lock(m_mutex);
  m_load = load;
  m_dict = std::move(dict);
}

std::optional<PrefetchedDir> ListingPrefetcher::take(const std::string& dir, std::uint64_t max_file_size)
{
  if (max_file_size != m_max_file_size) {
    return std::nullopt;
  }
  std::unique_lock lock(m_mutex);
  const auto found = std::find(m_dirs.begin() + static_cast<std::ptrdiff_t>(m_taken), m_dirs.end(), dir);
  if (found == m_dirs.end()) {
    return std::nullopt;
  }
  const auto index = static_cast<std::size_t>(found - m_dirs.begin());
  // Drop the dirs before `index` (listed or not) and let the threads run
  // ahead of it.
  while (m_taken < index) {
    if (!m_slots.empty()) {
      pop_front_slot();
    }
    ++m_taken;
  }
  m_changed.notify_all();
  m_changed.wait(lock, [&] { return (!m_slots.empty() && m_slots.front().ready) || m_running == 0; });
  if (m_slots.empty() || !m_slots.front().ready) {
    return std::nullopt; // no thread left to list it
  }
  auto out = std::move(m_slots.front().dir);
  pop_front_slot();
  ++m_taken;
  m_changed.notify_all();
  return out;
}

} // namespace rfdb::ingest
