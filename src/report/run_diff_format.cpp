// `rfdb diff` as a text table or JSON (declared in report/run_diff_format.hpp).
#include "report/run_diff_format.hpp"

#include "domain/roofline.hpp"
#include "report/text.hpp"
#include "store/stack.hpp"
#include "util/table.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace rfdb::report {

namespace {

using Json = nlohmann::ordered_json;

// A value as the table shows it: "-" when absent, numbers at the unit's precision, flags yes / no.
std::string cell(const DiffValue& v, DiffUnit unit)
{
  if (const auto* s = std::get_if<std::string>(&v)) {
    return *s;
  }
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    return std::to_string(*i);
  }
  if (const auto* d = std::get_if<double>(&v)) {
    return diff_decimals(unit) >= 0 ? fixed(*d, diff_decimals(unit)) : fmt::format("{:g}", *d);
  }
  if (const auto* f = std::get_if<bool>(&v)) {
    return *f ? "yes" : "no";
  }
  return "-";
}

Json json_value(const DiffValue& v)
{
  if (const auto* s = std::get_if<std::string>(&v)) {
    return *s;
  }
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    return *i;
  }
  if (const auto* d = std::get_if<double>(&v)) {
    return *d;
  }
  if (const auto* f = std::get_if<bool>(&v)) {
    return *f;
  }
  return nullptr;
}

// "a → b" when the field changed, the one value otherwise; the present side's value for an item
// on one run only.
std::string change_cell(const FieldDiff& f)
{
  const bool has_a = !std::holds_alternative<std::monostate>(f.a);
  const bool has_b = !std::holds_alternative<std::monostate>(f.b);
  if (f.changed) {
    return cell(f.a, f.unit) + " → " + cell(f.b, f.unit);
  }
  return cell(has_a || !has_b ? f.a : f.b, f.unit);
}

std::string state_cell(DiffState s)
{
  switch (s) {
  case DiffState::only_a:
    return "only a";
  case DiffState::only_b:
    return "only b";
  default:
    return std::string(to_string(s));
  }
}

bool listed(const FieldDiff& f, DiffRows rows)
{
  return rows == DiffRows::all || f.changed;
}

template <typename Item> bool listed(const Item& x, DiffRows rows)
{
  return rows == DiffRows::all || x.state != DiffState::same;
}

const FieldDiff& field_named(const std::vector<FieldDiff>& fields, std::string_view name)
{
  return *std::find_if(fields.begin(), fields.end(), [name](const FieldDiff& f) { return f.field == name; });
}

void fields_section(std::string& out, std::string_view title, const std::vector<FieldDiff>& fields,
                    DiffRows rows)
{
  std::vector<std::vector<std::string>> body;
  for (const auto& f : fields) {
    if (listed(f, rows)) {
      body.push_back({f.field, cell(f.a, f.unit), cell(f.b, f.unit)});
    }
  }
  if (!body.empty()) {
    out += fmt::format("\n{}\n{}", title, util::render_table({{"field"}, {"a"}, {"b"}}, body));
  }
}

std::string stack_cell(const std::optional<store::StackRow>& r)
{
  return r ? store::stack_version_text(*r) : "-";
}

void stack_section(std::string& out, const RunDiff& d, DiffRows rows)
{
  std::vector<std::vector<std::string>> body;
  for (const auto& s : d.stack) {
    if (listed(s, rows)) {
      body.push_back({s.package, state_cell(s.state), stack_cell(s.a), stack_cell(s.b)});
    }
  }
  if (!body.empty()) {
    out += fmt::format("\nstack\n{}", util::render_table({{"package"}, {"state"}, {"a"}, {"b"}}, body));
  }
}

void heads_section(std::string& out, const RunDiff& d, DiffRows rows)
{
  std::vector<std::vector<std::string>> body;
  for (const auto& h : d.heads) {
    if (!listed(h, rows)) {
      continue;
    }
    std::vector<std::string> row{h.kernel, state_cell(h.state)};
    for (const char* name : {"op_class", "pct_gpu_time", "source", "roofline_pct", "target_eff",
                             "attainable_speedup", "expected_e2e_gain_pct", "headroom_class", "bound_type"}) {
      row.push_back(change_cell(field_named(h.fields, name)));
    }
    body.push_back(std::move(row));
  }
  if (body.empty()) {
    return;
  }
  using util::Align;
  out += fmt::format("\nheads (pct_gpu_time ≥ {:g} % in the latest round; matched by kernel name)\n{}",
                     domain::k_head_min_pct,
                     util::render_table({{"kernel"},
                                         {"state"},
                                         {"op_class"},
                                         {"pct_gpu_time", Align::right},
                                         {"source"},
                                         {"roofline_pct", Align::right},
                                         {"target_eff", Align::right},
                                         {"attainable_×", Align::right},
                                         {"exp_e2e_%", Align::right},
                                         {"headroom_class"},
                                         {"bound_type"}},
                                        body));
}

void attempts_section(std::string& out, const RunDiff& d, DiffRows rows)
{
  std::vector<std::vector<std::string>> body;
  for (const auto& a : d.attempts) {
    if (!listed(a, rows)) {
      continue;
    }
    const AttemptSide& side = a.a ? *a.a : *a.b;
    std::vector<std::string> row{a.kernel, side.lever, state_cell(a.state)};
    for (const char* name : {"gate", "verdict", "deployed", "isolated_speedup", "e2e_delta_pct",
                             "output_parity", "reject_reason"}) {
      row.push_back(change_cell(field_named(a.fields, name)));
    }
    body.push_back(std::move(row));
  }
  if (body.empty()) {
    return;
  }
  using util::Align;
  out += fmt::format("\nattempts (matched by kernel and lever key)\n{}",
                     util::render_table({{"kernel"},
                                         {"lever"},
                                         {"state"},
                                         {"gate"},
                                         {"verdict"},
                                         {"deployed"},
                                         {"isolated_×", Align::right},
                                         {"e2e_%", Align::right},
                                         {"parity"},
                                         {"reject_reason"}},
                                        body));
}

