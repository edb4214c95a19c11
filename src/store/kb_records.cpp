// GEAK kb records: writing and reading them (see kb_records.hpp).
#include "store/kb_records.hpp"

#include "rfdb_sql.hpp"

#include "store/sources.hpp"

#include <fmt/format.h>

#include <unordered_map>

namespace rfdb::store {

namespace {

std::optional<std::string> opt_text(const std::string& v)
{
  return v.empty() ? std::nullopt : std::optional<std::string>(v);
}

// The kb_records columns: X(member, kind) with kind text (NULL when ""), opt (an optional
// number or flag), num (an integer), flag (0/1). Order is the insert's.
// clang-format off
#define RFDB_KB_COLUMNS(X) \
  X(lane, text) X(record_key, text) X(store_path, text) X(files_sha256, text) X(canonical_id, text) \
  X(rung, opt) X(rungs, opt) X(id_order, text) X(gfx, text) X(kernel_name, text) \
  X(kernel_class, text) X(backend, text) X(framework, text) X(framework_version, text) \
  X(model, text) X(precision, text) X(tp, opt) X(ep, opt) X(isl, opt) X(osl, opt) X(conc, opt) \
  X(workload_kind, text) X(metric_name, text) X(metric_value, opt) X(speedup, opt) \
  X(throughput_tok_s, opt) X(baseline_tok_s, opt) X(metric_kind, text) X(bench_key, text) \
  X(case_names, text) X(direction, text) X(techniques, text) X(strategy, text) X(verified_on, text) \
  X(verified_stack, text) X(reproductions, opt) X(lifecycle, text) X(validated, opt) \
  X(retained, opt) X(retired_reason, text) X(retracted_at, text) X(withdrawn_scores, text) \
  X(content_signature, text) X(signature_origin, text) X(carrier, text) X(apply_env, text) \
  X(apply_route, text) X(recalls, num) X(validations, num) X(failures, num) X(not_reproduced, num) \
  X(inapplicable, num) X(last_outcome, text) X(last_at, text) X(last_by, text) X(retired, flag) \
  X(retired_why, text) X(extra, text) X(ingested_at, text)
// clang-format on

void bind_value(Statement& s, const char* name, const std::string& v)
{
  s.bind(name, opt_text(v));
}
void bind_value(Statement& s, const char* name, std::int64_t v)
{
  s.bind(name, v);
}
void bind_value(Statement& s, const char* name, bool v)
{
  s.bind(name, static_cast<std::int64_t>(v ? 1 : 0));
}
void bind_value(Statement& s, const char* name, const std::optional<std::int64_t>& v)
{
  s.bind(name, v);
}
void bind_value(Statement& s, const char* name, const std::optional<double>& v)
{
  s.bind(name, v);
}
void bind_value(Statement& s, const char* name, const std::optional<bool>& v)
{
  s.bind(name, v ? std::optional<std::int64_t>(*v ? 1 : 0) : std::nullopt);
}

void read_value(const Statement& s, const char* col, std::string& v)
{
  v = s.get_opt_text(col).value_or("");
}
void read_value(const Statement& s, const char* col, std::int64_t& v)
{
  v = s.get_opt_int(col).value_or(0);
}
void read_value(const Statement& s, const char* col, bool& v)
{
  v = s.get_opt_int(col).value_or(0) != 0;
}
void read_value(const Statement& s, const char* col, std::optional<std::int64_t>& v)
{
  v = s.get_opt_int(col);
}
void read_value(const Statement& s, const char* col, std::optional<double>& v)
{
  v = s.get_opt_double(col);
}
void read_value(const Statement& s, const char* col, std::optional<bool>& v)
{
  const auto i = s.get_opt_int(col);
  v = i ? std::optional<bool>(*i != 0) : std::nullopt;
}

KbRecord read_record(const Statement& s)
{
  KbRecord r;
  r.record_id = s.get_int("record_id");
  r.source_id = s.get_int("source_id");
#define RFDB_KB_READ(member, kind) read_value(s, #member, r.member);
  RFDB_KB_COLUMNS(RFDB_KB_READ)
#undef RFDB_KB_READ
  r.superseded = s.get_int("superseded") != 0;
  return r;
}

KbChampion read_champion(const Statement& s)
{
  return KbChampion{s.get_int("champion_id"),
                    s.get_int("source_id"),
                    s.get_text("canonical_id"),
                    s.get_opt_text("metric").value_or(""),
                    s.get_opt_text("session_id").value_or(""),
                    s.get_opt_double("value")};
}

Result<std::vector<KbAttestation>> read_history(Database& db, std::int64_t record_id)
{
  auto prepared = db.prepare(sql::k_kb_attestations, "kb_attestations");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":record_id", record_id);
  std::vector<KbAttestation> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& /*row*/) -> Result<void> {
    out.push_back(KbAttestation{s.get_opt_text("at").value_or(""), s.get_opt_text("outcome").value_or(""),
                                s.get_opt_text("actor").value_or(""),
                                s.get_opt_text("evidence").value_or("{}")});
    return {};
  }));
  return out;
}

} // namespace

