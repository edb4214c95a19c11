// _inbox/<run_id>.json[.drained] proposals (docs/artifacts.md, "Legacy knowledge"). The JSON is
// LLM-written: comments are tolerated, card values may be strings, numbers
// or arrays, and a missing key is simply absent.
#include "domain/vocab.hpp"
#include "ingest/json_util.hpp"
#include "ingest/knowledge/detail.hpp"
#include "ingest/knowledge/knowledge.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace rfdb::ingest::knowledge {

namespace {

using Json = nlohmann::ordered_json;

// A value as text: strings as is, arrays joined by "\n", other scalars dumped.
std::string as_text(const Json& card, std::string_view key)
{
  const auto it = card.find(key);
  if (it == card.end() || it->is_null()) {
    return {};
  }
  if (it->is_string()) {
    return it->get<std::string>();
  }
  if (it->is_array()) {
    std::vector<std::string> parts;
    for (const auto& v : *it) {
      parts.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    return fmt::format("{}", fmt::join(parts, "\n"));
  }
  return it->dump();
}

// A string-or-array value as a list (`caution`, `source`).
std::vector<std::string> as_list(const Json& card, std::string_view key)
{
  std::vector<std::string> out;
  const auto it = card.find(key);
  if (it == card.end() || it->is_null()) {
    return out;
  }
  if (!it->is_array()) {
    if (auto t = as_text(card, key); !t.empty()) {
      out.push_back(std::move(t));
    }
    return out;
  }
  for (const auto& v : *it) {
    out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

// kb.py coercion for JSON counters: integral numbers, integer strings, else 0.
// A number beyond ±999,999,999 (the nine digits detail::coerce_counter reads
// from a string) is no counter either: it would not fit an int (a float cast
// beyond it is undefined behaviour, an integer one wraps).
std::optional<int> counter(const Json& card, std::string_view key, std::string_view file,
                           std::string_view pointer, std::vector<Warning>& warnings)
{
  const auto it = card.find(key);
  if (it == card.end() || it->is_null()) {
    return std::nullopt;
  }
  constexpr double k_max_counter = 999'999'999.0;
  bool ok = false;
  int value = 0;
  if (it->is_number()) {
    const double d = it->get<double>();
    ok = std::floor(d) == d && std::fabs(d) <= k_max_counter;
    value = ok ? static_cast<int>(d) : 0;
  } else if (it->is_string()) {
    value = detail::coerce_counter(it->get<std::string>(), ok);
  }
  if (!ok) {
    detail::add_warning(warnings, Severity::warning, file, 0,
                        fmt::format("{}/{} '{}' is not an integer; read as 0", pointer, key,
                                    util::utf8_prefix(it->dump(), 40)));
  }
  return value;
}

// A card-like body for the text column, in the field order of a card.
std::string body_from(const Json& card)
{
  std::string out;
  if (auto title = as_text(card, "title"); !title.empty()) {
    out += fmt::format("# {}\n", title);
  }
  for (std::string_view k : {"lever", "apply", "stack", "verify", "pitfall", "caution", "roofline"}) {
    for (const auto& v : as_list(card, k)) {
      out += fmt::format("- {}: {}\n", k, v);
    }
  }
  for (const auto& v : as_list(card, "source")) {
    out += fmt::format("- source: {}\n", v);
  }
  if (!out.empty()) {
    out.pop_back();
  }
  return out;
}

// kb.py drains only an accepted, quiet, attributed, not-held-out proposal
// (docs/playbook.md, "Imported knowledge"); returns why not, or empty when it qualifies.
std::string not_drainable_reason(const Json& doc)
{
  const auto status = as_text(doc, "validation_status");
  if (!domain::is(status, domain::ValidationStatus::accepted)) {
    return fmt::format("validation_status is '{}', not 'accepted'", status);
  }
  if (doc.contains("box_quiet") && doc["box_quiet"] == false) {
    return "box_quiet is false";
  }
  if (doc.contains("held_out") && doc["held_out"] == true) {
    return "held_out is true";
  }
  return as_text(doc, "run_id").empty() ? "it has no run_id" : "";
}

Finding finding_from(const Json& card, const Json& doc, std::string_view file, std::size_t index,
                     std::vector<Warning>& warnings)
{
  std::string base = detail::base_name(file);
  if (base.size() > 8 && base.compare(base.size() - 8, 8, ".drained") == 0) {
    base.resize(base.size() - 8);
  }
  const std::string pointer = fmt::format("/cards/{}", index);
  Finding f;
  f.origin = "proposal";
  f.identity = fmt::format("{}#{}", base, pointer);
  f.name = as_text(card, "name");
  f.name = f.name.empty() ? as_text(card, "title") : f.name;
  f.key_raw = as_text(card, "key");
  f.type = as_text(card, "type");
  f.effect = as_text(card, "effect");
  f.lever = as_text(card, "lever");
  f.apply = as_text(card, "apply");
  f.verify = as_text(card, "verify");
  f.cautions = as_list(card, "caution");
  f.sources_cited = as_list(card, "source");
  const std::string platforms = card.contains("platforms") && card["platforms"].is_array()
                                    ? card["platforms"].dump()
                                    : as_text(card, "platforms");
  const std::string kernel_class = as_text(card, "kernel_class");
  const std::string regime = as_text(card, "regime");
  const std::string gfx = as_text(card, "gfx");
  detail::derive_reuse_key(f, {kernel_class, regime, f.key_raw, platforms, gfx, file}, warnings, 0);
  detail::apply_confidence(f, as_text(card, "confidence"), warnings, file, 0);
  f.confirms = counter(card, "confirms", file, pointer, warnings);
  f.confirms_cited = counter(card, "confirms_cited", file, pointer, warnings);
  f.confirms_blind = counter(card, "confirms_blind", file, pointer, warnings);
  f.losses = counter(card, "losses", file, pointer, warnings);
  f.attempts = counter(card, "attempts", file, pointer, warnings);
  f.lifecycle =
      domain::to_string(domain::parse<domain::Lifecycle>(util::lower_ascii(as_text(card, "lifecycle")))
                            .value_or(domain::Lifecycle::active));
  const std::string seen = as_text(card, "last_seen");
  f.last_seen = detail::leading_date(seen.empty() ? as_text(doc, "date") : seen);
  f.text = body_from(card);
  f.fields = card.dump();
  return f;
}

} // namespace

// A proposal that kb.py would not drain is kept as "archived" (stored, not
// shown) with a note rather than a warning: pending proposals are normal
// inbox content, not malformed input, so they must not fail --strict.
Result<std::vector<Finding>> parse_proposal(std::string_view file_name, std::string_view content,
                                            std::vector<Warning>& warnings)
{
  RFDB_TRY(detail::check_utf8(file_name, content));
  // The eval-dir reader's screen first (one linear scan): it refuses what nlohmann alone would
  // take, above all nesting deeper than k_max_json_depth, whose dump into `fields` would
  // overflow the stack (a 2 MB proposal of nested arrays crashed ingest).
  if (auto screened = find_duplicate_keys(content); !screened) {
    return fail(
        make_error(ErrorCode::invalid_input, screened.error().message).with_context(std::string(file_name)));
  }
  Json doc;
  try {
    doc = Json::parse(content.begin(), content.end(), nullptr, true, true);
  } catch (const nlohmann::json::parse_error& e) {
    // The run artifacts' reader words the error: JSON pointer, line:column.
    auto located = parse_json_text(content);
    if (!located) {
      return fail(
          make_error(ErrorCode::invalid_input, located.error().message).with_context(std::string(file_name)));
    }
    const std::size_t at = std::min(content.size(), e.byte == 0 ? std::size_t{0} : e.byte - 1);
    const auto line = 1 + std::count(content.begin(), content.begin() + static_cast<long>(at), '\n');
    return fail(make_error(ErrorCode::invalid_input, fmt::format("invalid JSON: {}", e.what()))
                    .with_context(fmt::format("{}:{}", file_name, line)));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double (1e400), which nlohmann throws as out_of_range (406): the
    // reader names it and its line:column.
    auto located = parse_json_text(content);
    return fail(make_error(ErrorCode::invalid_input,
                           located ? fmt::format("invalid JSON: {}", e.what()) : located.error().message)
                    .with_context(std::string(file_name)));
  }
  if (!doc.is_object() || !doc.contains("cards") || !doc["cards"].is_array()) {
    return fail(make_error(ErrorCode::invalid_input, "/cards: a proposal needs a 'cards' array")
                    .with_context(std::string(file_name)));
  }
  const std::string reason = not_drainable_reason(doc);
  if (!reason.empty()) {
    detail::add_warning(warnings, Severity::note, file_name, 0,
                        fmt::format("not drainable ({}); its findings are stored as archived", reason));
  }
  std::vector<Finding> out;
  const auto& cards = doc["cards"];
  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (!cards[i].is_object()) {
      detail::add_warning(warnings, Severity::warning, file_name, 0,
                          fmt::format("/cards/{} is not an object; skipped", i));
      continue;
    }
    Finding f = finding_from(cards[i], doc, file_name, i, warnings);
    if (!reason.empty()) {
      f.lifecycle = "archived";
    }
    detail::classify(f);
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace rfdb::ingest::knowledge
