// `rfdb export --raw` (see store/file_export.hpp): check every target, stage,
// verify, then move into place.
#include "store/file_export.hpp"

#include "util/safe_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace rfdb::store {

namespace {

// Where `rel_path` of a stored file goes under `base`, or nullopt when it
// could leave `base` (absolute, empty, or with a ".." component).
std::optional<std::filesystem::path> target_under(const std::filesystem::path& base,
                                                  std::string_view rel_path)
{
  const std::filesystem::path rel = std::filesystem::path(rel_path).lexically_normal();
  if (rel.empty() || rel.is_absolute() || rel.has_root_path() || rel == ".") {
    return std::nullopt;
  }
  for (const auto& part : rel) {
    if (part == "..") {
      return std::nullopt;
    }
  }
  return base / rel;
}

// Ok when no directory between `out` (which may itself be a link the user
// chose) and `target` is a symbolic link: an export must not write through
// one to somewhere outside `out`. Errors: io, naming the link.
Result<void> no_link_below(const std::filesystem::path& out, const std::filesystem::path& target)
{
  std::filesystem::path dir = out;
  const auto rel = target.parent_path().lexically_relative(out);
  for (const auto& part : rel) {
    if (part == ".") {
      continue;
    }
    dir /= part;
    std::error_code ec;
    if (std::filesystem::symlink_status(dir, ec).type() == std::filesystem::file_type::symlink) {
      return fail(make_error(ErrorCode::io, dir.string() + " is a symbolic link")
                      .with_hint("export into a directory without links, or remove the link"));
    }
  }
  return {};
}

// The file under `out` a stored file is exported to: OUT/<run_id>/<rel_path>,
// knowledge files under OUT/knowledge/. Errors: invalid_input when the
// stored run id or path would write outside its directory.
Result<std::filesystem::path> export_target(const std::filesystem::path& out, const StoredFile& f)
{
  const std::string dir = f.run_id.value_or("knowledge");
  auto base = target_under(out, dir);
  std::optional<std::filesystem::path> target;
  if (base && base->parent_path() == out) { // the run id is one path component
    target = target_under(*base, f.rel_path);
  }
  if (!target) {
    return fail(ErrorCode::invalid_input,
                fmt::format("stored file {}/{} would be written outside {}", dir, f.rel_path, out.string()));
  }
  return *target;
}

// A fresh directory `parent`/.<stem>.rfdb-export.<pid>.<n>, or
// `parent`/.rfdb-export.<pid>.<n> when `stem` is empty (mode 0777 less the
// umask, as a directory export creates), where export --raw writes before
// anything is in place. Errors: io.
Result<std::filesystem::path> make_staging_dir(const std::filesystem::path& parent, const std::string& stem)
{
  for (int n = 0; n < 1000; ++n) {
    auto dir = parent / (stem.empty() ? fmt::format(".rfdb-export.{}.{}", ::getpid(), n)
                                      : fmt::format(".{}.rfdb-export.{}.{}", stem, ::getpid(), n));
    if (::mkdir(dir.c_str(), 0777) == 0) {
      return dir;
    }
    if (errno != EEXIST) {
      return fail(ErrorCode::io, fmt::format("cannot create {}: {}", dir.string(), std::strerror(errno)));
    }
  }
  return fail(ErrorCode::io, "cannot find a free temporary directory name in " + parent.string());
}

// Removes the staging directory (and what is in it) unless released, then
// the directories created for it (`created`, innermost first) while empty.
struct StagingGuard {
  std::filesystem::path dir;
  std::vector<std::filesystem::path> created;
  StagingGuard() = default;
  StagingGuard(const StagingGuard&) = delete;
  StagingGuard& operator=(const StagingGuard&) = delete;
  ~StagingGuard()
  {
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      for (const auto& d : created) {
        std::filesystem::remove(d, ec); // only an empty directory
      }
    }
  }
};

// The directories create_directories(`dir`) would create, innermost first.
std::vector<std::filesystem::path> missing_dirs(std::filesystem::path dir)
{
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  while (!dir.empty() &&
         std::filesystem::symlink_status(dir, ec).type() == std::filesystem::file_type::not_found) {
    out.push_back(dir);
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      break;
    }
    dir = dir.parent_path();
  }
  return out;
}

// The error of an export --raw stopped by Ctrl-C or SIGTERM (exit 130/143).
Error export_stopped(const std::filesystem::path& out)
{
  return make_error(ErrorCode::interrupted,
                    fmt::format("interrupted: nothing was written under {}", out.string()));
}

// "RUN/REL (what: detail)" for a stored file that fails verification.
std::string describe_damage(const StoredFile& f)
{
  return fmt::format("{}/{} ({}: {})", f.run_id.value_or("knowledge"), f.rel_path, f.problem->what,
                     f.problem->detail);
}

} // namespace

