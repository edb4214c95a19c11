// calibrate::ObservationTable: the estimator's input rows, compact (see priors.hpp).
#include "calibrate/observation_table.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <map>

namespace rfdb::calibrate {

namespace {

constexpr std::uint32_t k_absent = 0; // string id of a NULL text

// Rows are stored in fixed chunks: growing never copies them, and memory is
// touched once (a page fault costs more than the row it holds).
constexpr std::size_t k_chunk_shift = 14; // 16 384 rows of 64 bytes: 1 MiB
constexpr std::size_t k_chunk_rows = std::size_t{1} << k_chunk_shift;
constexpr std::size_t k_text_block = std::size_t{64} * 1024; // run ids and dates, packed

// The value fields of a row, in Row::value order (bit i of Row::present).
enum Value { v_isolated, v_e2e, v_roofline, v_attainable, v_pct_gpu, v_post, v_count };

} // namespace

struct ObservationTable::Data {
  // The texts of a row: interned ids into `strings` (k_absent = nullopt for
  // headroom_class and confidence). Rows repeat a few dozen combinations.
  struct Shape {
    // op_class, gfx, regime, output_parity, reject_reason, headroom, confidence, short_name, source_kind
    std::array<std::uint32_t, 9> ids{};
  };
  struct Row {
    std::array<double, v_count> value{};
    std::uint32_t run = 0;   // index into runs
    std::uint32_t shape = 0; // index into shapes
    std::uint8_t present = 0;
    std::int8_t suspect = -1; // -1 = nullopt
    bool dispatch_bound = false;
    bool profiler_hbm_undercount = false;
    domain::CensorReason censored = domain::CensorReason::none;
  };
  static_assert(sizeof(Row) <= 64);
  struct Run {
    std::string_view id; // into text blocks
    std::string_view date;
  };

  std::vector<std::unique_ptr<Row[]>> chunks;
  std::size_t rows = 0;
  std::vector<Run> runs;
  std::vector<std::unique_ptr<char[]>> text_blocks;
  char* text_free = nullptr;
  std::size_t text_left = 0;
  std::deque<std::string> strings{std::string()}; // [k_absent] unused; a deque keeps views stable
  std::map<std::string, std::uint32_t, std::less<>> ids;
  std::vector<Shape> shapes;
  std::map<std::array<std::uint32_t, 9>, std::uint32_t> shape_ids;
  std::array<std::string_view, 9> last_text{}; // the previous row's texts …
  std::array<bool, 9> last_present{};
  std::uint32_t last_shape = 0; // … and their shape
  bool any_shape = false;

  Row& row(std::size_t i) { return chunks[i >> k_chunk_shift][i & (k_chunk_rows - 1)]; }
  const Row& row(std::size_t i) const { return chunks[i >> k_chunk_shift][i & (k_chunk_rows - 1)]; }
  const Shape& shape_of(std::size_t i) const { return shapes[row(i).shape]; }
  const std::string& text(std::uint32_t id) const { return strings[id]; }

  Row& append()
  {
    if ((rows & (k_chunk_rows - 1)) == 0 && (rows >> k_chunk_shift) == chunks.size()) {
      chunks.push_back(std::make_unique_for_overwrite<Row[]>(k_chunk_rows));
    }
    return row(rows++);
  }

