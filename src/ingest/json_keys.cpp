// Duplicate JSON keys: the cheap screen and the exact check of the measured fields (see json_keys.hpp).
#include "ingest/json_keys.hpp"

#include <algorithm>
#include <array>

namespace rfdb::ingest {

namespace {

// Measured fields a producer might write (docs/artifacts.md, "How the fields are mapped"), sorted for binary
// search. Keep to numeric measurements and predictions: a repeated label or
// note is only a warning.
constexpr std::array k_measured_fields = {
    std::string_view("arithmetic_intensity"),
    std::string_view("attainable_speedup"),
    std::string_view("avg_us"),
    std::string_view("baseline_throughput_tok_s"),
    std::string_view("bytes_est"),
    std::string_view("cand_med"),
    std::string_view("compute_util"),
    std::string_view("compute_utilization_pct"),
    std::string_view("delta_pct"),
    std::string_view("director_verified_throughput_tok_s"),
    std::string_view("e2e_delta_pct"),
    std::string_view("e2e_gain_pct"),
    std::string_view("expected_e2e_gain_pct"),
    std::string_view("final_throughput_tok_s"),
    std::string_view("flops_est"),
    std::string_view("gate"), // decides whether the attempt is evidence
    std::string_view("gfx"),  // decides the key it calibrates
    std::string_view("hbm_util"),
    std::string_view("hbm_utilization_pct"),
    std::string_view("headroom_ratio"),
    std::string_view("isolated"),
    std::string_view("isolated_speedup"),
    std::string_view("launches_per_step"),
    std::string_view("output_parity"), // a parity-failed attempt is no observation
    std::string_view("output_throughput_tok_s_median"),
    std::string_view("output_throughput_tok_s_spread_pct"),
    std::string_view("pct_gpu_time"),
    std::string_view("raw_pct_gpu_time"),
    std::string_view("ref_med"),
    std::string_view("ridge_point"),
    std::string_view("roofline_efficiency_pct"),
    std::string_view("roofline_pct"),
    std::string_view("roofline_pct_raw"),
    std::string_view("speedup"),
    std::string_view("t_ms"),
    std::string_view("target_eff"),
    std::string_view("throughput_speedup"),
    std::string_view("throughput_tok_s_median"),
    std::string_view("throughput_tok_s_spread_pct"),
    std::string_view("total_gpu_time_ms"),
    std::string_view("total_ms"),
    std::string_view("tpot_ms_median"),
    std::string_view("ttft_ms_median"),
};
static_assert(std::is_sorted(k_measured_fields.begin(), k_measured_fields.end()));

// Measured values agree when they are the same number (1.148, "1.148" and
// 1.1480 are one reading) or, failing that, the same JSON.
bool same_measurement(const json& a, const json& b)
{
  const auto as_number = [](const json& v) -> std::optional<double> {
    if (v.is_number()) {
      return v.get<double>();
    }
    return v.is_string() ? detail::number_from_text(v.get_ref<const std::string&>()) : std::nullopt;
  };
  const auto x = as_number(a);
  const auto y = as_number(b);
  return x && y ? *x == *y : a == b;
}

} // namespace

bool is_measured_field(std::string_view key)
{
  return std::binary_search(k_measured_fields.begin(), k_measured_fields.end(), key);
}

namespace detail {

bool DuplicateTracker::on_event(json::parse_event_t event, json& parsed)
{
  using E = json::parse_event_t;
  switch (event) {
  case E::object_start:
  case E::array_start:
    m_stack.push_back(Frame{event == E::object_start, 0, {}, {}, std::nullopt});
    break;
  case E::key:
    on_key(parsed.get<std::string>());
    break;
  case E::object_end:
  case E::array_end:
    m_stack.pop_back();
    on_value(parsed);
    break;
  case E::value:
    on_value(parsed);
    break;
  }
  return true;
}

void DuplicateTracker::on_key(std::string key)
{
  Frame& top = m_stack.back();
  top.key = std::move(key);
  top.repeat.reset();
  if (top.seen.try_emplace(top.key).second) {
    return;
  }
  std::string pointer;
  for (const auto& f : m_stack) {
    pointer = f.object ? child_pointer(pointer, f.key) : child_pointer(pointer, f.index);
  }
  top.repeat = m_found.size();
  m_found.push_back(DuplicateKey{std::move(pointer), top.key, is_measured_field(top.key), false, "", ""});
}

void DuplicateTracker::on_value(const json& value)
{
  if (m_stack.empty()) {
    return; // the document itself
  }
  Frame& top = m_stack.back();
  if (!top.object) {
    ++top.index;
    return;
  }
  if (!is_measured_field(top.key)) {
    return;
  }
  auto& first = top.seen[top.key];
  if (!top.repeat) {
    first = value;
    return;
  }
  DuplicateKey& d = m_found[*top.repeat];
  if (first) {
    d.values_differ = d.values_differ || !same_measurement(*first, value);
    d.first_value = describe_value(*first);
  }
  d.last_value = describe_value(value);
}

} // namespace detail

} // namespace rfdb::ingest
