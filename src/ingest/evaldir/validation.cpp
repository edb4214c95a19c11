// director_e2e_validation.json (docs/artifacts.md, "The run's headline") → the run's headline
// outcome: baseline and final throughput tok/s, throughput_speedup ×, and
// the Director's validation class.
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

namespace rfdb::ingest {

using detail::add_file;
using detail::k_root;
using detail::require_object;

namespace {

Result<RunOutcome> director_impl(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  RunOutcome o;
  RFDB_TRY_ASSIGN(o.model, get_string(doc, "model_name", k_root));
  RFDB_TRY_ASSIGN(o.baseline_throughput_tok_s,
                  detail::get_non_negative(doc, "baseline_throughput_tok_s", k_root));
  RFDB_TRY_ASSIGN(o.final_throughput_tok_s,
                  detail::get_non_negative(doc, "director_verified_throughput_tok_s", k_root));
  RFDB_TRY_ASSIGN(o.throughput_speedup,
                  detail::get_speedup(doc, "throughput_speedup", k_root, detail::ZeroSpeedup::reject));
  if (!o.throughput_speedup && o.baseline_throughput_tok_s && o.final_throughput_tok_s &&
      *o.baseline_throughput_tok_s > 0.0 && *o.final_throughput_tok_s > 0.0) {
    o.throughput_speedup = *o.final_throughput_tok_s / *o.baseline_throughput_tok_s;
  }
  RFDB_TRY(detail::read_validation(doc, rel_path, warnings, o));
  return o;
}

// A flags / env value as text: a string, strings of a list joined by spaces,
// or "KEY=value" pairs of an object; "" otherwise.
std::string config_text(const json* v)
{
  if (v == nullptr) {
    return {};
  }
  std::string out;
  const auto add = [&out](const std::string& part) {
    if (!part.empty()) {
      out += (out.empty() ? "" : " ") + part;
    }
  };
  if (v->is_string()) {
    add(v->get<std::string>());
  } else if (v->is_array()) {
    for (const auto& item : *v) {
      if (item.is_string()) {
        add(item.get<std::string>());
      }
    }
  } else if (v->is_object()) {
    for (const auto& [key, value] : v->items()) {
      add(key + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
    }
  }
  return out;
}

const json* member(const json& obj, std::string_view key)
{
  if (!obj.is_object()) {
    return nullptr;
  }
  const auto it = obj.find(std::string(key));
  return it == obj.end() ? nullptr : &*it;
}

} // namespace

DirectorFinal read_director_final(const json& doc)
{
  DirectorFinal f;
  const auto join = [](std::string& into, const std::string& part) {
    if (!part.empty()) {
      into += (into.empty() ? "" : " ") + part;
    }
  };
  for (const json* scope : {&doc, member(doc, "serving_config")}) {
    if (scope == nullptr) {
      continue;
    }
    join(f.env, config_text(member(*scope, "final_env")));
    join(f.flags, config_text(member(*scope, "final_flags")));
    if (const json* cfg = member(*scope, "final_config"); cfg != nullptr) {
      if (cfg->is_object()) {
        join(f.env, config_text(member(*cfg, "env")));
        join(f.flags, config_text(member(*cfg, "flags")));
      } else {
        join(f.flags, config_text(cfg));
      }
    }
  }
  for (const char* key : {"arbitration_note", "validation_note", "note"}) {
    join(f.note, config_text(member(doc, key)));
  }
  for (const json* scope : {member(doc, "serving_config"), &doc}) {
    if (const json* tp = scope != nullptr ? member(*scope, "tp") : nullptr;
        !f.tp && tp != nullptr && tp->is_number_integer() && tp->get<std::int64_t>() > 0) {
      f.tp = tp->get<std::int64_t>();
    }
  }
  return f;
}

Result<RunOutcome> parse_director_validation(const json& doc, std::string_view rel_path,
                                             std::vector<Warning>& warnings)
{
  return director_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
