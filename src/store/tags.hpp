// Run tags (issue 33; run_tags and tag_log, migration 0019): the current tags
// of runs, their history, and tag/untag. Keys and values are checked by
// domain/tags.hpp before they reach the store; tags are user metadata and
// change no derived row.
#pragma once

#include "domain/tags.hpp"
#include "store/database.hpp"

#include <map>
#include <string>
#include <vector>

namespace rfdb::store {

// One tag or untag of a run (tag_log).
struct TagEvent {
  std::string action; // tag | untag
  std::string key;
  std::string value; // tag: the value set; untag: the value removed
  std::string at;    // ISO-8601 UTC timestamp
};

// What one tag did to a run's tags.
enum class TagChange {
  added,     // the key was not set
  replaced,  // the key held another value (logged)
  unchanged, // the key held this value already (nothing written, nothing logged)
};
const char* to_string(TagChange change);

// One run's current tags, by key. Errors: db.
Result<std::vector<domain::Tag>> run_tags(Database& db, const std::string& run_id);
// Every stored run's current tags (retracted runs included), by run_id then key. Errors: db.
Result<std::map<std::string, std::vector<domain::Tag>>> all_run_tags(Database& db);
// One run's tag and untag events, oldest first. Errors: db.
Result<std::vector<TagEvent>> tag_history(Database& db, const std::string& run_id);

// Set `tags` on run `run_id` inside the caller's write transaction (ingest
// --tag): each key added or replaced is written and logged at `at`; a key
// already holding its value is left alone. The run must exist. Returns one
// change per tag, in order. Errors: db.
Result<std::vector<TagChange>> write_run_tags(Database& db, const std::string& run_id,
                                              const std::vector<domain::Tag>& tags, const std::string& at);

// `rfdb tag`: write_run_tags in a transaction of its own. Errors: not_found
// for an unknown run; db.
Result<std::vector<TagChange>> tag_run(Database& db, const std::string& run_id,
                                       const std::vector<domain::Tag>& tags, const std::string& at);

// `rfdb untag`: remove `keys` from run `run_id` in one transaction, logging
// each with the value removed, and return the removed tags in key order
// given. Errors: not_found for an unknown run, or when the run has no tag of
// one of the keys (nothing is removed then); db.
Result<std::vector<domain::Tag>> untag_run(Database& db, const std::string& run_id,
                                           const std::vector<std::string>& keys, const std::string& at);

} // namespace rfdb::store
