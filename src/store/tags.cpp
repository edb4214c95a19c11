// Run tags: reading run_tags and tag_log back, tag and untag (see store/tags.hpp).
#include "store/tags.hpp"

#include "rfdb_sql.hpp"

#include <algorithm>
#include <optional>

namespace rfdb::store {

namespace {

Result<void> require_run(Database& db, const std::string& run_id)
{
  auto prepared = db.prepare(sql::k_run_exists, "run_exists");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  prepared->bind(":run_id", run_id);
  bool found = false;
  RFDB_TRY_ASSIGN(found, prepared->step());
  prepared->reset();
  if (!found) {
    return fail(make_error(ErrorCode::not_found, "no run '" + run_id + "'")
                    .with_hint("`rfdb runs --all` lists the stored runs"));
  }
  return {};
}

Result<void> log_tag(Database& db, const std::string& run_id, const char* action, const domain::Tag& tag,
                     const std::string& at)
{
  auto prepared = db.prepare(sql::k_tag_log_insert, "tag_log_insert");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  prepared->bind(":run_id", run_id)
      .bind(":action", action)
      .bind(":key", tag.key)
      .bind(":value", tag.value)
      .bind(":at", at);
  RFDB_TRY(prepared->exec());
  return {};
}

const domain::Tag* find_key(const std::vector<domain::Tag>& tags, const std::string& key)
{
  const auto it = std::find_if(tags.begin(), tags.end(), [&](const domain::Tag& t) { return t.key == key; });
  return it == tags.end() ? nullptr : &*it;
}

} // namespace

const char* to_string(TagChange change)
{
  switch (change) {
  case TagChange::added:
    return "added";
  case TagChange::replaced:
    return "replaced";
  case TagChange::unchanged:
    return "unchanged";
  }
  return "unchanged";
}

Result<std::vector<domain::Tag>> run_tags(Database& db, const std::string& run_id)
{
  auto prepared = db.prepare(sql::k_run_tags, "run_tags");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  prepared->bind(":run_id", run_id);
  std::vector<domain::Tag> out;
  RFDB_TRY(for_each_row(*prepared, [&](const Statement& row) {
    out.push_back({row.get_text("key"), row.get_text("value")});
  }));
  return out;
}

Result<std::map<std::string, std::vector<domain::Tag>>> all_run_tags(Database& db)
{
  auto prepared = db.prepare(sql::k_run_tags_all, "run_tags_all");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  std::map<std::string, std::vector<domain::Tag>> out;
  RFDB_TRY(for_each_row(*prepared, [&](const Statement& row) {
    out[row.get_text("run_id")].push_back({row.get_text("key"), row.get_text("value")});
  }));
  return out;
}

Result<std::vector<TagEvent>> tag_history(Database& db, const std::string& run_id)
{
  auto prepared = db.prepare(sql::k_run_tag_history, "run_tag_history");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  prepared->bind(":run_id", run_id);
  std::vector<TagEvent> out;
  RFDB_TRY(for_each_row(*prepared, [&](const Statement& row) {
    out.push_back({row.get_text("action"), row.get_text("key"), row.get_text("value"), row.get_text("at")});
  }));
  return out;
}

Result<std::vector<TagChange>> write_run_tags(Database& db, const std::string& run_id,
                                              const std::vector<domain::Tag>& tags, const std::string& at)
{
  std::vector<domain::Tag> current;
  RFDB_TRY_ASSIGN(current, run_tags(db, run_id));
  auto upsert = db.prepare(sql::k_run_tag_upsert, "run_tag_upsert");
  if (!upsert) {
    return fail(std::move(upsert).error());
  }
  std::vector<TagChange> changes;
  for (const auto& tag : tags) {
    const domain::Tag* had = find_key(current, tag.key);
    if (had != nullptr && had->value == tag.value) {
      changes.push_back(TagChange::unchanged);
      continue;
    }
    changes.push_back(had == nullptr ? TagChange::added : TagChange::replaced);
    upsert->bind(":run_id", run_id).bind(":key", tag.key).bind(":value", tag.value);
    RFDB_TRY(upsert->exec());
    RFDB_TRY(log_tag(db, run_id, "tag", tag, at));
  }
  return changes;
}

Result<std::vector<TagChange>> tag_run(Database& db, const std::string& run_id,
                                       const std::vector<domain::Tag>& tags, const std::string& at)
{
  return with_retry([&]() -> Result<std::vector<TagChange>> {
    auto tx = db.begin_immediate();
    if (!tx) {
      return fail(std::move(tx).error());
    }
    RFDB_TRY(require_run(db, run_id));
    std::vector<TagChange> changes;
    RFDB_TRY_ASSIGN(changes, write_run_tags(db, run_id, tags, at));
    RFDB_TRY(tx->commit());
    return changes;
  });
}

Result<std::vector<domain::Tag>> untag_run(Database& db, const std::string& run_id,
                                           const std::vector<std::string>& keys, const std::string& at)
{
  return with_retry([&]() -> Result<std::vector<domain::Tag>> {
    auto tx = db.begin_immediate();
    if (!tx) {
      return fail(std::move(tx).error());
    }
    RFDB_TRY(require_run(db, run_id));
    std::vector<domain::Tag> current;
    RFDB_TRY_ASSIGN(current, run_tags(db, run_id));
    auto remove = db.prepare(sql::k_run_tag_delete, "run_tag_delete");
    if (!remove) {
      return fail(std::move(remove).error());
    }
    std::vector<domain::Tag> removed;
    for (const auto& key : keys) {
      const domain::Tag* had = find_key(current, key);
      if (had == nullptr) {
        return fail(make_error(ErrorCode::not_found, "run '" + run_id + "' has no tag '" + key + "'")
                        .with_hint("`rfdb show RUN` lists the run's tags; nothing was removed"));
      }
      remove->bind(":run_id", run_id).bind(":key", key);
      RFDB_TRY(remove->exec());
      RFDB_TRY(log_tag(db, run_id, "untag", *had, at));
      removed.push_back(*had);
    }
    RFDB_TRY(tx->commit());
    return removed;
  });
}

} // namespace rfdb::store
