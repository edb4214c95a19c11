// Typed readers of the playbook evidence (runs, attempts, verdicts, imported findings).
#include "store/report_evidence.hpp"

#include "rfdb_sql.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <type_traits>

namespace rfdb::store {

namespace {

// One row of a statement with the conversions every reader below needs;
// columns by result name. Each name is looked up once per statement: the
// readers name their columns with the same literals in the same order on
// every row, so the cache is a list checked from a moving cursor.
class Row {
public:
  explicit Row(const Statement& s) : m_s(s) {}
  [[nodiscard]] const Statement& statement() const { return m_s; }
  [[nodiscard]] std::string text(const char* col) const
  {
    const int i = at(col);
    return m_s.is_null(i) ? std::string() : m_s.get_text(i);
  }
  [[nodiscard]] std::optional<double> num(const char* col) const { return m_s.get_opt_double(at(col)); }
  [[nodiscard]] std::optional<std::string> opt_text(const char* col) const
  {
    return m_s.get_opt_text(at(col));
  }
  // The column's text into `out`, reusing its buffer ("" for NULL).
  void text_into(const char* col, std::string& out) const
  {
    if (const auto v = m_s.get_opt_text_view(at(col))) {
      out.assign(v->data(), v->size());
    } else {
      out.clear();
    }
  }
  void opt_text_into(const char* col, std::optional<std::string>& out) const
  {
    if (const auto v = m_s.get_opt_text_view(at(col))) {
      if (!out) {
        out.emplace();
      }
      out->assign(v->data(), v->size());
    } else {
      out.reset();
    }
  }
  [[nodiscard]] std::optional<std::int64_t> integer(const char* col) const
  {
    return m_s.get_opt_int(at(col));
  }
  [[nodiscard]] bool flag(const char* col) const { return m_s.get_opt_int(at(col)).value_or(0) != 0; }
  [[nodiscard]] std::optional<int> int32(const char* col) const
  {
    const auto v = m_s.get_opt_int(at(col));
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  }
  // A JSON array of strings; NULL, "" and "[]" (most rows) are read without
  // a parse.
  [[nodiscard]] std::vector<std::string> strings(const char* col) const
  {
    std::vector<std::string> out;
    const int i = at(col);
    if (m_s.is_null(i)) {
      return out;
    }
    const std::string raw = m_s.get_text(i);
    if (raw.empty() || raw == "[]") {
      return out;
    }
    const auto j = nlohmann::json::parse(raw, nullptr, false);
    if (j.is_array()) {
      for (const auto& e : j) {
        if (e.is_string()) {
          out.push_back(e.get<std::string>());
        }
      }
    }
    return out;
  }

private:
  int at(const char* col) const
  {
    if (m_next < m_cols.size() && m_cols[m_next].first == col) {
      return m_cols[m_next++].second;
    }
    for (std::size_t k = 0; k < m_cols.size(); ++k) {
      if (m_cols[k].first == col) {
        m_next = k + 1;
        return m_cols[k].second;
      }
    }
    const int i = m_s.column_index(col);
    m_cols.emplace_back(col, i);
    m_next = m_cols.size();
    return i;
  }

