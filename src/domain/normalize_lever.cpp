// The reuse vocabulary shared by run attempts, imported knowledge and the
// playbook: the regime of a reuse key and the lever key (declared in
// domain/normalize.hpp). Every spelling rule lives in the tables below, so a
// new synonym is one table row, and tests/unit/domain/normalize_test.cpp
// checks each row against the duplicate pairs of the legacy knowledge.
#include "domain/normalize.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rfdb::domain {

namespace {

bool is_alnum(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Words that only say what kind of lever follows ("config: --x", "env X=1").
constexpr std::array<std::string_view, 8> k_lead_words = {"config", "configs", "env", "flag",
                                                          "flags",  "export",  "set", "lever"};

// Spellings of one name: case, '-' / '_' / space and split words are folded
// before this table applies, so each row lists the folded spellings only.
// Backend names, split-k/-kv and graph capture are the ones seen spelled
// several ways in runs and cards.
struct Synonym {
  std::string_view canonical; // one word
  std::array<std::string_view, 4> spellings;
};
constexpr std::array<Synonym, 9> k_synonyms = {{
    {"splitk", {"split k", "splitk", "split k gemm", ""}},
    {"splitkv", {"split kv", "splitkv", "kv split", "kv splits"}},
    {"hipblaslt", {"hipblas lt", "hip blas lt", "hipblaslt", ""}},
    {"ck", {"composable kernel", "composable kernels", "composablekernel", "ck tile"}},
    {"tunableop", {"tunable op", "tunableop", "pytorch tunableop", "tunable ops"}},
    {"cudagraph", {"cuda graph", "cuda graphs", "hip graph", "hip graphs"}},
    {"flydsl", {"fly dsl", "flydsl", "", ""}},
    {"rocblas", {"roc blas", "rocblas", "", ""}},
    {"ab", {"a b", "a b test", "", ""}},
}};

// Levers known by several descriptions. A text names the lever when one of
// its patterns matches: each pattern is one or more folded phrases joined by
// '&', all of which must appear as whole words. The lever named first in the
// text wins (table order breaks ties). `classes` lists the op classes a lever
// can belong to: a finding filed under another class does not name it (a
// method card that mentions split-K as an example is not a split-K lever).
struct KnownLever {
  std::string_view key;
  std::string_view classes; // space-separated op classes; "" = any
  std::array<std::string_view, 6> patterns;
};
constexpr std::array<KnownLever, 10> k_known_levers = {{
    // A serving flag: the value is part of the lever (triton ≠ aiter).
    {"attention_backend=triton",
     "attn config",
     {"attention backend triton", "triton attention backend", "attention backend to triton",
      "vllm attention backend triton", "", ""}},
    {"attention_backend=aiter",
     "attn config",
     {"attention backend aiter", "aiter attention backend", "attention backend to aiter", "", "", ""}},
    // aiter's per-shape GEMM tables, deployed by env: the fp8 block-scale
    // table (CK instances) is its own lever, apart from the bf16 tuned_gemm DB.
    {"aiter_tuned_gemm_a8w8_blockscale",
     "gemm",
     {"aiter config gemm a8w8 blockscale", "a8w8 blockscale&tuned csv", "a8w8 blockscale&tuned table", "", "",
      ""}},
    {"aiter_tuned_gemm",
     "gemm",
     {"aiter config gemm", "aiter tuned gemm", "aiter&tuned gemm", "aiter&per shape db", "aiter&tuned table",
      "aiter&gemm table"}},
    // vLLM's fused-MoE per-shape config folder (a tile-only tune).
    {"moe_config_tune",
     "moe",
     {"vllm tuned config folder", "moe config tune", "fused moe config tune", "tuned moe config",
      "moe&per shape config", "fused moe&config table"}},
    // PyTorch's per-shape BLAS selection.
    {"tunableop",
     "gemm",
     {"tunableop", "per shape table race", "per shape blas", "pytorch&per shape table", "", ""}},
    {"splitk", "gemm moe attn", {"splitk", "", "", "", "", ""}},
    {"splitkv", "attn", {"splitkv", "num splitkv", "", "", "", ""}},
    // Measurement method: interleaved legs on one GPU with a pinned port.
    {"interleaved_ab_pinned_port",
     "method",
     {"interleaved ab", "pinned port", "pin port", "pin the port", "", ""}},
    // Routing: many small editable kernels stacked and measured as one.
    {"stack_editable_cluster",
     "method attn elementwise",
     {"stack and compound", "combined cluster", "amdahl&editable", "carry forward&cluster", "", ""}},
}};

// An env value that names a file, a path or a placeholder is an instance
// detail (`AITER_CONFIG_GEMM_BF16=<tuned.csv>` vs `=bf16_tuned_gemm.csv`):
// keep the variable, drop the value.
std::string drop_instance_values(std::string_view text)
{
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find_first_of(" \t\n", pos), text.size());
    std::string_view word = text.substr(pos, end - pos);
    const std::size_t eq = word.find('=');
    if (eq != std::string_view::npos &&
        word.substr(eq + 1).find_first_of("./<$~") != std::string_view::npos) {
      word = word.substr(0, eq);
    }
    out += word;
    out += end < text.size() ? " " : "";
    pos = end + 1;
  }
  return out;
}

