// Vocabulary normalizers for legacy knowledge: kernel class → op_class,
// gfx, and the numbers stated in an `effect` (the regime lives in normalize_lever.cpp).
#include "ingest/knowledge/detail.hpp"
#include "ingest/knowledge/knowledge.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>

namespace rfdb::ingest::knowledge {

namespace {

// Lower-case ASCII words separated by single spaces, padded with one space
// on each side, so " word " finds whole words and phrases: "dense_gemm" and
// "Dense-GEMM" both become " dense gemm ".
std::string word_text(std::string_view raw)
{
  std::string out = " ";
  for (const char c : util::lower_ascii(raw)) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum) {
      out += c;
    } else if (out.back() != ' ') {
      out += ' ';
    }
  }
  if (out.back() != ' ') {
    out += ' ';
  }
  return out;
}

bool has_word(const std::string& words, std::initializer_list<std::string_view> list)
{
  return std::any_of(list.begin(), list.end(), [&](std::string_view w) {
    return words.find(" " + std::string(w) + " ") != std::string::npos;
  });
}

bool has_part(const std::string& words, std::initializer_list<std::string_view> list)
{
  return std::any_of(list.begin(), list.end(),
                     [&](std::string_view w) { return words.find(w) != std::string::npos; });
}

} // namespace

// Priority matters: "MoE grouped GEMM" is moe before gemm, "quantized gemm"
// is gemm before the quant words, "Amdahl budgeting for the (FLA) cluster"
// is a method before attention. A kernel fusion naming the shared expert is
// moe (it lives in the MoE block).
std::string normalize_kernel_class(std::string_view raw)
{
  const std::string w = word_text(raw);
  if (w == " ") {
    return "unknown";
  }
  if (has_word(w, {"method", "methodology", "a b", "amdahl", "engagement", "measurement"}) ||
      has_part(w, {"harness", "graph integration", "seam resolution"})) {
    return "method";
  }
  if (has_word(w, {"moe", "expert", "experts"}) || has_part(w, {"grouped gemm"})) {
    return "moe";
  }
  if (has_part(w, {"attention", "attn", "mamba", "gated delta", "fmha"}) ||
      has_word(w, {"mla", "fla", "nsa", "gqa", "mha", "mqa", "sdpa", "paged"})) {
    return "attn";
  }
  if (has_part(w, {"topk", "softmax"}) || has_word(w, {"routing", "router"})) {
    return "elementwise";
  }
  if (has_part(w, {"gemm", "gemv", "matmul", "blas"}) || has_word(w, {"linear", "mm"})) {
    return "gemm";
  }
  if (has_part(w, {"elementwise", "reduction", "norm", "quant", "permute", "activation", "transpose",
                   "concat", "memcpy", "memory movement"}) ||
      has_word(w, {"cast", "copy", "rope", "silu", "gelu", "fill", "layout", "cat"})) {
    return "elementwise";
  }
  return "unknown";
}

std::vector<std::string> extract_all_gfx(std::string_view text)
{
  std::vector<std::string> out;
  const std::string lower = util::lower_ascii(text);
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t pos = lower.find("gfx"); pos != std::string::npos; pos = lower.find("gfx", pos + 3)) {
    std::size_t end = pos + 3;
    while (end < lower.size() && is_digit(lower[end])) {
      ++end;
    }
    if (end == pos + 3) {
      continue;
    }
    while (end < lower.size() && lower[end] >= 'a' && lower[end] <= 'z') {
      ++end;
    }
    std::string id = lower.substr(pos, end - pos);
    if (std::find(out.begin(), out.end(), id) == out.end()) {
      out.push_back(std::move(id));
    }
  }
  return out;
}

std::string extract_gfx(std::string_view text)
{
  auto all = extract_all_gfx(text);
  return all.empty() ? std::string() : all.front();
}