Result<FileExportSummary> export_stored_files(Database& db, const FileExportRequest& request)
{
  FileScope scope;
  scope.run_id = request.run_id;
  std::filesystem::path out(request.out);
  if (!out.has_filename() && out.has_parent_path()) { // "restored/" names "restored"
    out = out.parent_path();
  }
  // First every target, so an existing file refuses the export before any is written.
  scope.text = false;
  std::size_t files = 0;
  const auto check_target = [&](const StoredFile& f) -> Result<void> {
    std::filesystem::path target;
    RFDB_TRY_ASSIGN(target, export_target(out, f));
    RFDB_TRY(no_link_below(out, target));
    std::error_code ec;
    if (!request.force &&
        std::filesystem::symlink_status(target, ec).type() != std::filesystem::file_type::not_found) {
      return fail(make_error(ErrorCode::io, target.string() + " exists")
                      .with_hint("pass --force to overwrite, or export into an empty directory"));
    }
    ++files;
    return {};
  };
  RFDB_TRY(for_each_current_file(db, scope, check_target));
  // The staging directory: next to a missing --out (renamed to it at the
  // end), else inside --out (on its filesystem, so each file renames).
  std::error_code ec;
  const bool out_exists =
      std::filesystem::symlink_status(out, ec).type() != std::filesystem::file_type::not_found;
  if (out_exists && !std::filesystem::is_directory(out, ec)) {
    return fail(make_error(ErrorCode::io, out.string() + " exists and is not a directory")
                    .with_hint("--out names the directory to write into"));
  }
  std::filesystem::path parent = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  StagingGuard staging;
  if (!out_exists) {
    const auto created = missing_dirs(parent);
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      return fail(ErrorCode::io, fmt::format("cannot create {}: {}", parent.string(), ec.message()));
    }
    staging.created = created;
  }
  RFDB_TRY_ASSIGN(staging.dir,
                  out_exists ? make_staging_dir(out, "") : make_staging_dir(parent, out.filename().string()));
  scope.text = true;
  scope.verify = true;
  std::set<std::string> runs;
  std::uint64_t bytes = 0;
  std::vector<std::string> damaged;
  std::vector<std::filesystem::path> written; // relative to the staging directory
  const auto write = [&](const StoredFile& f) -> Result<void> {
    std::filesystem::path target;
    RFDB_TRY_ASSIGN(target, export_target(out, f));
    if (f.problem) {
      damaged.push_back(describe_damage(f));
      return {};
    }
    if (!damaged.empty()) {
      return {}; // nothing will be written: only verify the rest
    }
    if (request.interrupted && request.interrupted()) {
      return fail(export_stopped(out));
    }
    const auto rel = target.lexically_relative(out);
    const auto staged = staging.dir / rel;
    std::error_code mk;
    std::filesystem::create_directories(staged.parent_path(), mk);
    if (mk) {
      return fail(ErrorCode::io,
                  fmt::format("cannot create {}: {}", staged.parent_path().string(), mk.message()));
    }
    std::ofstream file(staged, std::ios::binary | std::ios::trunc);
    file.write(f.text.data(), static_cast<std::streamsize>(f.text.size()));
    file.close();
    if (!file) {
      return fail(ErrorCode::io, "cannot write " + staged.string());
    }
    written.push_back(rel);
    if (f.run_id) {
      runs.insert(*f.run_id);
    }
    bytes += f.text.size();
    return {};
  };
  RFDB_TRY(for_each_current_file(db, scope, write));
  if (request.interrupted && request.interrupted()) {
    return fail(export_stopped(out));
  }
  if (!damaged.empty()) {
    return fail(
        make_error(ErrorCode::invalid_input,
                   fmt::format("{} stored file{} fail{} verification, so nothing was written under {}: {}",
                               damaged.size(), damaged.size() == 1 ? "" : "s", damaged.size() == 1 ? "s" : "",
                               out.string(), fmt::join(damaged, "; ")))
            .with_hint("`rfdb check` lists every damaged stored file; `rfdb ingest --rehash EVAL_DIR` "
                       "stores a run's files again from its eval dir"));
  }
  if (!out_exists) {
    if (::rename(staging.dir.c_str(), out.c_str()) != 0) {
      return fail(ErrorCode::io, fmt::format("cannot rename {} to {}: {}", staging.dir.string(), out.string(),
                                             std::strerror(errno)));
    }
    staging.dir.clear();
  } else {
    // Every target checked before the first rename: a refusal writes nothing.
    for (const auto& rel : written) {
      const auto target = out / rel;
      RFDB_TRY(no_link_below(out, target));
      RFDB_TRY(util::check_plain_target(target));
    }
    for (const auto& rel : written) {
      const auto target = out / rel;
      RFDB_TRY(no_link_below(out, target));
      std::error_code mk;
      std::filesystem::create_directories(target.parent_path(), mk);
      if (mk) {
        return fail(ErrorCode::io,
                    fmt::format("cannot create {}: {}", target.parent_path().string(), mk.message()));
      }
      RFDB_TRY(util::check_plain_target(target));
      if (::rename((staging.dir / rel).c_str(), target.c_str()) != 0) {
        return fail(ErrorCode::io, fmt::format("cannot rename {} to {}: {}", (staging.dir / rel).string(),
                                               target.string(), std::strerror(errno)));
      }
    }
  }
  return FileExportSummary{runs.size(), files, bytes};
}

} // namespace rfdb::store
