// Importing legacy knowledge (issue 5): a learned-cards directory, a legacy
// backend_playbook.md, or an _inbox proposal. One transaction per path;
// files already stored with the same content are skipped; a changed file
// supersedes its previous version (its findings are kept, marked
// superseded); a file reverted to a content stored before makes that version
// current again (its findings re-derived). README and _archive.md are
// skipped with a note. A malformed card is skipped with a warning naming
// file and line; with Strict::yes any warning (not a note) fails the path
// and writes nothing.
#pragma once

#include "ingest/ingest.hpp"

#include <filesystem>

namespace rfdb::ingest::knowledge {

// True for a file ingest should read as knowledge (a .md file, or an
// _inbox proposal *.json / *.json.drained).
bool is_knowledge_file(const std::filesystem::path& file);

PathReport ingest_knowledge(store::Database& db, const std::filesystem::path& path, const IngestRequest& req);

} // namespace rfdb::ingest::knowledge
