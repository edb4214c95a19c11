// Shared helpers of the artifact parsers, plus the small identity rules
// (attempt_key, run date, short_name) that several parsers and the caller use.
#include "ingest/evaldir/artifacts.hpp"

#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "ingest/evaldir/common.hpp"
#include "util/time.hpp"

#include <fmt/core.h>

namespace rfdb::ingest {

namespace detail {

void warn(std::vector<Warning>& warnings, std::string_view file, std::string pointer, std::string message)
{
  warnings.push_back(Warning{std::string(file), std::move(pointer), std::move(message)});
}

namespace {

// `key` lower-cased without '_', '-' or spaces: the form two spellings of one
// field share.
std::string folded_key(std::string_view key)
{
  std::string out;
  for (const char c : key) {
    if (c != '_' && c != '-' && c != ' ') {
      out += util::lower_ascii(c);
    }
  }
  return out;
}

} // namespace

void warn_misspelled_keys(const json& obj, std::initializer_list<std::string_view> expected,
                          const std::string& pointer, std::string_view file, std::vector<Warning>& warnings)
{
  if (!obj.is_object()) {
    return;
  }
  for (const std::string_view want : expected) {
    if (obj.contains(want)) {
      continue;
    }
    const std::string folded = folded_key(want);
    for (const auto& [key, value] : obj.items()) {
      if (folded_key(key) == folded) {
        warn(warnings, file, child_pointer(pointer, key),
             fmt::format("'{}' is not read: this field is spelled '{}'", key, want));
        break;
      }
    }
  }
}

void warn_no_field_read(const json& obj, std::initializer_list<std::string_view> fields,
                        std::string_view consequence, std::string_view file, std::vector<Warning>& warnings)
{
  if (!obj.is_object()) {
    return;
  }
  std::string names;
  for (const std::string_view field : fields) {
    if (obj.contains(field)) {
      return;
    }
    names += fmt::format("{}{}", names.empty() ? "" : ", ", field);
  }
  warn(warnings, file, "",
       fmt::format("none of the fields rfdb reads are present ({}); {}", names, consequence));
}

tl::unexpected<Error> invalid(std::string message)
{
  return fail(ErrorCode::invalid_input, std::move(message));
}

std::string show_pointer(const std::string& pointer)
{
  return pointer.empty() ? std::string("(document root)") : pointer;
}

Result<void> require_object(const json& value, const std::string& pointer)
{
  if (!value.is_object()) {
    return invalid(
        fmt::format("{}: expected a JSON object, got {}", show_pointer(pointer), describe_value(value)));
  }
  return {};
}

Result<std::optional<double>> get_pct(const json& obj, std::string_view key, const std::string& pointer)
{
  std::optional<double> pct;
  RFDB_TRY_ASSIGN(pct, get_double(obj, key, pointer));
  if (pct && (*pct < 0.0 || *pct > 100.0)) {
    return invalid(fmt::format("{}: {} {} is outside 0–100 (percent of GPU time)",
                               child_pointer(pointer, key), key, describe_value(obj.at(key))));
  }
  return pct;
}

Result<std::optional<double>> get_e2e_delta(const json& obj, std::string_view key, const std::string& pointer)
{
  std::optional<double> d;
  RFDB_TRY_ASSIGN(d, get_double(obj, key, pointer));
  // Throughput cannot fall by more than all of it, and an 11× e2e gain from
  // one lever is a mis-measurement, not evidence.
  if (d && (*d < -100.0 || *d > 1000.0)) {
    return invalid(fmt::format("{}: {} {} is outside -100–1000 (percent change of e2e throughput)",
                               child_pointer(pointer, key), key, describe_value(obj.at(key))));
  }
  return d;
}

Result<std::optional<double>> get_speedup(const json& obj, std::string_view key, const std::string& pointer,
                                          ZeroSpeedup zero)
{
  std::optional<double> s;
  RFDB_TRY_ASSIGN(s, get_double(obj, key, pointer));
  if (s && *s == 0.0 && zero == ZeroSpeedup::means_not_measured) {
    return std::optional<double>();
  }
  if (s && !(*s > 0.0)) {
    return invalid(fmt::format("{}: {} {} must be > 0 (× over baseline)", child_pointer(pointer, key), key,
                               describe_value(obj.at(key))));
  }
  // No lever moves a kernel by three orders of magnitude: such a value is a
  // unit or harness error and would dominate every calibration it entered.
  if (s && (*s > domain::k_max_plausible_speedup || *s < 1.0 / domain::k_max_plausible_speedup)) {
    return invalid(fmt::format("{}: {} {} is implausible (outside 1/{:.0f}–{:.0f}× over baseline)",
                               child_pointer(pointer, key), key, describe_value(obj.at(key)),
                               domain::k_max_plausible_speedup, domain::k_max_plausible_speedup));
  }
  return s;
}

Result<std::optional<double>> get_non_negative(const json& obj, std::string_view key,
                                               const std::string& pointer)
{
  std::optional<double> v;
  RFDB_TRY_ASSIGN(v, get_double(obj, key, pointer));
  if (v && *v < 0.0) {
    return invalid(fmt::format("{}: {} {} must not be negative", child_pointer(pointer, key), key,
                               describe_value(obj.at(key))));
  }
  return v;
}

bool infeasible_roofline_pct(double raw)
{
  return !(raw > domain::k_min_feasible_roofline_pct && raw <= 1.0);
}

std::vector<std::string_view> path_components(std::string_view rel_path)
{
  std::vector<std::string_view> out;
  while (!rel_path.empty()) {
    const auto slash = rel_path.find('/');
    const auto part = rel_path.substr(0, slash);
    if (!part.empty() && part != ".") {
      out.push_back(part);
    }
    if (slash == std::string_view::npos) {
      break;
    }
    rel_path.remove_prefix(slash + 1);
  }
  return out;
}

std::string_view strip_suffix(std::string_view s, std::string_view suffix)
{
  if (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix) {
    s.remove_suffix(suffix.size());
  }
  return s;
}

Result<std::optional<std::string>> first_string(const json& obj, std::initializer_list<std::string_view> keys,
                                                const std::string& pointer)
{
  for (const auto key : keys) {
    std::optional<std::string> v;
    RFDB_TRY_ASSIGN(v, get_string(obj, key, pointer));
    if (v) {
      return v;
    }
  }
  return std::optional<std::string>();
}

// "K=V K2=/abs/path/x.csv" → "K=V K2=x.csv": a lever names what was set, not
// where one run's files lived (instance paths make findings unmergeable).
std::string portable_env(std::string_view env)
{
  std::string out;
  std::size_t i = 0;
  while (i < env.size()) {
    const std::size_t end = std::min(env.find(' ', i), env.size());
    std::string_view token = env.substr(i, end - i);
    const std::size_t eq = token.find('=');
    if (eq != std::string_view::npos) {
      std::string_view value = token.substr(eq + 1);
      if (const std::size_t slash = value.find_last_of('/'); slash != std::string_view::npos) {
        token = token.substr(0, eq + 1);
        out += std::string(token) + std::string(value.substr(slash + 1));
        token = {};
      }
    }
    out += token;
    if (end < env.size()) {
      out += ' ';
    }
    i = end + 1;
  }
  return out;
}

Result<void> read_validation(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings,
                             RunOutcome& o)
{
  RFDB_TRY_ASSIGN(o.validation_status, get_string(doc, "validation_status", ""));
  if (o.validation_status) {
    const domain::Normalized c = domain::validation_class(*o.validation_status);
    o.validation_class = std::string(c.value);
    // Anything that is not a win, a no-win or flagged (phase_partial, a
    // carried A/B, an error) says nothing about the run's outcome: warn, so
    // a reader knows why the run has no validation.
    if (!c.recognized ||
        (domain::is(c.value, domain::ValidationClass::unknown) &&
         !domain::is(util::lower_ascii(*o.validation_status), domain::ValidationStatus::unknown))) {
      warn(warnings, rel_path, "/validation_status",
           fmt::format(
               "validation_status '{}' is not a win, no-win or flagged; classed unknown (raw value kept)",
               *o.validation_status));
    }
  }
  warn_misspelled_keys(doc, {"output_parity", "validation_status"}, "", rel_path, warnings);
  RFDB_TRY_ASSIGN(o.output_parity, get_string(doc, "output_parity", ""));
  return {};
}

std::string describe_lever(const std::optional<std::string>& winner_kind,
                           const std::optional<std::string>& backend, const std::optional<std::string>& env,
                           const std::optional<std::string>& flags)
{
  const std::string kind = util::lower_ascii(winner_kind.value_or(""));
  const std::string env_part = env ? fmt::format(" (env {})", portable_env(*env)) : std::string();
  if (kind == "flag" || kind == "flags") {
    return fmt::format("config: {}", flags.value_or("server flags"));
  }
  if (kind == "authored" || kind == "rewrite") {
    return backend ? fmt::format("authored {} kernel", *backend) : "authored kernel";
  }
  // A patch changes existing code (a config retune, a routing fix): calling
  // it an authored kernel would overstate it.
  if (kind == "patch") {
    return backend ? fmt::format("code patch ({})", *backend) : "code patch";
  }
  if (backend) {
    return fmt::format("backend {}{}", *backend, env_part);
  }
  if (env) {
    return fmt::format("env {}", portable_env(*env));
  }
  return kind.empty() ? std::string("unspecified lever") : kind;
}

std::string attempt_op_class(const std::optional<std::string>& op_kind, std::string_view file,
                             const std::string& pointer, std::vector<Warning>& warnings)
{
  if (!op_kind) {
    return "unknown";
  }
  const domain::Normalized n = domain::normalize_op_class(*op_kind);
  if (!n.recognized) {
    warn(warnings, file, child_pointer(pointer, "op_kind"),
         fmt::format("unknown op_kind '{}' stored as op_class unknown", *op_kind));
  }
  return std::string(n.value);
}

} // namespace detail

std::string AttemptRecord::merge_key() const
{
  if (config_change) {
    return "config|" + *config_change;
  }
  return short_name + "|" + util::lower_ascii(backend.value_or(""));
}

RunOutcome overlay_outcome(RunOutcome lower, const RunOutcome& upper)
{
  const auto take = [](auto& into, const auto& from) {
    if (from) {
      into = from;
    }
  };
  take(lower.model, upper.model);
  take(lower.baseline_throughput_tok_s, upper.baseline_throughput_tok_s);
  take(lower.final_throughput_tok_s, upper.final_throughput_tok_s);
  take(lower.throughput_speedup, upper.throughput_speedup);
  take(lower.output_parity, upper.output_parity);
  if (upper.validation_status) {
    lower.validation_status = upper.validation_status;
    lower.validation_class = upper.validation_class;
  }
  return lower;
}

namespace {

bool all_digits(std::string_view s)
{
  for (const char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return !s.empty();
}

int to_int(std::string_view digits)
{
  int v = 0;
  for (const char c : digits) {
    v = v * 10 + (c - '0');
  }
  return v;
}

} // namespace

std::optional<std::string> run_date_from_dir_name(std::string_view basename)
{
  // "_YYYYmmdd_HHMMSS" = 16 characters, then "_" or the end of the name.
  constexpr std::size_t k_len = 16;
  for (std::size_t i = 0; i + k_len <= basename.size(); ++i) {
    const auto cand = basename.substr(i, k_len);
    const bool bounded = i + k_len == basename.size() || basename[i + k_len] == '_';
    if (cand[0] != '_' || cand[9] != '_' || !bounded || !all_digits(cand.substr(1, 8)) ||
        !all_digits(cand.substr(10, 6))) {
      continue;
    }
    std::string date = fmt::format("{}-{}-{}", cand.substr(1, 4), cand.substr(5, 2), cand.substr(7, 2));
    const bool time_ok = to_int(cand.substr(10, 2)) <= 23 && to_int(cand.substr(12, 2)) <= 59 &&
                         to_int(cand.substr(14, 2)) <= 60;
    if (to_int(cand.substr(1, 4)) >= 1970 && time_ok && util::parse_iso_date(date)) {
      return date;
    }
  }
  return std::nullopt;
}

namespace {

bool is_ident_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

bool closes(char open, char close)
{
  return (open == '<' && close == '>') || (open == '(' && close == ')') || (open == '{' && close == '}') ||
         (open == '[' && close == ']');
}

// Index just past the bracket group opening at `name[i]` ('<', '(', '{' or
// '['), nested groups of any kind included; a closer that does not match the
// innermost open group (the '>' of "->") is text. name.size() when unclosed.
std::size_t skip_group(std::string_view name, std::size_t i)
{
  std::string stack;
  for (; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '{' || c == '[') {
      stack += c;
    } else if (!stack.empty() && closes(stack.back(), c)) {
      stack.pop_back();
      if (stack.empty()) {
        return i + 1;
      }
    }
  }
  return name.size();
}

// One segment of a qualified name: an identifier, an operator, or a scope
// that names nothing ("(anonymous namespace)", "{lambda(int)#1}").
struct NameSegment {
  std::string text;
  bool anonymous = false;
};

// The function's own name among the segments of its qualified name: the last
// named segment, `operator()` standing for the class or function that holds it.
std::string own_name(const std::vector<NameSegment>& segments)
{
  for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
    if (it->anonymous || it->text.empty()) {
      continue;
    }
    if (it->text == "operator()" && std::next(it) != segments.rend()) {
      continue;
    }
    return it->text;
  }
  return {};
}

} // namespace