  std::string_view keep(std::string_view s)
  {
    if (s.empty()) {
      return {}; // an undated run: no bytes to copy (memcpy from null is undefined)
    }
    if (s.size() > text_left) {
      const std::size_t size = std::max(k_text_block, s.size());
      text_blocks.push_back(std::make_unique_for_overwrite<char[]>(size));
      text_free = text_blocks.back().get();
      text_left = size;
    }
    std::memcpy(text_free, s.data(), s.size());
    const std::string_view kept(text_free, s.size());
    text_free += s.size();
    text_left -= s.size();
    return kept;
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

  // The shape of a row's texts; rows mostly repeat the previous row's.
  std::uint32_t shape(const std::array<std::optional<std::string_view>, 9>& texts)
  {
    bool same = any_shape;
    for (std::size_t f = 0; same && f < texts.size(); ++f) {
      same = texts[f].has_value() == last_present[f] && (!texts[f] || *texts[f] == last_text[f]);
    }
    if (same) {
      return last_shape;
    }
    Shape s;
    for (std::size_t f = 0; f < texts.size(); ++f) {
      s.ids[f] = texts[f] ? intern(*texts[f]) : k_absent;
    }
    const auto [it, added] = shape_ids.try_emplace(s.ids, static_cast<std::uint32_t>(shapes.size()));
    if (added) {
      shapes.push_back(s);
    }
    for (std::size_t f = 0; f < texts.size(); ++f) {
      last_present[f] = texts[f].has_value();
      last_text[f] = texts[f] ? std::string_view(strings[s.ids[f]]) : std::string_view();
    }
    last_shape = it->second;
    any_shape = true;
    return last_shape;
  }
};

ObservationTable::ObservationTable() : m_data(std::make_unique<Data>()) {}
ObservationTable::ObservationTable(ObservationTable&&) noexcept = default;
ObservationTable& ObservationTable::operator=(ObservationTable&&) noexcept = default;
ObservationTable::~ObservationTable() = default;

void ObservationTable::add(const domain::ObservationRow& a)
{
  Data& d = *m_data;
  if (d.runs.empty() || d.runs.back().id != a.run_id || d.runs.back().date != a.run_date) {
    d.runs.push_back({d.keep(a.run_id), d.keep(a.run_date)});
  }
  const std::uint32_t shape = d.shape({a.op_class, a.gfx, a.regime, a.output_parity, a.reject_reason,
                                       a.headroom_class, a.confidence, a.short_name, a.source_kind});
  Data::Row& r = d.append();
  r.run = static_cast<std::uint32_t>(d.runs.size() - 1);
  r.shape = shape;
  r.present = 0;
  const std::array<const std::optional<double>*, v_count> values = {
      &a.isolated_speedup,   &a.e2e_delta_pct, &a.roofline_pct,
      &a.attainable_speedup, &a.pct_gpu_time,  &a.post_efficiency};
  for (std::size_t v = 0; v < values.size(); ++v) {
    const std::optional<double>& x = *values[v];
    r.value[v] = x.value_or(0.0);
    r.present |= static_cast<std::uint8_t>(x ? 1U << v : 0U);
  }
  r.suspect = a.suspect ? static_cast<std::int8_t>(*a.suspect ? 1 : 0) : std::int8_t{-1};
  r.dispatch_bound = a.dispatch_bound;
  r.profiler_hbm_undercount = a.profiler_hbm_undercount;
  r.censored = a.censored;
}

void ObservationTable::add(const Observation& a)
{
  const auto view = [](const std::optional<std::string>& s) {
    return s ? std::optional<std::string_view>(*s) : std::nullopt;
  };
  add(domain::ObservationRow{a.run_id,
                             a.run_date,
                             a.gfx,
                             a.op_class,
                             a.regime,
                             a.output_parity,
                             a.reject_reason,
                             view(a.prediction.headroom_class),
                             view(a.prediction.confidence),
                             a.isolated_speedup,
                             a.e2e_delta_pct,
                             a.prediction.roofline_pct,
                             a.prediction.attainable_speedup,
                             a.prediction.pct_gpu_time,
                             a.post_efficiency,
                             a.prediction.suspect,
                             a.prediction.dispatch_bound,
                             a.short_name,
                             view(a.prediction.source_kind),
                             a.profiler_hbm_undercount,
                             a.censored});
}

std::size_t ObservationTable::size() const
{
  return m_data->rows;
}

std::string_view ObservationTable::run_id(std::size_t i) const
{
  return m_data->runs[m_data->row(i).run].id;
}

std::string_view ObservationTable::run_date(std::size_t i) const
{
  return m_data->runs[m_data->row(i).run].date;
}

std::string_view ObservationTable::op_class(std::size_t i) const
{
  return m_data->text(m_data->shape_of(i).ids[0]);
}

std::string_view ObservationTable::gfx(std::size_t i) const
{
  return m_data->text(m_data->shape_of(i).ids[1]);
}

std::string_view ObservationTable::regime(std::size_t i) const
{
  return m_data->text(m_data->shape_of(i).ids[2]);
}

void ObservationTable::fill(std::size_t i, Observation& out) const
{
  const Data& d = *m_data;
  const Data::Row& r = d.row(i);
  const auto& ids = d.shapes[r.shape].ids;
  const auto optional_text = [&](std::optional<std::string>& field, std::uint32_t id) {
    if (id == k_absent) {
      field.reset();
    } else {
      field = d.text(id);
    }
  };
  const auto value = [&](Value v) {
    return (r.present & (1U << v)) != 0 ? std::optional<double>(r.value[v]) : std::nullopt;
  };
  out.run_id = d.runs[r.run].id;
  out.run_date = d.runs[r.run].date;
  out.round.clear();
  out.short_name = d.text(ids[7]);
  out.lever.clear();
  out.op_class = d.text(ids[0]);
  out.gfx = d.text(ids[1]);
  out.regime = d.text(ids[2]);
  out.isolated_speedup = value(v_isolated);
  out.e2e_delta_pct = value(v_e2e);
  out.prediction = domain::Prediction{};
  optional_text(out.prediction.headroom_class, ids[5]);
  optional_text(out.prediction.confidence, ids[6]);
  optional_text(out.prediction.source_kind, ids[8]);
  out.prediction.roofline_pct = value(v_roofline);
  out.prediction.attainable_speedup = value(v_attainable);
  out.prediction.pct_gpu_time = value(v_pct_gpu);
  if (r.suspect >= 0) {
    out.prediction.suspect = r.suspect == 1;
  }
  out.prediction.dispatch_bound = r.dispatch_bound;
  out.post_efficiency = value(v_post);
  out.output_parity = d.text(ids[3]);
  out.reject_reason = d.text(ids[4]);
  out.profiler_hbm_undercount = r.profiler_hbm_undercount;
  out.censored = r.censored;
}

} // namespace rfdb::calibrate