Json fields_json(const std::vector<FieldDiff>& fields, DiffRows rows)
{
  Json arr = Json::array();
  for (const auto& f : fields) {
    if (listed(f, rows)) {
      arr.push_back({{"field", f.field},
                     {"a", json_value(f.a)},
                     {"b", json_value(f.b)},
                     {"state", f.changed ? "changed" : "same"}});
    }
  }
  return arr;
}

Json changes_json(const std::vector<FieldDiff>& fields)
{
  Json arr = Json::array();
  for (const auto& f : fields) {
    if (f.changed) {
      arr.push_back(f.field);
    }
  }
  return arr;
}

Json opt_json(const std::optional<std::string>& v)
{
  return v ? Json(*v) : Json(nullptr);
}

Json opt_json(const std::optional<double>& v)
{
  return v ? Json(*v) : Json(nullptr);
}

Json stack_row_json(const std::optional<store::StackRow>& r)
{
  if (!r) {
    return nullptr;
  }
  return {
      {"raw", r->raw}, {"release", opt_json(r->release)}, {"source", r->source}, {"via", opt_json(r->via)}};
}

Json head_json(const std::optional<HeadSide>& h)
{
  if (!h) {
    return nullptr;
  }
  return {{"round", h->round},
          {"short_name", h->short_name},
          {"op_class", h->op_class},
          {"source", h->source},
          {"pct_gpu_time", opt_json(h->pct_gpu_time)},
          {"roofline_pct", opt_json(h->roofline_pct)},
          {"target_eff", opt_json(h->target_eff)},
          {"attainable_speedup", opt_json(h->attainable_speedup)},
          {"expected_e2e_gain_pct", opt_json(h->expected_e2e_gain_pct)},
          {"headroom_class", h->headroom_class},
          {"bound_type", h->bound_type}};
}

Json attempt_json(const std::optional<AttemptSide>& s)
{
  if (!s) {
    return nullptr;
  }
  return {{"attempt", s->attempt},
          {"short_name", s->short_name},
          {"kind", s->kind},
          {"lever", s->lever},
          {"gate", opt_json(s->gate)},
          {"verdict", s->verdict},
          {"measured", s->measured},
          {"deployed", s->deployed},
          {"isolated_speedup", opt_json(s->isolated_speedup)},
          {"e2e_delta_pct", opt_json(s->e2e_delta_pct)},
          {"output_parity", opt_json(s->output_parity)},
          {"reject_reason", opt_json(s->reject_reason)}};
}

} // namespace

std::string render_run_diff_table(const RunDiff& d, DiffRows rows)
{
  std::string out = fmt::format("a  {} ({})\nb  {} ({})\n", d.run_a, d.date_a.value_or("-"), d.run_b,
                                d.date_b.value_or("-"));
  const std::size_t n = d.differences();
  out += n == 0 ? std::string("no differences\n") : fmt::format("{} difference{}\n", n, n == 1 ? "" : "s");
  fields_section(out, "identity", d.identity, rows);
  stack_section(out, d, rows);
  fields_section(out, "workload", d.workload, rows);
  heads_section(out, d, rows);
  attempts_section(out, d, rows);
  fields_section(out, "throughput", d.throughput, rows);
  fields_section(out, "validation", d.validation, rows);
  fields_section(out, "tags", d.tags, rows);
  return out;
}

std::string render_run_diff_json(const RunDiff& d, DiffRows rows)
{
  Json stack = Json::array();
  for (const auto& s : d.stack) {
    if (listed(s, rows)) {
      stack.push_back({{"package", s.package},
                       {"state", to_string(s.state)},
                       {"a", stack_row_json(s.a)},
                       {"b", stack_row_json(s.b)}});
    }
  }
  Json heads = Json::array();
  for (const auto& h : d.heads) {
    if (listed(h, rows)) {
      heads.push_back({{"kernel", h.kernel},
                       {"state", to_string(h.state)},
                       {"changes", changes_json(h.fields)},
                       {"a", head_json(h.a)},
                       {"b", head_json(h.b)}});
    }
  }
  Json attempts = Json::array();
  for (const auto& a : d.attempts) {
    if (listed(a, rows)) {
      attempts.push_back({{"kernel", a.kernel},
                          {"lever_key", a.lever_key},
                          {"state", to_string(a.state)},
                          {"changes", changes_json(a.fields)},
                          {"a", attempt_json(a.a)},
                          {"b", attempt_json(a.b)}});
    }
  }
  const Json doc{{"a", {{"run_id", d.run_a}, {"run_date", opt_json(d.date_a)}}},
                 {"b", {{"run_id", d.run_b}, {"run_date", opt_json(d.date_b)}}},
                 {"differences", d.differences()},
                 {"identity", fields_json(d.identity, rows)},
                 {"stack", std::move(stack)},
                 {"workload", fields_json(d.workload, rows)},
                 {"heads", std::move(heads)},
                 {"attempts", std::move(attempts)},
                 {"throughput", fields_json(d.throughput, rows)},
                 {"validation", fields_json(d.validation, rows)},
                 {"tags", fields_json(d.tags, rows)}};
  return doc.dump(2) + "\n";
}

} // namespace rfdb::report