std::string derive_short_name(std::string_view name)
{
  constexpr std::size_t k_max_len = 60;
  constexpr std::string_view k_anonymous = "(anonymous namespace)";
  name = util::trim(name);
  // The words of the name at depth 0: a declaration's return type, then its
  // qualified name; `words` holds the finished ones, `segments` the current.
  std::vector<std::vector<NameSegment>> words;
  std::vector<NameSegment> segments;
  std::string current;
  bool declaration = false; // template or parameter list seen: the last word is the name
  const auto end_segment = [&] {
    if (!current.empty()) {
      segments.push_back({std::move(current), false});
      current.clear();
    }
  };
  const auto end_word = [&] {
    end_segment();
    if (!segments.empty()) {
      words.push_back(std::move(segments));
      segments.clear();
    }
  };
  std::size_t i = 0;
  while (i < name.size()) {
    const char c = name[i];
    if (is_ident_char(c)) {
      current += c;
      ++i;
    } else if (current == "operator" && c != ' ') {
      // operator(), operator<, operator[] ...: the symbol is part of the name.
      const std::size_t sym = name.substr(i, 2) == "()" || name.substr(i, 2) == "[]" ? 2 : 1;
      current.append(name.substr(i, sym));
      i += sym;
      while (i < name.size() && std::string_view("<>=+-*/%&|^!~").find(name[i]) != std::string_view::npos) {
        current += name[i++];
      }
    } else if (name.substr(i, 2) == "::") {
      end_segment();
      i += 2;
    } else if (name.substr(i, k_anonymous.size()) == k_anonymous) {
      end_segment();
      segments.push_back({std::string(k_anonymous), true});
      i += k_anonymous.size();
    } else if (c == '<') {
      end_segment();
      declaration = true;
      i = skip_group(name, i);
    } else if (c == '{' || c == '[') { // {lambda(int)#1}, [clone .cold]
      end_segment();
      if (c == '{') {
        segments.push_back({std::string(name.substr(i, skip_group(name, i) - i)), true});
      }
      i = skip_group(name, i);
    } else if (c == '(') {
      if (i > 0 && name[i - 1] == ' ') {
        break; // prose ("Memcpy HtoD (Device -> Host)"), not a parameter list
      }
      end_segment();
      declaration = true;
      i = skip_group(name, i);
      // A function-local entity continues after "::" (`f(int)::{lambda()#1}`,
      // `g() const::{lambda()#2}`); otherwise the parameter list ends the name.
      std::size_t j = i;
      while (j < name.size() && name[j] == ' ') {
        ++j;
      }
      if (name.substr(j, 5) == "const") {
        j += 5;
      }
      if (name.substr(j, 2) != "::") {
        break;
      }
      i = j;
    } else if (c == ' ' || c == '*' || c == '&') {
      end_word();
      ++i;
    } else {
      break; // '.' of "kernel.kd", ',' ...: the name ended
    }
  }
  end_word();
  std::string out;
  if (!words.empty()) {
    // A declaration names its function last (after the return type); a plain
    // name of several words is named by its first.
    out = own_name(declaration ? words.back() : words.front());
  }
  if (out.empty()) {
    out = std::string(name);
  }
  return out.substr(0, k_max_len);
}

} // namespace rfdb::ingest