struct KbWriter::Statements {
  Statement current, supersede, insert, attestation, champion_current, champion_supersede, champion_insert;
};

KbWriter::KbWriter(Database& db, std::unique_ptr<Statements> s) : m_db(&db), m_s(std::move(s)) {}
KbWriter::KbWriter(KbWriter&&) noexcept = default;
KbWriter& KbWriter::operator=(KbWriter&&) noexcept = default;
KbWriter::~KbWriter() = default;

Result<KbWriter> KbWriter::create(Database& db)
{
  std::vector<Statement> all;
  RFDB_TRY_ASSIGN(all, prepare_all(db, {
                                           {sql::k_kb_record_current, "kb_record_current"},
                                           {sql::k_kb_record_supersede, "kb_record_supersede"},
                                           {sql::k_kb_record_insert, "kb_record_insert"},
                                           {sql::k_kb_attestation_insert, "kb_attestation_insert"},
                                           {sql::k_kb_champion_current, "kb_champion_current"},
                                           {sql::k_kb_champion_supersede, "kb_champion_supersede"},
                                           {sql::k_kb_champion_insert, "kb_champion_insert"},
                                       }));
  return KbWriter(db, std::make_unique<Statements>(Statements{
                          std::move(all[0]), std::move(all[1]), std::move(all[2]), std::move(all[3]),
                          std::move(all[4]), std::move(all[5]), std::move(all[6])}));
}

Result<std::optional<KbCurrent>> KbWriter::current(const std::string& lane, const std::string& record_key)
{
  Statement& s = m_s->current;
  s.bind(":lane", lane).bind(":record_key", record_key);
  bool row = false;
  RFDB_TRY_ASSIGN(row, s.step());
  if (!row) {
    return std::optional<KbCurrent>();
  }
  KbCurrent c{s.get_int("record_id"), s.get_text("files_sha256")};
  s.reset();
  return std::optional<KbCurrent>(std::move(c));
}

Result<void> KbWriter::supersede(std::int64_t record_id)
{
  m_s->supersede.bind(":record_id", record_id);
  RFDB_TRY(m_s->supersede.exec());
  return {};
}

Result<std::int64_t> KbWriter::insert(const KbRecord& r)
{
  Statement& s = m_s->insert;
  s.bind(":source_id", r.source_id);
#define RFDB_KB_BIND(member, kind) bind_value(s, ":" #member, r.member);
  RFDB_KB_COLUMNS(RFDB_KB_BIND)
#undef RFDB_KB_BIND
  RFDB_TRY(s.exec());
  const std::int64_t id = m_db->last_insert_rowid();
  std::int64_t seq = 0;
  for (const auto& a : r.history) {
    Statement& h = m_s->attestation;
    h.bind(":record_id", id).bind(":seq", seq++);
    h.bind(":at", opt_text(a.at)).bind(":outcome", opt_text(a.outcome)).bind(":actor", opt_text(a.actor));
    h.bind(":evidence", a.evidence.empty() ? std::string("{}") : a.evidence);
    RFDB_TRY(h.exec());
  }
  return id;
}