// Replace whole-word spellings by their canonical word.
std::string apply_synonyms(std::string padded)
{
  for (const auto& s : k_synonyms) {
    for (const auto spelling : s.spellings) {
      if (spelling.empty()) {
        continue;
      }
      const std::string from = " " + std::string(spelling) + " ";
      const std::string to = " " + std::string(s.canonical) + " ";
      for (std::size_t at = padded.find(from); at != std::string::npos; at = padded.find(from, at + 1)) {
        padded.replace(at, from.size(), to);
      }
    }
  }
  return padded;
}

// True when `<` at `i` opens a `<placeholder>`: a short word run closed by
// `>`, not glued to a preceding word ("rel<1e-2" is a comparison) and not a
// markdown autolink (`<https://…>`, whose text counts).
bool placeholder_at(std::string_view text, std::size_t i, std::size_t& close)
{
  close = text.find('>', i);
  if (close == std::string_view::npos || close - i > 40 ||
      (i > 0 && is_alnum(util::lower_ascii(text[i - 1])))) {
    return false;
  }
  const std::string_view inside = text.substr(i + 1, close - i - 1);
  return !inside.empty() && inside.find_first_of(" \t\n") == std::string_view::npos &&
         inside.find("://") == std::string_view::npos;
}

// " words of the text " padded with spaces, after folding and synonyms.
std::string padded_words(std::string_view text)
{
  const std::string kept = drop_instance_values(text);
  std::string out = " ";
  for (std::size_t i = 0; i < kept.size(); ++i) {
    std::size_t close = 0;
    if (kept[i] == '<' && placeholder_at(kept, i, close)) {
      i = close;
      continue;
    }
    const char c = util::lower_ascii(kept[i]);
    if (is_alnum(c)) {
      out += c;
    } else if (out.back() != ' ') {
      out += ' ';
    }
  }
  if (out.back() != ' ') {
    out += ' ';
  }
  return apply_synonyms(out);
}

// Where `pattern` matches in `padded`: the start of its first phrase to
// appear and the end of its last, or nullopt when a phrase is missing.
std::optional<std::pair<std::size_t, std::size_t>> match_span(const std::string& padded,
                                                              std::string_view pattern)
{
  std::size_t begin = std::string::npos;
  std::size_t end = 0;
  while (!pattern.empty()) {
    const std::size_t amp = pattern.find('&');
    const std::string phrase = " " + std::string(pattern.substr(0, amp)) + " ";
    const std::size_t at = padded.find(phrase);
    if (at == std::string::npos) {
      return std::nullopt;
    }
    begin = std::min(begin, at);
    end = std::max(end, at + phrase.size());
    pattern = amp == std::string_view::npos ? std::string_view() : pattern.substr(amp + 1);
  }
  return std::make_pair(begin, end);
}

bool applies_to(const KnownLever& lever, std::string_view op_class)
{
  if (lever.classes.empty() || op_class.empty() || op_class == "unknown") {
    return true;
  }
  const std::string padded = " " + std::string(lever.classes) + " ";
  return padded.find(" " + std::string(op_class) + " ") != std::string::npos;
}

} // namespace

Regime regime_of(std::string_view raw)
{
  const std::string w = padded_words(raw);
  if (w == " ") {
    return Regime::unknown;
  }
  for (std::string_view both :
       {" both ", " mixed ", " any ", " all ", " prefill decode ", " decode prefill "}) {
    if (w == both) {
      return Regime::both;
    }
  }
  const auto has = [&](std::string_view part) { return w.find(part) != std::string::npos; };
  const bool decode = has("decode") || has("decoding");
  const bool prefill = has("prefill") || has("prompt");
  if (decode && prefill) {
    return Regime::both;
  }
  if (decode || prefill) {
    return decode ? Regime::decode : Regime::prefill;
  }
  return has(" both ") || has(" mixed ") ? Regime::both : Regime::unknown;
}

std::string normalize_regime(std::string_view raw)
{
  return std::string(to_string(regime_of(raw)));
}

