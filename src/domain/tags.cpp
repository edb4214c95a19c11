// Run tags: the key and value rules, parsing "key=value" and matching `runs --tag` (domain/tags.hpp).
#include "domain/tags.hpp"

#include "util/utf8.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace rfdb::domain {

namespace {

bool is_alnum(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

} // namespace

std::optional<std::string> tag_key_problem(std::string_view key)
{
  if (key.empty()) {
    return "the key is empty";
  }
  if (key.size() > k_tag_key_max_bytes) {
    return fmt::format("the key is longer than {} bytes", k_tag_key_max_bytes);
  }
  if (!is_alnum(key.front())) {
    return "the key must start with a letter or digit";
  }
  if (!std::all_of(key.begin(), key.end(),
                   [](char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; })) {
    return "the key may hold only letters, digits, '_', '-' and '.'";
  }
  return std::nullopt;
}

std::optional<std::string> tag_value_problem(std::string_view value)
{
  if (value.find_first_not_of(' ') == std::string_view::npos) {
    return "the value is empty";
  }
  if (value.size() > k_tag_value_max_bytes) {
    return fmt::format("the value is longer than {} bytes", k_tag_value_max_bytes);
  }
  if (util::find_invalid_utf8(value)) {
    return "the value is not valid UTF-8";
  }
  // A control character as the display escaping defines it: ASCII (U+0000–U+001F, U+007F) and
  // C1 (U+0080–U+009F); `value` is well-formed UTF-8 here, so only those change under it.
  if (util::escape_for_display(value) != value) {
    return "the value holds a control character";
  }
  return std::nullopt;
}

Result<Tag> parse_tag(std::string_view text)
{
  const auto eq = text.find('=');
  const std::string shown = util::escape_for_display(text);
  if (eq == std::string_view::npos) {
    return fail(ErrorCode::usage, fmt::format("tag '{}' is not key=value", shown));
  }
  Tag tag{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
  if (auto why = tag_key_problem(tag.key)) {
    return fail(ErrorCode::usage, fmt::format("tag '{}': {}", shown, *why));
  }
  if (auto why = tag_value_problem(tag.value)) {
    return fail(ErrorCode::usage, fmt::format("tag '{}': {}", shown, *why));
  }
  return tag;
}

Result<std::vector<Tag>> parse_tags(const std::vector<std::string>& texts)
{
  std::vector<Tag> out;
  for (const auto& text : texts) {
    auto tag = parse_tag(text);
    if (!tag) {
      return fail(std::move(tag).error());
    }
    if (std::any_of(out.begin(), out.end(), [&](const Tag& t) { return t.key == tag->key; })) {
      return fail(ErrorCode::usage, fmt::format("tag key '{}' is given twice", tag->key));
    }
    out.push_back(std::move(*tag));
  }
  return out;
}

bool tags_match(const std::vector<Tag>& tags, const std::vector<Tag>& wanted)
{
  return std::all_of(wanted.begin(), wanted.end(),
                     [&](const Tag& w) { return std::find(tags.begin(), tags.end(), w) != tags.end(); });
}

std::string format_tags(const std::vector<Tag>& tags)
{
  std::string out;
  for (const auto& t : tags) {
    out += (out.empty() ? "" : ", ") + t.key + "=" + t.value;
  }
  return out;
}

} // namespace rfdb::domain