namespace {

// A number read from the effect text: value and the byte range it covered.
struct Number {
  double value = 0.0;
  std::size_t end = 0;
  bool decimal = false;
};

bool is_ascii_alnum(char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// An unsigned decimal at `pos` ("1.047", "12"); nullopt when there is none.
std::optional<Number> read_number(std::string_view s, std::size_t pos)
{
  std::size_t end = pos;
  bool decimal = false;
  while (end < s.size() &&
         ((s[end] >= '0' && s[end] <= '9') || (s[end] == '.' && !decimal && end + 1 < s.size() &&
                                               s[end + 1] >= '0' && s[end + 1] <= '9' && end > pos))) {
    decimal = decimal || s[end] == '.';
    ++end;
  }
  if (end == pos) {
    return std::nullopt;
  }
  double value = 0.0;
  const auto res = std::from_chars(s.data() + pos, s.data() + end, value);
  if (res.ec != std::errc() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return Number{value, end, decimal};
}

// Length of a range separator at `pos` ("–", "—", "..", "…", "-", " to "), or 0.
std::size_t range_separator(std::string_view s, std::size_t pos)
{
  for (std::string_view sep : {"\xE2\x80\x93", "\xE2\x80\x94", "..", "\xE2\x80\xA6", "-", " to "}) {
    if (s.substr(pos, sep.size()) == sep) {
      return sep.size();
    }
  }
  return 0;
}

// Length of a signed-number sign at `pos` ("+", "-", U+2212 "−"), or 0.
std::size_t sign_length(std::string_view s, std::size_t pos, double& sign)
{
  if (s.substr(pos, 3) == "\xE2\x88\x92" || s.substr(pos, 1) == "-") {
    sign = -1.0;
    return s[pos] == '-' ? 1 : 3;
  }
  sign = 1.0;
  return s.substr(pos, 1) == "+" ? 1 : 0;
}

// Length of a multiplication mark at `pos`: "×", or "x"/"X" not followed by
// a letter or digit ("1.047x" yes, "32x32" no); 0 otherwise.
std::size_t times_mark(std::string_view s, std::size_t pos)
{
  if (s.substr(pos, 2) == "\xC3\x97") {
    return 2;
  }
  if (pos < s.size() && (s[pos] == 'x' || s[pos] == 'X') &&
      (pos + 1 >= s.size() || !is_ascii_alnum(s[pos + 1]))) {
    return 1;
  }
  return 0;
}

struct Figure {
  double lo = 0.0;
  double hi = 0.0;
  bool operator==(const Figure&) const = default;
};

void add_distinct(std::vector<Figure>& figures, Figure f)
{
  if (f.lo > f.hi) {
    std::swap(f.lo, f.hi);
  }
  if (std::find(figures.begin(), figures.end(), f) == figures.end()) {
    figures.push_back(f);
  }
}

// True when "e2e" (or "end-to-end") directly follows `end` or precedes `begin`.
bool tagged_e2e(std::string_view s, std::size_t begin, std::size_t end)
{
  std::size_t j = end;
  while (j < s.size() && (s[j] == ' ' || s[j] == '*')) {
    ++j;
  }
  if (util::starts_with_ci(s.substr(j), "e2e") || util::starts_with_ci(s.substr(j), "end-to-end")) {
    return true;
  }
  std::string_view before = s.substr(0, begin);
  while (!before.empty() && std::string_view(" :=*~(").find(before.back()) != std::string_view::npos) {
    before.remove_suffix(1);
  }
  return before.size() >= 3 && util::lower_ascii(before.substr(before.size() - 3)) == "e2e";
}

// True when the figure at [begin, end) sits in parentheses that describe a
// throughput ratio ("(133.8 -> 152.8 tok/s, 1.14x)"), which is e2e, not iso.
bool in_throughput_parens(std::string_view s, std::size_t begin, std::size_t end)
{
  const std::size_t open = s.rfind('(', begin);
  if (open == std::string_view::npos || s.find(')', open) < begin) {
    return false;
  }
  const std::size_t close = s.find(')', end);
  const std::string inside = util::lower_ascii(
      s.substr(open, close == std::string_view::npos ? std::string_view::npos : close - open));
  return inside.find("tok/s") != std::string::npos || inside.find("e2e") != std::string::npos;
}

// The words of the clause just before `begin` / just after `end` (at most
// 32 bytes, stopping at , ; ( ) ), lower-cased: what labels a figure.
std::string clause_before(std::string_view s, std::size_t begin)
{
  std::size_t from = begin > 32 ? begin - 32 : 0;
  const std::size_t stop = s.substr(0, begin).find_last_of(",;()");
  if (stop != std::string_view::npos && stop + 1 > from) {
    from = stop + 1;
  }
  return util::lower_ascii(s.substr(from, begin - from));
}

std::string clause_after(std::string_view s, std::size_t end)
{
  const std::string_view rest = s.substr(std::min(end, s.size()), 32);
  return util::lower_ascii(rest.substr(0, rest.find_first_of(",;()")));
}

bool mentions_any(const std::string& text, std::initializer_list<std::string_view> words)
{
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view w) { return text.find(w) != std::string::npos; });
}

struct IsoFigure {
  Figure fig;
  bool aggregate = false; // labelled geomean / overall / serving-weighted
};

// Isolated-speedup figures: "1.22×", "1.08–1.22×", "1.08×–1.22×", "0.851x".
// The number before the mark must be a decimal, which keeps "8x MI300X" and
// "32x32" out; e2e-tagged ratios and throughput ratios are not isolated.
std::vector<IsoFigure> iso_figures(std::string_view s)
{
  std::vector<IsoFigure> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const bool boundary = i == 0 || (!is_ascii_alnum(s[i - 1]) && s[i - 1] != '.');
    auto first = boundary ? read_number(s, i) : std::nullopt;
    if (!first) {
      ++i;
      continue;
    }
    std::size_t end = first->end;
    Figure fig{first->value, first->value};
    bool found = false;
    if (const auto mark = times_mark(s, end); mark > 0 && first->decimal) {
      end += mark;
      found = true;
    }
    if (const auto sep = range_separator(s, end); sep > 0) {
      auto second = read_number(s, end + sep);
      if (second && second->decimal) {
        if (const auto mark = times_mark(s, second->end); mark > 0) {
          fig.hi = second->value;
          end = second->end + mark;
          found = true;
        }
      }
    }
    if (found && fig.lo > 0.0 && fig.hi < 1000.0 && !tagged_e2e(s, i, end) &&
        !in_throughput_parens(s, i, end)) {
      const std::string label = clause_before(s, i) + " " + clause_after(s, end);
      out.push_back({fig, mentions_any(label, {"geomean", "geo-mean", "overall", "serving-weighted",
                                               "serving-wtd", "weighted"})});
    }
    i = std::max(end, i + 1);
  }
  return out;
}

