// The implementation signature of an eval-dir candidate (issue 31): GEAK's `csha:` of its diff
// or `asha:` of its tuning table (domain/content_signature.hpp), so a candidate that writes the
// same change as another run, or as a GEAK kb record, is recognised as a reproduction of it.
#pragma once

#include "domain/content_signature.hpp"
#include "ingest/evaldir/artifacts.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest {

// One stored patch or tuned_table file of a run (files.hpp kinds): its source, path relative
// to the eval dir, label (the candidate dir cand_X, "final", or the table's config/ dir) and
// bytes.
struct ImplementationFile {
  std::int64_t source_id = 0;
  std::string rel_path;
  std::string label;
  std::string text;
  bool tuned_table = false; // a tuned_table file (else a patch)
};

// A candidate's signature and the stored files it was computed from (cited by the attempt).
struct CandidateSignature {
  std::string signature; // "csha:<32 hex>" or "asha:<32 hex>"
  std::vector<std::int64_t> source_ids;
};

// A path as a producer wrote it (absolute, `/wekafs/exp/geak/<eval_dir>/config/x.csv`, or
// relative, `./final/overlay/x.py`) relative to the eval dir named `dir_name`: what follows
// the last component equal to `dir_name`; a relative path as it is (leading "./" dropped); an
// absolute path that does not pass through the eval dir: nullopt.
std::optional<std::string> run_relative_path(std::string_view path, std::string_view dir_name);

// The sections of a unified diff that change `path` (a run-relative file path): each section
// runs from its `diff ` line (or its `--- ` line when the diff has no `diff ` lines) to the
// next; a section changes `path` when its target (`+++ b/<p>`, else `--- a/<p>`, else the `diff
// --git a/<p> b/<p>` names) equals `path`, `path` without a leading `final/`, or ends with
// "/" + `path`'s file name. "" when no section does.
std::string diff_sections_for(std::string_view diff, std::string_view path);

// The stored name GEAK gives a tuning-table file (domain/content_signature.hpp).
using domain::geak_safe_name;

// The signature of one candidate, or nullopt when the run stores none of its implementation.
// Order (first that yields a signature):
//   1. its patch_ref resolves to a stored patch file → csha of that file;
//   2. its patch_ref names another file (an overlay module): the sections of the stored diffs
//      (its own candidate dir's first, then final/final_patch.diff) that change it → csha of
//      those sections, joined in file order;
//   3. patch files stored inside its own candidate dir (label = its candidate) → csha of their
//      texts joined in path order;
//   4. its table_ref, else a path value of its apply_env (`VAR=/…/config/ck_tune/x.csv`),
//      resolves to a stored tuned_table file, or to a directory holding some → asha of those
//      files (stored names geak_safe_name of each file name).
// A csha of a diff that changes no line ("") counts as none and the next rule is tried.
// `dir_name` is the eval dir's basename (run_relative_path).
std::optional<CandidateSignature> candidate_signature(const AttemptRecord& candidate,
                                                      const std::vector<ImplementationFile>& files,
                                                      std::string_view dir_name);

} // namespace rfdb::ingest