  const Statement& m_s;
  mutable std::vector<std::pair<const char*, int>> m_cols;
  mutable std::size_t m_next = 0;
};

RunSummary read_run(const Row& r)
{
  RunSummary x;
  x.run_id = r.text("run_id");
  x.run_date = r.opt_text("run_date");
  x.model = r.opt_text("model");
  x.model_dtype = r.opt_text("model_dtype");
  x.gfx = r.opt_text("gfx");
  x.backend = r.opt_text("backend");
  x.isl = r.integer("isl");
  x.osl = r.integer("osl");
  x.conc = r.integer("conc");
  x.validation_class = r.text("validation_class");
  x.measured_spread_pct = r.num("measured_spread_pct");
  return x;
}

// Every field of `v` from the row; its strings keep their buffers.
void read_verdict(const Row& r, ReportVerdict& v)
{
  r.text_into("run_id", v.run_id);
  v.verdict_id = r.integer("verdict_id").value_or(0);
  r.text_into("round", v.round);
  v.round_order = r.int32("round_order");
  r.text_into("short_name", v.short_name);
  r.text_into("name", v.name);
  r.text_into("op_class", v.op_class);
  r.text_into("source_kind", v.source_kind);
  v.pct_gpu_time = r.num("pct_gpu_time");
  v.roofline_pct = r.num("roofline_pct");
  v.target_eff = r.num("target_eff");
  v.attainable_speedup = r.num("attainable_speedup");
  v.expected_e2e_gain_pct = r.num("expected_e2e_gain_pct");
  r.text_into("headroom_class", v.headroom_class);
  v.suspect = r.flag("suspect");
  v.dispatch_bound = r.flag("dispatch_bound");
  v.byte_reduction_levers = r.strings("byte_reduction_levers");
  v.headroom_ratio = r.num("headroom_ratio");
  r.text_into("guidance", v.guidance);
  r.text_into("observed_limit", v.observed_limit);
  v.disputed = r.flag("disputed");
}

ReportFinding read_finding(const Row& r)
{
  ReportFinding f;
  f.origin = r.text("origin");
  f.identity = r.text("identity");
  f.name = r.text("name");
  f.key_raw = r.text("key_raw");
  f.kernel_class_raw = r.text("kernel_class_raw");
  f.op_class = r.text("op_class");
  f.gfx = r.text("gfx");
  f.regime = r.text("regime");
  f.type = r.text("type");
  f.stars = r.int32("stars");
  f.lever = r.text("lever");
  f.apply = r.text("apply");
  f.effect = r.text("effect");
  f.iso_min = r.num("iso_min");
  f.iso_max = r.num("iso_max");
  f.e2e_min_pct = r.num("e2e_min_pct");
  f.e2e_max_pct = r.num("e2e_max_pct");
  f.confirms = r.int32("confirms");
  f.last_seen = r.text("last_seen");
  f.lifecycle = r.text("lifecycle");
  f.sources_cited = r.strings("sources_cited");
  f.cautions = r.strings("cautions");
  f.generator = r.text("generator");
  f.description = r.text("description");
  f.text = r.text("text");
  f.lever_key = r.text("lever_key");
  f.classification = r.text("classification");
  f.classification_reason = r.text("classification_reason");
  f.status = r.text("status");
  f.title = r.text("title");
  return f;
}

enum class Binds { gfx, since_and_gfx };

// All the attempts (read_report_evidence's range).
constexpr AttemptIdRange k_every_attempt{std::numeric_limits<std::int64_t>::min(),
                                         std::numeric_limits<std::int64_t>::max()};
enum class Order { as_written, by_run_id };

// Run query `q` with the filter's parameters the query takes, calling `read`
// on every row; by_run_id sorts its rows by their run_id column (a query of
// its own, named `<name>_by_run_id`).
template <typename F>
Result<void> read_rows(Database& db, NamedQuery q, const EvidenceFilter& filter, Binds binds, F&& read,
                       Order order = Order::as_written, const AttemptIdRange* attempts = nullptr)
{
  std::string sorted;
  std::string sorted_name;
  if (order == Order::by_run_id) {
    std::string_view text = db.query_text(q.sql, q.name);
    while (!text.empty() && (text.back() == ';' || text.back() == '\n' || text.back() == ' ')) {
      text.remove_suffix(1);
    }
    sorted = fmt::format("SELECT * FROM (\n{}\n) AS q ORDER BY run_id", text);
    q.sql = sorted;
    sorted_name = fmt::format("{}_by_run_id", q.name);
    q.name = sorted_name;
  }
  auto s = db.prepare(q.sql, q.name);
  if (!s) {
    return fail(std::move(s).error());
  }
  if (binds == Binds::since_and_gfx) {
    s->bind(":since", filter.since);
  }
  s->bind(":gfx", filter.gfx);
  if (attempts != nullptr) {
    s->bind(":first_attempt", attempts->first);
    s->bind(":last_attempt", attempts->last);
  }
  const Row row(*s);
  return for_each_row(*s, [&](const Statement&) -> Result<void> {
    if constexpr (std::is_void_v<std::invoke_result_t<F&, const Row&>>) {
      read(row);
      return {};
    } else {
      return read(row);
    }
  });
}

} // namespace

Result<AttemptIdRange> attempt_id_bounds(Database& db)
{
  auto s = db.prepare(sql::k_attempt_id_bounds, "attempt_id_bounds");
  if (!s) {
    return fail(std::move(s).error());
  }
  AttemptIdRange bounds{1, 0};
  RFDB_TRY(for_each_row(*s, [&](const Statement& row) {
    if (const auto first = row.get_opt_int(0), last = row.get_opt_int(1); first && last) {
      bounds = {*first, *last};
    }
  }));
  return bounds;
}

Result<void> read_report_attempts(Database& db, const EvidenceFilter& filter, AttemptIdRange range,
                                  const std::function<void(Attempt&&)>& sink)
{
  // One object for every row: the sink may take its strings by swap and
  // hand back buffers the next row reuses.
  Attempt attempt;
  return read_rows(
      db, {sql::k_report_attempts, "report_attempts"}, filter, Binds::since_and_gfx,
      [&](const Row& r) -> Result<void> {
        RFDB_TRY(read_attempt(r.statement(), AttemptReader::report, attempt));
        sink(std::move(attempt));
        return {};
      },
      Order::as_written, &range);
}

Result<void> read_report_evidence(Database& db, const EvidenceFilter& filter, const ReportEvidenceSink& sink,
                                  ReportRows rows)
{
  const auto asked = [&](ReportRows r) {
    return (static_cast<unsigned>(rows) & static_cast<unsigned>(r)) != 0;
  };
  if (asked(ReportRows::runs)) {
    RFDB_TRY(read_rows(db, {sql::k_report_runs, "report_runs"}, filter, Binds::since_and_gfx,
                       [&](const Row& r) { sink.run(read_run(r)); }));
  }
  // One verdict and one attempt object for every row: the sink may take
  // their strings by swap and hand back buffers the next row reuses.
  if (asked(ReportRows::verdicts) || asked(ReportRows::verdicts_by_run)) {
    ReportVerdict verdict;
    RFDB_TRY(read_rows(
        db, {sql::k_report_verdicts, "report_verdicts"}, filter, Binds::since_and_gfx,
        [&](const Row& r) {
          read_verdict(r, verdict);
          sink.verdict(std::move(verdict));
        },
        asked(ReportRows::verdicts_by_run) ? Order::by_run_id : Order::as_written));
  }
  if (asked(ReportRows::attempts)) {
    RFDB_TRY(read_report_attempts(db, filter, k_every_attempt, sink.attempt));
  }
  if (asked(ReportRows::findings)) {
    RFDB_TRY(read_rows(db, {sql::k_report_findings, "report_findings"}, filter, Binds::gfx,
                       [&](const Row& r) { sink.finding(read_finding(r)); }));
  }
  return {};
}

} // namespace rfdb::store
