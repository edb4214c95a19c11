// Writing user-visible files without ever losing the old content or writing
// somewhere the user did not name: a new file is written next to its target
// and renamed over it, so a failure part-way (a full disk, a crash) leaves
// the old file whole; a symlink, FIFO, directory or device at the target is
// refused rather than followed, opened or blocked on.
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace rfdb::util {

// Ok when nothing is at `path` or it is a regular file. Errors (io, naming
// the path): a symlink (also a dangling one or one to a regular file), a
// FIFO, a socket, a device or a directory.
Result<void> check_plain_target(const std::filesystem::path& path);

// The content of the regular file at `path`, or nullopt when nothing is
// there. Never follows a symlink and never blocks on a FIFO. Errors (io):
// anything but a regular file at `path`, or a read failure.
Result<std::optional<std::string>> read_plain_file(const std::filesystem::path& path);

// Write `content` to a new temporary file in the directory of `path`, flush
// it to disk and rename it over `path`; the temporary is removed on any
// failure, so `path` holds either its old or its new content. The new file
// keeps the old one's permission bits (0644 when new). Errors (io, naming
// the path): check_plain_target's, or a failed create/write/sync/rename.
Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Fault injection for tests: after `bytes` more bytes, writes of
// write_file_atomically fail with ENOSPC; nullopt turns it off.
void set_write_fault_after(std::optional<std::size_t> bytes);

} // namespace rfdb::util
