// The stored form of a case mix (declared in store/case_mix.hpp).
#include "store/case_mix.hpp"

#include <nlohmann/json.hpp>

namespace rfdb::store {

std::optional<std::string> case_mix_json(std::span<const domain::CaseShare> cases)
{
  if (cases.empty()) {
    return std::nullopt;
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& c : cases) {
    out.push_back({{"case_id", c.case_id},
                   {"regime", c.regime},
                   {"time_share", c.time_share},
                   {"roofline_pct", c.roofline_pct},
                   {"attainable_speedup", c.attainable_speedup},
                   {"dominant", c.dominant}});
  }
  return out.dump();
}

std::vector<domain::CaseShare> parse_case_mix(std::string_view text)
{
  std::vector<domain::CaseShare> out;
  if (text.empty()) {
    return out;
  }
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) {
    return out;
  }
  for (const auto& e : j) {
    const auto number = [&](const char* key) {
      const auto it = e.find(key);
      return it != e.end() && it->is_number() ? std::optional(it->get<double>()) : std::nullopt;
    };
    if (!e.is_object() || !e.contains("case_id") || !e.at("case_id").is_string()) {
      continue;
    }
    const auto share = number("time_share");
    const auto pct = number("roofline_pct");
    const auto attainable = number("attainable_speedup");
    if (!share || !pct || !attainable) {
      continue;
    }
    domain::CaseShare c;
    c.case_id = e.at("case_id").get<std::string>();
    if (const auto it = e.find("regime"); it != e.end() && it->is_string()) {
      c.regime = it->get<std::string>();
    }
    c.time_share = *share;
    c.roofline_pct = *pct;
    c.attainable_speedup = *attainable;
    const auto d = e.find("dominant");
    c.dominant = d != e.end() && d->is_boolean() && d->get<bool>();
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace rfdb::store