// True when the words around a figure mark a projection, not a measurement
// ("Amdahl ceiling only +4.9%", "~+1-4% e2e ceiling").
bool projected(std::string_view s, std::size_t begin, std::size_t end)
{
  return mentions_any(clause_before(s, begin) + " " + clause_after(s, end),
                      {"ceiling", "projected", "expected", "estimate", "up to", "\xE2\x89\xA4"});
}

struct PercentFigure {
  Figure fig;
  bool tagged = false; // "e2e" directly before or after
  bool is_signed = false;
};

// Percentage figures: "+2.23%", "−0.064 %", "+10.40%..+11.45%", "+11-18%".
std::vector<PercentFigure> percent_figures(std::string_view s)
{
  std::vector<PercentFigure> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const bool boundary = i == 0 || (!is_ascii_alnum(s[i - 1]) && s[i - 1] != '.' && s[i - 1] != ')');
    double sign = 1.0;
    const std::size_t sign_len = boundary ? sign_length(s, i, sign) : 0;
    std::size_t num_pos = i + sign_len;
    if (sign_len > 0 && s.substr(num_pos, 1) == "~") {
      ++num_pos;
    }
    const bool digit_boundary = sign_len > 0 || boundary;
    auto first = digit_boundary ? read_number(s, num_pos) : std::nullopt;
    if (!first) {
      ++i;
      continue;
    }
    Figure fig{sign * first->value, sign * first->value};
    std::size_t end = first->end;
    bool percent = false;
    const auto read_percent = [&](std::size_t at) -> std::size_t {
      if (s.substr(at, 1) == "%") {
        return at + 1;
      }
      return s.substr(at, 2) == " %" ? at + 2 : 0;
    };
    if (const auto p = read_percent(end); p > 0) {
      end = p;
      percent = true;
    }
    if (const auto sep = range_separator(s, end); sep > 0) {
      double sign2 = 1.0;
      const std::size_t s2 = sign_length(s, end + sep, sign2);
      auto second = read_number(s, end + sep + s2);
      const auto p = second ? read_percent(second->end) : 0;
      if (second && p > 0) {
        fig.hi = (s2 > 0 ? sign2 : (fig.lo < 0 ? -1.0 : 1.0)) * second->value;
        end = p;
        percent = true;
      }
    }
    if (percent && !projected(s, i, end)) {
      if (fig.lo > fig.hi) {
        std::swap(fig.lo, fig.hi);
      }
      out.push_back({fig, tagged_e2e(s, i, end), sign_len > 0});
    }
    i = percent ? end : i + 1;
  }
  return out;
}

} // namespace

// Unambiguous means one distinct figure, or one headline. iso: the one ×
// figure, else the first one when it is the only aggregate (geomean, overall,
// serving-weighted) and per-case figures follow. e2e: the
// headline — the first signed or e2e-tagged percentage — when it is the only
// distinct figure tagged "e2e"; with none tagged, the one signed percentage,
// unless the effect talks about isolated ("iso") numbers.
EffectNumbers extract_effect_numbers(std::string_view effect)
{
  EffectNumbers out;
  const auto iso = iso_figures(effect);
  std::vector<Figure> iso_all;
  std::vector<Figure> iso_aggregate;
  for (const auto& f : iso) {
    add_distinct(iso_all, f.fig);
    if (f.aggregate) {
      add_distinct(iso_aggregate, f.fig);
    }
  }
  if (iso_all.size() == 1 || (!iso.empty() && iso.front().aggregate && iso_aggregate.size() == 1)) {
    out.iso_min = iso.front().fig.lo;
    out.iso_max = iso.front().fig.hi;
  }
  std::vector<Figure> tagged;
  std::vector<Figure> signed_only;
  std::optional<PercentFigure> headline;
  for (const auto& p : percent_figures(effect)) {
    if (p.tagged || p.is_signed) {
      headline = headline ? headline : p;
      add_distinct(p.tagged ? tagged : signed_only, p.fig);
    }
  }
  const bool mentions_iso = util::lower_ascii(effect).find("iso") != std::string::npos;
  std::optional<Figure> e2e;
  if (tagged.size() == 1 && headline->tagged) {
    e2e = tagged.front();
  } else if (tagged.empty() && signed_only.size() == 1 && !mentions_iso) {
    e2e = signed_only.front();
  }
  if (e2e) {
    out.e2e_min_pct = e2e->lo;
    out.e2e_max_pct = e2e->hi;
  }
  return out;
}

namespace detail {

} // namespace detail

} // namespace rfdb::ingest::knowledge
