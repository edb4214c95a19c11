// `rfdb export --kb DIR`: rfdb's measured positive findings written as a GEAK local kb store
// (GEAK-KB §2; docs/kb-export.md), so GEAK's LocalKBStore (and `rfdb ingest` of a
// kb store) reads them back.
//
// What is exported: every attempt of a non-retracted run that is a What works finding
// (report::in_what_works, report/findings.hpp) — a measured win of a run, never imported
// knowledge. A kernel attempt becomes a kernel-lane session (ranking scalar `speedup` = its
// isolated speedup ×, 4 dp) on both rungs of its kernel ladder; a serving-config trial becomes an
// e2e-lane session (`schema: geak.e2e.v1`, `throughput_tok_s`, `speedup`) on every rung of its
// e2e ladder, when its run states a baseline throughput. `files/` holds the files that back the
// attempt, byte-identical from the stored sources (`evidence/<rel_path>`).
//
// Session ids are rfdb's own: domain::kb::session_id(rung 0, name, digest, producer "rfdb"), the
// digest a SHA-256 of "rfdb|<run_id>#<attempt_key>", so re-running writes the same tree and a
// session id starting "rfdb-" is the only kind this export writes, rewrites or removes files of.
#pragma once

#include "domain/kb_identity.hpp"
#include "store/attempt_sources.hpp"
#include "store/database.hpp"
#include "util/result.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rfdb::report {

inline constexpr const char* k_kb_producer = domain::kb::k_rfdb_producer;

// One session to write: the same knowledge document and files on every rung of `ladder`.
// (clang-tidy 14 reports nlohmann::json's member as throwing from the implicit special members;
// nothing here is declared noexcept.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct KbRecord {
  std::string lane;                         // "kernel" | "e2e"
  std::vector<std::string> ladder;          // canonical ids, most specific first (domain::kb ladders)
  std::string session_id;                   // rfdb's own ("rfdb-…")
  nlohmann::json knowledge;                 // the knowledge.json document (object)
  std::map<std::string, std::string> files; // path under files/ → bytes
  std::string source;                       // RUN#ATTEMPT, for messages
};

// The score of `knowledge` under `metric` (its top-level scalar): nullopt when absent or not a
// number (a bool or a string never ranks; GEAK-KB §2.4).
std::optional<double> kb_score(const nlohmann::json& knowledge, std::string_view metric);

// The knowledge.json bytes GEAK writes for `knowledge`: UTF-8, indent 2, keys sorted, no
// trailing newline (json.dump(indent=2, sort_keys=True, ensure_ascii=False)).
std::string kb_json_text(const nlohmann::json& j);

// GEAK's safe_rel_path (§2.2): nullopt when `rel` is a non-empty path with no NUL, no
// backslash, no leading '/', no ':' and no empty, "." or ".." component; else why not.
std::optional<std::string> kb_rel_path_problem(std::string_view rel);

// The stored diff a `csha:` attempt signature was computed from: what `export --kb` writes as a
// session's files/patch.diff and `rfdb lookup` names as the lever's `apply` (docs/kb-export.md,
// docs/lookup.md). `cited` are the attempt's stored sources (store::attempt_cited_sources; the
// current ones of kind patch, cited whole, are used, in path order), `texts` the run's current
// files by rel_path. Rule: those diffs joined (each ending in a newline when there are several)
// when they sign `signature`; else the first `diff ` section (a line starting "diff " up to the
// next) of one of them that signs it byte for byte — a shared final/final_patch.diff is signed
// by the section that changes the candidate's file, never whole. nullopt when neither signs, for
// an `asha:` or empty signature, or when no cited patch is stored.
struct SignedPatch {
  std::string text;               // the bytes that sign
  std::vector<std::string> files; // the stored files (rel_path) it comes from
  // A section of files.front() (empty = the files whole): the file it changes (its `+++ b/…`
  // path, else the b/ path of its `diff --git` line) and its lines there (1-based, inclusive).
  std::string section;
  std::size_t first_line = 0, last_line = 0;
};
std::optional<SignedPatch> signed_patch(std::string_view signature,
                                        const std::vector<store::CitedSource>& cited,
                                        const std::unordered_map<std::string, std::string>& texts);

// What write_kb_store did.
struct KbExportSummary {
  std::size_t identities = 0;         // identity directories holding an rfdb session
  std::size_t sessions_written = 0;   // session pages (identity × session) created or changed
  std::size_t sessions_unchanged = 0; // session pages already byte-identical
  std::size_t champions_promoted = 0; // champion.json files (re-)pointed
  std::size_t champions_kept = 0;     // identities whose incumbent stayed (a foreign or equal score)
  std::size_t sessions_removed = 0;   // stale rfdb session pages removed (no longer exported)
  std::size_t champions_removed = 0;  // champion.json removed: it named a removed session, none left
  std::vector<std::string> skipped;   // "RUN#ATTEMPT: why" of findings not exported
};

// Write `records` into the kb store at `root` (created if missing). Per identity directory:
// `.lock` (flock'd while it is written), `sessions/<sid>/knowledge.json` and
// `sessions/<sid>/files/<path>`, each rewritten atomically only when its bytes differ (files
// of an rfdb session no longer supplied are removed, as GEAK's session replace does); then
// `champion.json` by the promotion rule (domain::kb::should_promote) applied to the
// identity's rfdb sessions in session-id order against the incumbent on disk. A foreign
// session (an id not starting "rfdb-") is never written or removed; a foreign champion is
// replaced only by a strictly higher score under its metric. `records` are the whole export:
// an rfdb session on disk that they do not hold (per identity) is removed, and a champion.json
// naming it re-pointed to the best non-retired session left, or removed (docs/kb-export.md,
// "Stale sessions"). Every target is checked before anything is written. Errors:
// invalid_input for a canonical id, session id or file path the rules refuse; io for a root
// that is not a directory, a symbolic link below the root, a target that is not a plain file
// (all before anything is written), or a failed write.
Result<KbExportSummary> write_kb_store(const std::filesystem::path& root,
                                       const std::vector<KbRecord>& records);

// The records of every What works attempt in `db` (see above); findings that cannot be
// exported (no gfx, no baseline throughput for a config trial) are listed in `skipped`.
// Errors: the store's.
struct KbPlan {
  std::vector<KbRecord> records; // by session id
  std::vector<std::string> skipped;
};
Result<KbPlan> plan_kb_export(store::Database& db);

// plan_kb_export then write_kb_store (skipped carried into the summary).
Result<KbExportSummary> export_kb(store::Database& db, const std::filesystem::path& root);

} // namespace rfdb::report