Result<std::optional<KbCurrent>> KbWriter::current_champion(const std::string& canonical_id)
{
  Statement& s = m_s->champion_current;
  s.bind(":canonical_id", canonical_id);
  bool row = false;
  RFDB_TRY_ASSIGN(row, s.step());
  if (!row) {
    return std::optional<KbCurrent>();
  }
  KbCurrent c{s.get_int("champion_id"), digest_hex(s.get_blob("sha256"))};
  s.reset();
  return std::optional<KbCurrent>(std::move(c));
}

Result<void> KbWriter::supersede_champion(std::int64_t champion_id)
{
  m_s->champion_supersede.bind(":champion_id", champion_id);
  RFDB_TRY(m_s->champion_supersede.exec());
  return {};
}

Result<void> KbWriter::insert_champion(const KbChampion& c)
{
  Statement& s = m_s->champion_insert;
  s.bind(":source_id", c.source_id).bind(":canonical_id", c.canonical_id);
  s.bind(":metric", opt_text(c.metric)).bind(":session_id", opt_text(c.session_id)).bind(":value", c.value);
  RFDB_TRY(s.exec());
  return {};
}

Result<std::vector<KbRecord>> list_kb_records(Database& db)
{
  auto prepared = db.prepare(sql::k_kb_records, "kb_records");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  std::vector<KbRecord> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& /*row*/) -> Result<void> {
    out.push_back(read_record(s));
    return {};
  }));
  return out;
}

Result<std::vector<KbRecord>> list_kb_records_with_history(Database& db)
{
  std::vector<KbRecord> records;
  RFDB_TRY_ASSIGN(records, list_kb_records(db));
  std::unordered_map<std::int64_t, std::size_t> by_id;
  for (std::size_t i = 0; i < records.size(); ++i) {
    by_id.emplace(records[i].record_id, i);
  }
  auto prepared = db.prepare(sql::k_kb_attestations_current, "kb_attestations_current");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  RFDB_TRY(for_each_row(s, [&](const Statement& /*row*/) -> Result<void> {
    const auto it = by_id.find(s.get_int("record_id"));
    if (it != by_id.end()) {
      records[it->second].history.push_back(
          KbAttestation{s.get_opt_text("at").value_or(""), s.get_opt_text("outcome").value_or(""),
                        s.get_opt_text("actor").value_or(""), s.get_opt_text("evidence").value_or("{}")});
    }
    return {};
  }));
  return records;
}

Result<std::optional<KbRecord>> find_kb_record(Database& db, const std::string& id)
{
  auto prepared = db.prepare(sql::k_kb_record_find, "kb_record_find");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":id", id);
  std::vector<KbRecord> found;
  RFDB_TRY(for_each_row(s, [&](const Statement& /*row*/) -> Result<void> {
    found.push_back(read_record(s));
    return {};
  }));
  if (found.empty()) {
    return std::optional<KbRecord>();
  }
  const auto exact = [&](const KbRecord& r) {
    return r.record_key == id || std::to_string(r.record_id) == id;
  };
  if (found.size() > 1 && !exact(found.front())) {
    std::vector<std::string> keys;
    for (const auto& r : found) {
      keys.push_back(r.record_key);
    }
    return fail(make_error(ErrorCode::usage,
                           fmt::format("kb record id prefix '{}' is ambiguous: {}{}", id,
                                       fmt::join(keys.begin(),
                                                 keys.begin() + std::min<std::size_t>(keys.size(), 5), ", "),
                                       keys.size() > 5 ? ", …" : ""))
                    .with_hint("give more of the session or exp id, or the record's number"));
  }
  KbRecord r = std::move(found.front());
  RFDB_TRY_ASSIGN(r.history, read_history(db, r.record_id));
  return std::optional<KbRecord>(std::move(r));
}

namespace {

Result<std::vector<KbChampion>> champions(Database& db, const std::optional<std::string>& session_id)
{
  auto prepared = db.prepare(sql::k_kb_champions, "kb_champions");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":session_id", session_id);
  std::vector<KbChampion> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& /*row*/) -> Result<void> {
    out.push_back(read_champion(s));
    return {};
  }));
  return out;
}

} // namespace

Result<std::vector<KbChampion>> kb_champions_of(Database& db, const std::string& session_id)
{
  return champions(db, session_id);
}

Result<std::vector<KbChampion>> list_kb_champions(Database& db)
{
  return champions(db, std::nullopt);
}

} // namespace rfdb::store