std::string fold_lever_text(std::string_view text)
{
  const std::string padded = padded_words(text);
  std::vector<std::string> words;
  for (std::size_t pos = 1; pos < padded.size();) {
    const std::size_t end = padded.find(' ', pos);
    words.push_back(padded.substr(pos, end - pos));
    pos = end + 1;
  }
  std::size_t first = 0;
  while (first < words.size() &&
         std::find(k_lead_words.begin(), k_lead_words.end(), words[first]) != k_lead_words.end()) {
    ++first;
  }
  std::string out;
  for (std::size_t i = first; i < words.size(); ++i) {
    out += (out.empty() ? "" : " ") + words[i];
  }
  return out;
}

std::string known_lever(std::string_view text, std::string_view op_class)
{
  const std::string padded = padded_words(text);
  // The earliest match wins; at the same start the longer (more specific)
  // one, then table order.
  std::string_view best;
  std::optional<std::pair<std::size_t, std::size_t>> best_span;
  for (const auto& lever : k_known_levers) {
    if (!applies_to(lever, op_class)) {
      continue;
    }
    for (const auto pattern : lever.patterns) {
      const auto span = pattern.empty() ? std::nullopt : match_span(padded, pattern);
      if (span && (!best_span || span->first < best_span->first ||
                   (span->first == best_span->first && span->second > best_span->second))) {
        best_span = span;
        best = lever.key;
      }
    }
  }
  return std::string(best);
}

namespace {

bool flag_char(char c)
{
  return is_alnum(util::lower_ascii(c)) || c == '-' || c == '_';
}

// "--max-num-batched-tokens" → "max_num_batched_tokens".
std::string flag_name(std::string_view raw)
{
  std::string out;
  for (const char c : raw) {
    out += c == '-' ? '_' : util::lower_ascii(c);
  }
  return out;
}

} // namespace

std::string flag_lever(std::string_view text)
{
  // Every `--name` token (a word boundary before the dashes).
  std::vector<std::pair<std::size_t, std::size_t>> flags; // [begin, end) of the name after "--"
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    if (text[i] == '-' && text[i + 1] == '-' && is_alnum(util::lower_ascii(text[i + 2])) &&
        (i == 0 || !flag_char(text[i - 1]))) {
      std::size_t end = i + 2;
      while (end < text.size() && flag_char(text[end])) {
        ++end;
      }
      flags.emplace_back(i + 2, end);
      i = end;
    }
  }
  if (flags.empty()) {
    return {};
  }
  const std::string name = flag_name(text.substr(flags[0].first, flags[0].second - flags[0].first));
  for (const auto& [b, e] : flags) {
    if (flag_name(text.substr(b, e - b)) != name) {
      return {}; // several flags: a combination, not one flag lever
    }
  }
  // The value: after '=', or the rest of a text that is only the flag and its
  // value, or the rest of the code span the flag opens.
  const std::size_t end = flags[0].second;
  std::string_view value;
  if (end < text.size() && text[end] == '=') {
    const std::size_t stop = text.find_first_of(" \t\n`'\")", end + 1);
    value = text.substr(end + 1, stop == std::string_view::npos ? std::string_view::npos : stop - end - 1);
  } else {
    const std::string before = fold_lever_text(text.substr(0, flags[0].first));
    const std::size_t tick_open = text.rfind('`', flags[0].first);
    const bool in_span = tick_open != std::string_view::npos && tick_open + 3 == flags[0].first;
    const std::size_t tick_close = in_span ? text.find('`', end) : std::string_view::npos;
    if (in_span && tick_close != std::string_view::npos) {
      value = text.substr(end, tick_close - end);
    } else if (before.empty() && !in_span) {
      value = text.substr(end);
    }
  }
  const std::string folded = fold_lever_text(value);
  std::string out = "--" + name;
  if (!folded.empty()) {
    out += "=";
    for (const char c : folded) {
      out += c == ' ' ? '_' : c;
    }
  }
  return out;
}

bool is_authored_variant(std::string_view text)
{
  text = util::trim(text);
  if (!(text.starts_with("authored ") || text.starts_with("code patch (")) || !text.ends_with(")")) {
    return false;
  }
  const std::size_t open = text.rfind('(');
  std::string_view inside = text.substr(open + 1, text.size() - open - 2);
  if (const std::size_t comma = inside.rfind(", "); comma != std::string_view::npos) {
    inside.remove_prefix(comma + 2);
  } else if (text.starts_with("code patch (")) {
    return false; // "code patch (<backend>)": no variant
  }
  const std::string variant = util::lower_ascii(inside);
  return variant == "split-k" || variant == "split-kv" || variant == "stream-k" || variant == "decode-tile" ||
         variant == "whole-file";
}

std::string lever_key(std::string_view text, std::string_view op_class)
{
  if (is_authored_variant(text)) {
    return fold_lever_text(text);
  }
  if (std::string known = known_lever(text, op_class); !known.empty()) {
    return known;
  }
  if (std::string flag = flag_lever(text); !flag.empty()) {
    return flag;
  }
  return fold_lever_text(text);
}

} // namespace rfdb::domain
