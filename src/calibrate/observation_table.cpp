// calibrate::ObservationTable: the estimator's input rows, compact (see priors.hpp).
#include "calibrate/priors.hpp"

#include <array>
#include <map>

namespace rfdb::calibrate {

namespace {

constexpr std::uint32_t k_absent = 0; // string id of a NULL text

} // namespace

struct ObservationTable::Data {
  struct Row {
    std::uint32_t run = 0; // index into runs
    // Interned strings: ids into `strings` (k_absent = nullopt for the optional ones).
    std::uint32_t op_class = 0, gfx = 0, regime = 0, output_parity = 0, reject_reason = 0;
    std::uint32_t headroom_class = 0, confidence = 0;
    std::optional<double> isolated_speedup, e2e_delta_pct, roofline_pct, attainable_speedup, pct_gpu_time;
    std::optional<double> post_efficiency;
    std::int8_t suspect = -1; // -1 = nullopt
    bool dispatch_bound = false;
  };
  struct Run {
    std::string id;
    std::string date;
  };
  std::vector<Row> rows;
  std::vector<Run> runs;
  std::vector<std::string> strings{std::string()}; // [k_absent] unused
  std::map<std::string, std::uint32_t, std::less<>> ids;

  // The id of the previous row's text for each interned field: rows repeat
  // the same few spellings, so most lookups end at this comparison.
  enum Field {
    f_op_class,
    f_gfx,
    f_regime,
    f_output_parity,
    f_reject_reason,
    f_headroom,
    f_confidence,
    f_count
  };
  std::array<std::uint32_t, f_count> last{};

  std::uint32_t intern(std::string_view text, Field field)
  {
    std::uint32_t& hint = last[static_cast<std::size_t>(field)];
    if (hint != k_absent && strings[hint] == text) {
      return hint;
    }
    hint = intern(text);
    return hint;
  }
  std::uint32_t intern(std::string_view text)
  {
    const auto it = ids.find(text);
    if (it != ids.end()) {
      return it->second;
    }
    const auto id = static_cast<std::uint32_t>(strings.size());
    strings.emplace_back(text);
    ids.emplace(std::string(text), id);
    return id;
  }
  std::uint32_t intern_optional(const std::optional<std::string>& text, Field field)
  {
    return text ? intern(std::string_view(*text), field) : k_absent;
  }
};

ObservationTable::ObservationTable() : m_data(std::make_unique<Data>()) {}
ObservationTable::ObservationTable(ObservationTable&&) noexcept = default;
ObservationTable& ObservationTable::operator=(ObservationTable&&) noexcept = default;
ObservationTable::~ObservationTable() = default;

void ObservationTable::add(const Observation& a)
{
  Data& d = *m_data;
  if (d.runs.empty() || d.runs.back().id != a.run_id || d.runs.back().date != a.run_date) {
    d.runs.push_back({a.run_id, a.run_date});
  }
  Data::Row r;
  r.run = static_cast<std::uint32_t>(d.runs.size() - 1);
  r.op_class = d.intern(a.op_class, Data::f_op_class);
  r.gfx = d.intern(a.gfx, Data::f_gfx);
  r.regime = d.intern(a.regime, Data::f_regime);
  r.output_parity = d.intern(a.output_parity, Data::f_output_parity);
  r.reject_reason = d.intern(a.reject_reason, Data::f_reject_reason);
  r.headroom_class = d.intern_optional(a.prediction.headroom_class, Data::f_headroom);
  r.confidence = d.intern_optional(a.prediction.confidence, Data::f_confidence);
  r.isolated_speedup = a.isolated_speedup;
  r.e2e_delta_pct = a.e2e_delta_pct;
  r.roofline_pct = a.prediction.roofline_pct;
  r.attainable_speedup = a.prediction.attainable_speedup;
  r.pct_gpu_time = a.prediction.pct_gpu_time;
  r.post_efficiency = a.post_efficiency;
  r.suspect =
      a.prediction.suspect ? static_cast<std::int8_t>(*a.prediction.suspect ? 1 : 0) : std::int8_t{-1};
  r.dispatch_bound = a.prediction.dispatch_bound;
  d.rows.push_back(r);
}

std::size_t ObservationTable::size() const
{
  return m_data->rows.size();
}

std::string_view ObservationTable::run_id(std::size_t i) const
{
  return m_data->runs[m_data->rows[i].run].id;
}

std::string_view ObservationTable::run_date(std::size_t i) const
{
  return m_data->runs[m_data->rows[i].run].date;
}

void ObservationTable::fill(std::size_t i, Observation& out) const
{
  const Data& d = *m_data;
  const Data::Row& r = d.rows[i];
  const auto optional_text = [&](std::optional<std::string>& field, std::uint32_t id) {
    if (id == k_absent) {
      field.reset();
    } else {
      field = d.strings[id];
    }
  };
  out.run_id = d.runs[r.run].id;
  out.run_date = d.runs[r.run].date;
  out.round.clear();
  out.short_name.clear();
  out.lever.clear();
  out.op_class = d.strings[r.op_class];
  out.gfx = d.strings[r.gfx];
  out.regime = d.strings[r.regime];
  out.isolated_speedup = r.isolated_speedup;
  out.e2e_delta_pct = r.e2e_delta_pct;
  out.prediction = domain::Prediction{};
  optional_text(out.prediction.headroom_class, r.headroom_class);
  optional_text(out.prediction.confidence, r.confidence);
  out.prediction.roofline_pct = r.roofline_pct;
  out.prediction.attainable_speedup = r.attainable_speedup;
  out.prediction.pct_gpu_time = r.pct_gpu_time;
  if (r.suspect >= 0) {
    out.prediction.suspect = r.suspect == 1;
  }
  out.prediction.dispatch_bound = r.dispatch_bound;
  out.post_efficiency = r.post_efficiency;
  out.output_parity = d.strings[r.output_parity];
  out.reject_reason = d.strings[r.reject_reason];
}

} // namespace rfdb::calibrate
