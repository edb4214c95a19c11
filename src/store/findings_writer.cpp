// Writing imported knowledge findings (see findings_writer.hpp).
#include "store/findings_writer.hpp"

#include "rfdb_sql.hpp"

#include <nlohmann/json.hpp>

namespace rfdb::store {

struct FindingsWriter::Statements {
  Statement insert, supersede, clear, unclassified;
};

FindingsWriter::FindingsWriter(std::unique_ptr<Statements> s) : m_s(std::move(s)) {}
FindingsWriter::FindingsWriter(FindingsWriter&&) noexcept = default;
FindingsWriter& FindingsWriter::operator=(FindingsWriter&&) noexcept = default;
FindingsWriter::~FindingsWriter() = default;

Result<FindingsWriter> FindingsWriter::create(Database& db)
{
  std::vector<Statement> all;
  RFDB_TRY_ASSIGN(all, prepare_all(db, {
                                           {sql::k_finding_insert, "finding_insert"},
                                           {sql::k_finding_supersede, "finding_supersede"},
                                           {sql::k_finding_clear, "finding_clear"},
                                           {sql::k_finding_unclassified, "finding_unclassified"},
                                       }));
  return FindingsWriter(std::make_unique<Statements>(
      Statements{std::move(all[0]), std::move(all[1]), std::move(all[2]), std::move(all[3])}));
}

namespace {

std::string json_array(const std::vector<std::string>& items)
{
  return nlohmann::json(items).dump();
}

} // namespace

Result<void> FindingsWriter::insert(std::int64_t source_id, const std::vector<Finding>& findings)
{
  Statement& s = m_s->insert;
  auto opt_text = [](const std::string& v) {
    return v.empty() ? std::optional<std::string>() : std::optional(v);
  };
  auto opt_int = [](const std::optional<int>& v) {
    return v ? std::optional<std::int64_t>(*v) : std::optional<std::int64_t>();
  };
  for (const auto& f : findings) {
    s.bind(":source_id", source_id).bind(":origin", f.origin).bind(":identity", f.identity);
    s.bind(":name", opt_text(f.name)).bind(":key_raw", opt_text(f.key_raw));
    s.bind(":kernel_class_raw", opt_text(f.kernel_class_raw)).bind(":op_class", f.op_class);
    s.bind(":gfx", opt_text(f.gfx)).bind(":regime", f.regime).bind(":regime_raw", opt_text(f.regime_raw));
    s.bind(":model", opt_text(f.model))
        .bind(":model_class", opt_text(f.model_class))
        .bind(":type", opt_text(f.type));
    s.bind(":stars", opt_int(f.stars)).bind(":lever", opt_text(f.lever)).bind(":apply", opt_text(f.apply));
    s.bind(":verify", opt_text(f.verify)).bind(":cautions", json_array(f.cautions));
    s.bind(":sources_cited", json_array(f.sources_cited)).bind(":effect", opt_text(f.effect));
    s.bind(":iso_min", f.iso_min).bind(":iso_max", f.iso_max);
    s.bind(":e2e_min_pct", f.e2e_min_pct).bind(":e2e_max_pct", f.e2e_max_pct);
    s.bind(":confirms", opt_int(f.confirms)).bind(":confirms_cited", opt_int(f.confirms_cited));
    s.bind(":confirms_blind", opt_int(f.confirms_blind)).bind(":losses", opt_int(f.losses));
    s.bind(":attempts", opt_int(f.attempts)).bind(":lifecycle", f.lifecycle);
    s.bind(":last_seen", opt_text(f.last_seen)).bind(":text", opt_text(f.text));
    s.bind(":fields", f.fields.empty() ? std::string("{}") : f.fields);
    s.bind(":classification", opt_text(f.classification))
        .bind(":classification_reason", opt_text(f.classification_reason));
    RFDB_TRY(s.exec());
  }
  return {};
}

Result<void> FindingsWriter::supersede(std::int64_t source_id)
{
  m_s->supersede.bind(":source_id", source_id);
  RFDB_TRY(m_s->supersede.exec());
  return {};
}

Result<bool> FindingsWriter::unclassified(std::int64_t source_id)
{
  Statement& s = m_s->unclassified;
  s.bind(":source_id", source_id);
  bool row = false;
  RFDB_TRY_ASSIGN(row, s.step());
  const bool any = row && s.get_int("n") > 0;
  s.reset();
  return any;
}

Result<void> FindingsWriter::clear(std::int64_t source_id)
{
  m_s->clear.bind(":source_id", source_id);
  RFDB_TRY(m_s->clear.exec());
  return {};
}

} // namespace rfdb::store
