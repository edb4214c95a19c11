// The learned cards' directory on disk (`rfdb report --cards DIR`): what is
// there, what a sync would write (report/cards.hpp plans it, purely), and the
// writes. Only regular *.md files are read (a symlink or FIFO is never
// followed or opened); every target is checked before the first byte is
// written, so a refused target leaves the whole directory as it was.
#pragma once

#include "report/cards.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <vector>

namespace rfdb::report {

// Read the *.md files of `dir` (none when it does not exist), plan the sync
// of `generated` (plan_card_sync) and check every target the plan writes.
// Errors: io when `dir` is not a directory or cannot be listed, or when a
// target is not a plain file (util::check_plain_target).
Result<CardSyncPlan> plan_card_dir(const std::filesystem::path& dir, const std::vector<CardFile>& generated);

// Write `plan` into `dir` (created if missing): unchanged files are not
// touched, cards no longer backed by evidence are archived in place (never
// deleted), INDEX.md last; each file atomically. Errors: io.
Result<void> write_card_dir(const std::filesystem::path& dir, const CardSyncPlan& plan);

} // namespace rfdb::report
