// The learned cards' directory on disk (see report/card_files.hpp).
#include "report/card_files.hpp"

#include "util/safe_file.hpp"

#include <optional>
#include <string>
#include <system_error>

namespace rfdb::report {

namespace fs = std::filesystem;

namespace {

// The regular *.md files of `dir`; none when it does not exist.
Result<std::vector<CardFile>> read_card_dir(const fs::path& dir)
{
  std::vector<CardFile> existing;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir, ec))) {
    return existing;
  }
  if (!fs::is_directory(dir, ec)) {
    return fail(make_error(ErrorCode::io, "--cards names something that is not a directory")
                    .with_context(dir.string()));
  }
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".md" || entry.symlink_status(ec).type() != fs::file_type::regular) {
      continue;
    }
    std::optional<std::string> content;
    RFDB_TRY_ASSIGN(content, util::read_plain_file(entry.path()));
    if (content) {
      existing.push_back({entry.path().filename().string(), std::move(*content)});
    }
  }
  if (ec) {
    return fail(make_error(ErrorCode::io, "cannot list: " + ec.message()).with_context(dir.string()));
  }
  return existing;
}

} // namespace

Result<CardSyncPlan> plan_card_dir(const fs::path& dir, const std::vector<CardFile>& generated)
{
  std::vector<CardFile> existing;
  RFDB_TRY_ASSIGN(existing, read_card_dir(dir));
  auto plan = plan_card_sync(generated, existing);
  for (const auto& f : plan.writes) {
    RFDB_TRY(util::check_plain_target(dir / f.file_name));
  }
  return plan;
}

Result<void> write_card_dir(const fs::path& dir, const CardSyncPlan& plan)
{
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return fail(make_error(ErrorCode::io, "cannot create: " + ec.message()).with_context(dir.string()));
  }
  const CardFile* index = nullptr;
  for (const auto& f : plan.writes) {
    if (f.file_name == k_index_file) {
      index = &f;
      continue;
    }
    RFDB_TRY(util::write_file_atomically(dir / f.file_name, f.content));
  }
  if (index != nullptr) {
    RFDB_TRY(util::write_file_atomically(dir / index->file_name, index->content));
  }
  return {};
}

} // namespace rfdb::report
