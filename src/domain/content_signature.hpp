// GEAK's implementation signatures: `csha:` for a diff, `asha:` for a tuned-table carrier.
//
// Two writes of the same change from different workspaces (other paths, hunk offsets, spacing)
// sign the same, so a repeated write counts as a reproduction of the record it repeats (the
// rule of GEAK's kernel_workflow/scripts/experience_store.py, `content_signature` and
// `artifact_signature`). rfdb computes them the same way so that an eval-dir candidate and a kb
// record are matched across both memories.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rfdb::domain {

// The `csha:` content signature of a unified diff: "csha:" + the first 32 lower-case hex digits
// of the SHA-256 of its changed lines, or "" when the diff changes no line.
//
// Rule (GEAK's `content_signature`): lines are split as Python's str.splitlines() does; header lines
// (`+++`, `---`, `diff `, `index `, `@@`, `new file`, `deleted file`, `similarity `, `rename `,
// `old mode`, `new mode`, `Binary files`) are dropped; of the rest only lines starting with
// `+` or `-` are kept, their text after the sign with every whitespace run collapsed to one
// space and trimmed; a line left empty is skipped; each kept line is the sign + that text; the
// kept lines are joined with "\n" and hashed. Bytes that are not UTF-8 are hashed as they are.
// Never fails.
std::string content_signature(std::string_view diff);

// One file of a tuned-table carrier: its stored name (as under `artifact/`) and its bytes.
struct ArtifactFile {
  std::string stored_name;
  std::string bytes;
};

// The `asha:` artifact signature of a tuned-table carrier: the files sorted by stored name, then
// SHA-256 over, per file, the name's bytes, a NUL and the 32 raw bytes of the SHA-256 of its
// contents; "asha:" + the first 32 lower-case hex digits. "" for no file. (GEAK's
// `artifact_signature` sorts (stored_name, path) pairs, and returns "" when a file cannot be read: the caller
// reads the files and passes none when one is unreadable.) Never fails.
std::string artifact_signature(std::vector<ArtifactFile> files);

// The stored name GEAK gives a tuning-table file under `artifact/` (`_safe` of its file name):
// runs of characters outside [A-Za-z0-9._-] become "-", "-" and "." stripped from both ends,
// "x" when empty, cut to 80 characters. Never fails.
std::string geak_safe_name(std::string_view file_name);

} // namespace rfdb::domain
