// GEAK kb records (kb_records, kb_attestations, kb_champions; migration 0017, docs/kb.md):
// writing them at ingest, and the small read API later consumers use (reproduction matching,
// lookup, export --kb, the playbook): every current record with its signature, retired flag
// and ledger counters, one record with its history, and the champion pointers.
#pragma once

#include "store/database.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::store {

// One attestation history entry (kb_attestations), oldest first.
struct KbAttestation {
  std::string at;       // "" when absent
  std::string outcome;  // validated | failed | not_reproduced | inapplicable | as written
  std::string actor;    // `by`; "" when absent
  std::string evidence; // the entry's other keys as a JSON object text ("{}" when none)
};

// One kb record; field names are the kb_records column names. Text "" = NULL, nullopt = an
// absent number. JSON columns hold compact JSON text ("" when absent).
struct KbRecord {
  std::int64_t record_id = 0;        // set by the store
  std::int64_t source_id = 0;        // the record file's version (sources)
  std::string lane;                  // kernel | e2e | experience
  std::string record_key;            // session id, or exp id
  std::string store_path;            // the record file's stored rel_path
  std::string files_sha256;          // SHA-256 (hex) over the record's files' paths and sha256
  std::string canonical_id;          // most specific canonical id (kernel / e2e lanes)
  std::optional<std::int64_t> rung;  // 0 = most specific
  std::optional<std::int64_t> rungs; // identity dirs holding the session
  std::string id_order;              // current | old (GEAK-KB §11)
  std::string gfx, kernel_name, kernel_class, backend, framework, framework_version;
  std::string model, precision;
  std::optional<std::int64_t> tp, ep, isl, osl, conc;
  std::string workload_kind;
  std::string metric_name;            // speedup | throughput_tok_s
  std::optional<double> metric_value; // × or tokens/s
  std::optional<double> speedup;      // isolated × (kernel lanes), throughput ratio (e2e)
  std::optional<double> throughput_tok_s;
  std::optional<double> baseline_tok_s;
  std::string metric_kind, bench_key;
  std::string case_names; // JSON array
  std::string direction;
  std::string techniques; // JSON array
  std::string strategy, verified_on;
  std::string verified_stack; // JSON object
  std::optional<std::int64_t> reproductions;
  std::string lifecycle;
  std::optional<bool> validated;
  std::optional<bool> retained;
  std::string retired_reason, retracted_at;
  std::string withdrawn_scores; // JSON object
  std::string content_signature;
  std::string signature_origin; // stored | patch | artifact | "" (none)
  std::string carrier, apply_env, apply_route;
  std::int64_t recalls = 0, validations = 0, failures = 0, not_reproduced = 0, inapplicable = 0;
  std::string last_outcome, last_at, last_by;
  bool retired = false;
  std::string retired_why;
  std::string extra; // JSON object: the other fields kept (source_eval_dir, accepted_config …)
  std::string ingested_at;
  bool superseded = false;
  std::vector<KbAttestation> history; // oldest → newest
};

// One champion.json (kb_champions).
struct KbChampion {
  std::int64_t champion_id = 0;
  std::int64_t source_id = 0;
  std::string canonical_id; // the identity dir as a canonical id
  std::string metric;       // speedup | throughput_tok_s ("" when absent)
  std::string session_id;
  std::optional<double> value;
};

// A current stored row: its key and the digest it was written from.
struct KbCurrent {
  std::int64_t id = 0;
  std::string digest; // kb_records.files_sha256, or the champion's source sha256 (hex)
};

// The kb statements of one ingest, prepared once.
class KbWriter {
public:
  // Errors: db.
  static Result<KbWriter> create(Database& db);
  KbWriter(KbWriter&&) noexcept;
  KbWriter& operator=(KbWriter&&) noexcept;
  ~KbWriter();

  // The current record of (lane, record_key), if any. Errors: db.
  Result<std::optional<KbCurrent>> current(const std::string& lane, const std::string& record_key);
  // Mark record `record_id` superseded. Call inside a write transaction. Errors: db.
  Result<void> supersede(std::int64_t record_id);
  // Insert `r` (record_id ignored) and its history; returns the new record_id. Call inside a
  // write transaction. Errors: db (a second current record for the same lane and key).
  Result<std::int64_t> insert(const KbRecord& r);

  // The current champion row of `canonical_id` (digest = its source's sha256, hex). Errors: db.
  Result<std::optional<KbCurrent>> current_champion(const std::string& canonical_id);
  Result<void> supersede_champion(std::int64_t champion_id);
  Result<void> insert_champion(const KbChampion& c);

private:
  struct Statements;
  KbWriter(Database& db, std::unique_ptr<Statements> s);
  Database* m_db;
  std::unique_ptr<Statements> m_s;
};

// Every current (not superseded) kb record, by lane then record_key, without history.
// Errors: db.
Result<std::vector<KbRecord>> list_kb_records(Database& db);

// Every current kb record as list_kb_records orders them, each with its history (one more read:
// queries/kb_attestations_current.sql). Errors: db.
Result<std::vector<KbRecord>> list_kb_records_with_history(Database& db);

// The current record whose record_id is `id` (all digits), or whose record_key is `id`, or
// starts with it (unique prefix), with its history. nullopt: none. Errors: db; usage when the
// prefix matches several records (the message names them).
Result<std::optional<KbRecord>> find_kb_record(Database& db, const std::string& id);

// Every current champion pointer naming `session_id`. Errors: db.
Result<std::vector<KbChampion>> kb_champions_of(Database& db, const std::string& session_id);

// Every current champion pointer, by canonical_id. Errors: db.
Result<std::vector<KbChampion>> list_kb_champions(Database& db);

} // namespace rfdb::store
