// GEAK kb plane import (issue 31, docs/kb.md): a GEAK local kb store root and a kb_artifacts
// tree, recognized by their layout, become kb records (store/kb_records.hpp).
//
// One transaction per path. Every file a record is read from (knowledge.json of each rung,
// meta.yaml / meta.json, the session's or experience's patch.diff and artifact/ files,
// champion.json) is stored as a knowledge file version in `sources` (sha256, compressed raw
// text), so `rfdb export --raw` writes them back. A record whose files are stored unchanged is
// left alone; a rewritten session or experience (same id, other content) supersedes its
// previous record. A malformed record is skipped with a warning naming its file and field;
// with Strict::yes any warning fails the path and writes nothing.
#pragma once

#include "ingest/ingest.hpp"

#include <filesystem>

namespace rfdb::ingest::kb {

enum class Layout { none, store, artifacts };

// What `dir` is: a GEAK kb store root (it holds geak/kernel/ or geak/e2e/), a kb_artifacts
// tree (it holds <gfx…>/<kernel_class>/<slug>/<exp_id>/meta.yaml or meta.json), or neither.
Layout detect_layout(const std::filesystem::path& dir);

// Ingest the kb store root or kb_artifacts tree `path` (`layout` from detect_layout). Never
// throws; a failure is in the report (error set).
PathReport ingest_kb(store::Database& db, const std::filesystem::path& path, Layout layout,
                     const IngestRequest& req);

} // namespace rfdb::ingest::kb
