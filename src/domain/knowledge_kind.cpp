// The kind of an imported finding, read from its own text (rules in
// knowledge_kind.hpp and docs/playbook.md).
#include "domain/knowledge_kind.hpp"

#include "domain/roofline.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace rfdb::domain {

namespace {

constexpr std::array<std::string_view, 7> k_kind_names{
    "positive_measured", "in_noise", "negative", "method", "seam_fact", "routing_note", "archived"};

constexpr std::string_view k_minus = "\xE2\x88\x92";   // U+2212
constexpr std::string_view k_en_dash = "\xE2\x80\x93"; // U+2013
constexpr std::string_view k_times = "\xC3\x97";       // U+00D7

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

bool is_word(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool at(std::string_view s, std::size_t i, std::string_view what)
{
  return i <= s.size() && s.substr(i, what.size()) == what;
}

bool ends_with_at(std::string_view s, std::size_t end, std::string_view what)
{
  return end >= what.size() && s.substr(end - what.size(), what.size()) == what;
}

// A number at `i`: digits with an optional fraction. Sets `value`,
// `decimals` and returns the offset past it (i when none).
std::size_t read_number(std::string_view s, std::size_t i, double& value, int& decimals)
{
  std::size_t j = i;
  while (j < s.size() && is_digit(s[j])) {
    ++j;
  }
  if (j == i) {
    return i;
  }
  decimals = 0;
  if (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) {
    ++j;
    while (j < s.size() && is_digit(s[j])) {
      ++j;
      ++decimals;
    }
  }
  const auto r = std::from_chars(s.data() + i, s.data() + j, value);
  return r.ec == std::errc() ? j : i;
}

// An optional "~" and sign before `i` (either order): "+~5", "~+11", "−0.2".
void read_prefix(std::string_view s, std::size_t i, bool& is_signed, bool& negative, bool& approx,
                 std::size_t& start)
{
  start = i;
  for (int step = 0; step < 2; ++step) {
    if (start > 0 && s[start - 1] == '~') {
      approx = true;
      --start;
    } else if (start > 0 && s[start - 1] == '+') {
      is_signed = true;
      --start;
    } else if (ends_with_at(s, start, k_minus)) {
      is_signed = negative = true;
      start -= k_minus.size();
    } else if (start > 0 && s[start - 1] == '-' && (start == 1 || !is_word(s[start - 2]))) {
      is_signed = negative = true;
      --start;
    } else if (ends_with_at(s, start, k_en_dash) &&
               (start == k_en_dash.size() || s[start - k_en_dash.size() - 1] == ' ' ||
                s[start - k_en_dash.size() - 1] == '(')) {
      is_signed = negative = true; // "e2e –1.4%": an en dash used as a minus sign
      start -= k_en_dash.size();
    }
  }
}

// The unit at `i` (one optional space first): '%' or an × sign; returns the
// offset past it, or i when there is none.
std::size_t read_unit(std::string_view s, std::size_t i, StatedFigure::Metric& metric)
{
  std::size_t j = i;
  if (j < s.size() && s[j] == ' ') {
    ++j;
  } else if (at(s, j, "\u202F") || at(s, j, "\u00A0")) {
    j += at(s, j, "\u202F") ? std::string_view("\u202F").size() : std::string_view("\u00A0").size();
  }
  if (at(s, j, "%")) {
    metric = StatedFigure::Metric::e2e_pct;
    return j + 1;
  }
  std::size_t past = j;
  if (at(s, j, k_times)) {
    past = j + k_times.size();
  } else if (j < s.size() && (s[j] == 'x' || s[j] == 'X') && j == i) {
    past = j + 1;
  } else {
    return i;
  }
  if (past < s.size() && is_word(s[past])) {
    return i; // "4x4", "xgmi"
  }
  metric = StatedFigure::Metric::isolated;
  return past;
}

// A range separator at `i` ("-", "–", "..", " to "); returns the offset past
// it, or i.
std::size_t read_range_sep(std::string_view s, std::size_t i)
{
  for (std::string_view sep :
       {std::string_view("-"), k_en_dash, std::string_view(" .. "), std::string_view(".."),
        std::string_view(" to "), std::string_view(" - "), std::string_view(" \u2013 ")}) {
    if (at(s, i, sep)) {
      return i + sep.size();
    }
  }
  return i;
}

std::string lower_window(std::string_view s, std::size_t from, std::size_t to)
{
  from = std::min(from, s.size());
  to = std::min(std::max(to, from), s.size());
  return util::lower_ascii(s.substr(from, to - from));
}

// The text before `pos` back to the clause start (". ", "; ", "(", at most `n` bytes).
std::string clause_before(std::string_view s, std::size_t pos, std::size_t n)
{
  const std::size_t from = pos > n ? pos - n : 0;
  std::string w = lower_window(s, from, pos);
  for (std::string_view cut : {". ", "; ", "("}) {
    if (const auto k = w.rfind(cut); k != std::string::npos) {
      w.erase(0, k + cut.size());
    }
  }
  return w;
}

// The text after `pos` to the clause end (". ", "; ", at most `n` bytes).
std::string clause_after(std::string_view s, std::size_t pos, std::size_t n)
{
  std::string w = lower_window(s, pos, pos + n);
  for (std::string_view cut : {". ", "; "}) {
    if (const auto k = w.find(cut); k != std::string::npos) {
      w.resize(k);
    }
  }
  return w;
}

bool contains_any(std::string_view hay, std::initializer_list<std::string_view> needles)
{
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return hay.find(n) != std::string_view::npos; });
}

bool starts_any(std::string_view hay, std::initializer_list<std::string_view> needles)
{
  while (!hay.empty() && (hay.front() == ' ' || hay.front() == '*' || hay.front() == ')')) {
    hay.remove_prefix(1);
  }
  return std::any_of(needles.begin(), needles.end(), [&](std::string_view n) { return hay.starts_with(n); });
}

// The sentence before `pos` (back to ". " or "; ", at most `n` bytes), lower case.
std::string sentence_before(std::string_view s, std::size_t pos, std::size_t n)
{
  const std::size_t from = pos > n ? pos - n : 0;
  std::string w = lower_window(s, from, pos);
  for (std::string_view cut : {". ", "; "}) {
    if (const auto k = w.rfind(cut); k != std::string::npos) {
      w.erase(0, k + cut.size());
    }
  }
  return w;
}

// The last offset of any of `needles` in `hay`, or npos.
std::size_t last_of_any(std::string_view hay, std::initializer_list<std::string_view> needles)
{
  std::size_t last = std::string_view::npos;
  for (const auto n : needles) {
    if (const auto k = hay.rfind(n);
        k != std::string_view::npos && (last == std::string_view::npos || k > last)) {
      last = k;
    }
  }
  return last;
}

// A figure quoted from another card or run ("analog of the int4 card
// (1.59×, +16.05 %)", "like the bf16 card (+6.05 %)"), or one that is a
// projection, a bound or an early reading a later one replaced: not the
// finding's own measurement. An analogy word counts unless a measurement
// word ("measured", "here", "this run") comes after it.
bool quoted_or_projected(std::string_view s, const StatedFigure& f)
{
  const std::string before = sentence_before(s, f.pos, 160);
  const std::size_t analogy = last_of_any(
      before, {"analog", "like the", "similar to", "as the", "same as the", "unlike the", "quoted from",
               "borrowed", "per the ", "from the int", "from the bf", "from the fp", " card ("});
  const std::size_t measured =
      last_of_any(before, {"measured", "here ", "here,", "this run", "this card", "we got", "gave", "gives"});
  if (analogy != std::string::npos && (measured == std::string::npos || measured < analogy)) {
    return true;
  }
  const std::string near = sentence_before(s, f.pos, 30); // "flat at first (+0.2%)": across the parenthesis
  const std::string after = lower_window(s, f.end, f.end + 24);
  return contains_any(near, {"projected", "expected", "estimate", "at most", "up to", "predicted", "would ",
                             "could ", "suggested", "target", "first attempt", "first try", "at first",
                             "initially", "earlier", "before the fix", "if the", "if it", "reaches"}) ||
         starts_any(after, {"headroom", "(superseded", "superseded", "projected", "expected", "predicted",
                            "target"}) ||
         contains_any(clause_after(s, f.end, 32), {"first session", "first run", "superseded", "headroom"});
}

// A percentage that is a share, a ceiling, a band, a latency, a kernel time
// or memory, not an e2e delta.
bool percent_is_measurement(std::string_view s, const StatedFigure& f)
{
  const std::string after = lower_window(s, f.end, f.end + 28);
  if (starts_any(after, {"gpu",    "of ",   "noise",  "band",     "box noise",  "ceiling", "e2e ceiling",
                         "head",   "hbm",   "spread", "drift",    "cumulative", "summed",  "share",
                         "amdahl", "floor", "/layer", "e2e time", "memory",     "of gpu",  "time"})) {
    return false;
  }
  const std::string before = clause_before(s, f.pos, 28);
  if (contains_any(before, {"ceiling",  "tpot",        "ttft",       "itl",         "spread",    "drift",
                            "band",     "noise floor", "head ",      "gpu time",    "pct_gpu",   "share",
                            "cost",     "latency",     "fell",       "kernel time", "step time", "memory",
                            "accuracy", "weights",     "per-launch", "launch time", "op time"})) {
    return false;
  }
  if (quoted_or_projected(s, f)) {
    return false;
  }
  if (f.signed_) {
    return true;
  }
  return contains_any(lower_window(s, f.end, f.end + 12), {"e2e"}) ||
         contains_any(clause_before(s, f.pos, 24), {"e2e", "tok/s", "throughput"});
}

// An unsigned percentage stated as a loss: "e2e throughput dropped 3.2%",
// "e2e regressed by 2.4%", "e2e 2.5% slower".
bool unsigned_loss(std::string_view s, const StatedFigure& f)
{
  return !f.signed_ && (contains_any(clause_before(s, f.pos, 24), {"drop", "regress", "lost", "loss of",
                                                                   "down ", "decrease", "worse", "fell"}) ||
                        starts_any(lower_window(s, f.end, f.end + 16),
                                   {"slower", "lower", "loss", "drop", "regression", "worse", "down"}));
}

// An × figure that an isolated word stands near, and that is not a
// throughput ratio or a slowdown.
bool times_is_isolated(std::string_view s, const StatedFigure& f)
{
  // "tok/s, 1.2437×" is a throughput ratio; "+3.1% e2e, iso 1.45×" is not:
  // an isolated word after the last throughput word keeps the figure.
  const std::string before = clause_before(s, f.pos, 20);
  const std::size_t ratio =
      last_of_any(before, {"tok/s", "director", "e2e", "throughput", "full-run", "ceiling"});
  const std::size_t iso_word = last_of_any(before, {"iso", "kernel", "geomean", "speedup", "op-level"});
  if (ratio != std::string::npos && (iso_word == std::string::npos || iso_word < ratio)) {
    return false;
  }
  const std::string after = clause_after(s, f.end, 24);
  if (contains_any(after, {"the fused", "ceiling", "tok/s"}) || quoted_or_projected(s, f)) {
    return false;
  }
  const std::string near = clause_before(s, f.pos, 40) + " | " + clause_after(s, f.end, 30);
  return contains_any(near,
                      {"iso", "geomean", "kernel", "serving-w", "serving w", "unit", "op-level", "speedup",
                       "faster", "in-situ", "per case", "per-case", "overall", "incumbent", "baseline"});
}

} // namespace

std::string_view to_string(KnowledgeKind kind)
{
  return k_kind_names[static_cast<std::size_t>(kind)];
}

std::optional<KnowledgeKind> parse_knowledge_kind(std::string_view text)
{
  for (std::size_t i = 0; i < k_kind_names.size(); ++i) {
    if (k_kind_names[i] == text) {
      return static_cast<KnowledgeKind>(i);
    }
  }
  return std::nullopt;
}

std::vector<StatedFigure> stated_figures(std::string_view text)
{
  const std::string_view s = text;
  std::vector<StatedFigure> out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (!is_digit(s[i]) || (i > 0 && (is_word(s[i - 1]) || s[i - 1] == '.'))) {
      ++i;
      continue;
    }
    StatedFigure f;
    bool negative = false;
    std::size_t start = i;
    read_prefix(s, i, f.signed_, negative, f.approx, start);
    double first = 0.0;
    int decimals = 0;
    std::size_t j = read_number(s, i, first, decimals);
    if (j == i) {
      ++i;
      continue;
    }
    first = negative ? -first : first;
    f.pos = start;
    f.decimals = decimals;
    f.lo = f.hi = first;
    StatedFigure::Metric metric{};
    std::size_t unit_end = read_unit(s, j, metric);
    std::size_t past = unit_end == j ? j : unit_end;
    // A range: "1.10–1.18×", "+10.40%..+11.45%", "+16-18%", "+26.9% to +92.5%".
    if (std::size_t sep = read_range_sep(s, past); sep != past) {
      bool sign2 = false;
      bool neg2 = false;
      bool approx2 = false;
      std::size_t k = sep;
      while (k < s.size() && (s[k] == '~' || s[k] == '+')) {
        sign2 = sign2 || s[k] == '+';
        ++k;
      }
      if (at(s, k, k_minus)) {
        neg2 = true;
        k += k_minus.size();
      } else if (at(s, k, "-") && s.substr(past, sep - past) != "-") {
        neg2 = true; // "+0.9% .. -0.3%"
        ++k;
      }
      double second = 0.0;
      int dec2 = 0;
      const std::size_t k2 = read_number(s, k, second, dec2);
      StatedFigure::Metric metric2{};
      const std::size_t unit2 = k2 == k ? k : read_unit(s, k2, metric2);
      const bool unit_ok = unit2 != k2 && (unit_end == j || metric2 == metric);
      if (k2 != k && unit_ok) {
        second = neg2 ? -second : second;
        f.lo = std::min(first, second);
        f.hi = std::max(first, second);
        f.decimals = std::max(decimals, dec2);
        metric = metric2;
        unit_end = unit2;
        (void)approx2;
      }
    }
    if (unit_end == j) {
      i = j; // a bare number
      continue;
    }
    f.metric = metric;
    f.end = unit_end;
    const bool keep =
        metric == StatedFigure::Metric::e2e_pct ? percent_is_measurement(s, f) : times_is_isolated(s, f);
    if (keep && metric == StatedFigure::Metric::e2e_pct && unsigned_loss(s, f)) {
      const double lo = -f.hi; // "e2e dropped 3.2%"
      f.hi = -f.lo;
      f.lo = lo;
      f.signed_ = true;
    }
    if (keep && metric == StatedFigure::Metric::isolated &&
        starts_any(lower_window(s, f.end, f.end + 12), {"slower"}) && f.lo > 0.0) {
      const double lo = 1.0 / f.hi; // "1.3× slower" is 0.77×
      f.hi = 1.0 / f.lo;
      f.lo = lo;
    }
    if (keep) {
      out.push_back(f);
    }
    i = unit_end;
  }
  return out;
}

namespace {

using Metric = StatedFigure::Metric;

const StatedFigure* first_of(const std::vector<StatedFigure>& figures, Metric metric)
{
  const auto it =
      std::find_if(figures.begin(), figures.end(), [&](const StatedFigure& f) { return f.metric == metric; });
  return it == figures.end() ? nullptr : &*it;
}

std::string figure_text(const StatedFigure& f)
{
  const auto one = [&](double v) {
    return f.metric == Metric::isolated ? fmt::format("{:.{}f}×", v, std::max(f.decimals, 2))
                                        : fmt::format("{:+.{}f} %", v, std::max(f.decimals, 1));
  };
  return f.lo == f.hi ? one(f.lo) : fmt::format("{} to {}", one(f.lo), one(f.hi));
}

// True when one of `needles` stands in `hay` without a negation just before
// it ("not overlapping", "no output divergence", "non-overlapping", "not a null").
bool stated_unnegated(std::string_view hay, std::initializer_list<std::string_view> needles)
{
  for (const auto n : needles) {
    for (std::size_t k = hay.find(n); k != std::string_view::npos; k = hay.find(n, k + 1)) {
      if (k > 0 && std::isalpha(static_cast<unsigned char>(hay[k - 1])) != 0 && n.front() != ' ') {
        continue; // inside a word: "in noise" in "within noise"
      }
      const std::string_view lead = hay.substr(k >= 6 ? k - 6 : 0, k >= 6 ? 6 : k);
      if (!contains_any(lead, {"not ", "no ", "non-", "non ", "n't ", "never "})) {
        return true;
      }
    }
  }
  return false;
}

// The clause around a headline figure: its own sentence before it, and after
// it up to the next sentence or parenthesis (a parenthesis after a figure
// speaks of something else: "+2.3 % e2e (the fp8 rewrite … was rejected)").
std::string around(std::string_view s, const StatedFigure& f, std::size_t before, std::size_t after)
{
  std::string tail = clause_after(s, f.end, after);
  if (const auto k = tail.find(" ("); k != std::string::npos) {
    tail.resize(k);
  }
  return clause_before(s, f.pos, before) + " | " + tail;
}

// In-noise words in the clause around a headline figure.
bool noise_words(std::string_view s, const StatedFigure& f)
{
  return stated_unnegated(around(s, f, 60, 80),
                          {"sub-noise", "in noise", "inside noise", "inside the noise", "within noise",
                           "within the noise", "below the 0.5", "below a 0.5", "below the noise",
                           "inside the 0.5", "=noise", "is noise", " null", "ranges overlap",
                           "distributions overlap", "not significant", "overlapping"});
}

bool rejected_words(std::string_view s, const StatedFigure& f)
{
  return stated_unnegated(around(s, f, 40, 60), {"rejected", "parity fail", "diverge"});
}

// An isolated-only text that says its e2e cannot clear the noise band ("a
// solo e2e gate cannot pass the 0.5% band", "sub-noise", "e2e ... null").
bool e2e_stays_in_noise(std::string_view text)
{
  const std::string t = util::lower_ascii(text);
  return contains_any(t, {"sub-noise", "cannot pass the", "inside the noise", "below the noise",
                          "below the 0.5", "inside the 0.5", "within the noise", "in the noise"});
}

void take_numbers(KnowledgeClass& c, const StatedFigure* e2e, const StatedFigure* iso)
{
  if (e2e != nullptr) {
    c.e2e_min_pct = e2e->lo;
    c.e2e_max_pct = e2e->hi;
  }
  if (iso != nullptr) {
    c.iso_min = iso->lo;
    c.iso_max = iso->hi;
  }
}

// The bold lead of a playbook line ("**Lead.** rest" → "Lead."); "" without one.
std::string_view bold_lead_of(std::string_view text)
{
  text = util::trim(text);
  if (!text.starts_with("**")) {
    return {};
  }
  const auto close = text.find("**", 2);
  return close == std::string_view::npos ? std::string_view() : text.substr(2, close - 2);
}

} // namespace

std::string_view card_heading(std::string_view body)
{
  for (const std::string_view line : util::split_lines(body)) {
    std::string_view t = util::trim(line);
    if (t.starts_with("#")) {
      while (t.starts_with("#")) {
        t.remove_prefix(1);
      }
      return util::trim(t);
    }
  }
  return {};
}

namespace {

// What names a card: its name unless a slug, a proposal's title, its body heading.
std::string_view card_title(const KnowledgeText& in)
{
  if (!in.name.empty() && in.name.find(' ') != std::string_view::npos) {
    return in.name;
  }
  return !in.title.empty() ? in.title : card_heading(in.text);
}

// The figures a finding states first (its effect line; a playbook line's
// text), kept on a finding no figure decided (archived, a method, a seam or
// routing note) as what it read.
void as_stated(KnowledgeClass& c, const KnowledgeText& in)
{
  const auto figures = stated_figures(in.origin == "playbook" ? in.text : in.effect);
  take_numbers(c, first_of(figures, Metric::e2e_pct), first_of(figures, Metric::isolated));
}

// A measured positive's figures come from its own effect line when that
// line states a gain too (the description may round: "~+11 %" for +10.68 %);
// an effect whose headline is a loss or noise leaves the deciding figures.
void own_effect_numbers(KnowledgeClass& c, std::string_view effect)
{
  const auto figures = stated_figures(effect);
  const StatedFigure* e2e = first_of(figures, Metric::e2e_pct);
  const StatedFigure* iso = first_of(figures, Metric::isolated);
  if (e2e != nullptr && e2e->lo > k_e2e_noise_pct && c.e2e_min_pct) {
    c.e2e_min_pct = e2e->lo;
    c.e2e_max_pct = e2e->hi;
  }
  if (iso != nullptr && iso->lo > 1.0 + k_iso_noise && (c.e2e_min_pct || c.iso_min)) {
    c.iso_min = iso->lo;
    c.iso_max = iso->hi;
  }
}

// Seam fact or routing note (rule 6): a playbook line by its lead (else its
// text), a card by its title and lever.
KnowledgeClass where_to_look(const KnowledgeText& in, std::string why)
{
  const bool line = in.origin == "playbook";
  const std::string_view lead = bold_lead_of(in.text);
  const std::string words = util::lower_ascii(line ? std::string(lead.empty() ? in.text : lead)
                                                   : fmt::format("{} | {}", card_title(in), in.lever));
  const bool seam =
      contains_any(words, {"seam", "live path", "live kernel", "live dense", "live serving", "dispatcher",
                           "dispatch", "mechanism", "bypass", "equivalent", "wrapper", "structurally"});
  KnowledgeClass c;
  c.kind = seam ? KnowledgeKind::seam_fact : KnowledgeKind::routing_note;
  c.reason = fmt::format("{}; {}", why,
                         seam ? "it names where the live path or seam is" : "it says where to spend effort");
  return c;
}

} // namespace

KnowledgeClass classify_knowledge(const KnowledgeText& in)
{
  KnowledgeClass c;
  const std::string status = util::lower_ascii(in.status);
  if (in.lifecycle == "archived") {
    c.kind = KnowledgeKind::archived;
    c.reason = "lifecycle archived";
    as_stated(c, in);
    return c;
  }
  if (starts_any(status, {"deprecated", "retired", "superseded", "archived", "obsolete", "withdrawn"})) {
    c.kind = KnowledgeKind::archived;
    c.reason = fmt::format("status {}", in.status);
    as_stated(c, in);
    return c;
  }
  if (in.generator == "rfdb") {
    c.kind = KnowledgeKind::positive_measured;
    c.reason = "written by rfdb from a What works line";
    const auto figures = stated_figures(in.effect);
    take_numbers(c, first_of(figures, Metric::e2e_pct), first_of(figures, Metric::isolated));
    return c;
  }
  const bool line = in.origin == "playbook";
  // A playbook line states no type: the parser's is guessed from the lead
  // ("METHOD: optimize …" is a lever measured in noise), so the lead decides.
  const std::string type = line ? std::string() : util::lower_ascii(in.type);
  const std::string lead = util::lower_ascii(line ? bold_lead_of(in.text) : std::string_view());
  const auto lead_starts = [&](std::string_view p) {
    std::string_view l = lead;
    while (!l.empty() && (l.front() == '*' || l.front() == ' ')) {
      l.remove_prefix(1);
    }
    return l.starts_with(p);
  };
  if (type == "anti-pattern" || type == "antipattern" || type == "dead-end" || type == "dead end" ||
      type == "negative" || type == "regression") {
    c.kind = KnowledgeKind::negative;
    c.reason = fmt::format("type {}", type);
    const auto figures = stated_figures(in.effect);
    take_numbers(c, first_of(figures, Metric::e2e_pct), first_of(figures, Metric::isolated));
    return c;
  }
  if (type == "method" || type == "methodology" || type == "measurement" ||
      lead_starts("measurement method") || lead_starts("method card")) {
    c.kind = KnowledgeKind::method;
    c.reason = !type.empty() ? fmt::format("type {}", type) : "the lead states a measurement method";
    as_stated(c, in);
    return c;
  }
  if (line && lead_starts("routing") && lead.find("lever") == std::string::npos) {
    // Routing, not a result — unless it states an e2e loss, which a Caution
    // must carry.
    const auto figures = stated_figures(in.text);
    const StatedFigure* e2e = first_of(figures, Metric::e2e_pct);
    if (e2e != nullptr && e2e->hi < -k_e2e_noise_pct) {
      c.kind = KnowledgeKind::negative;
      c.reason = fmt::format("the routing lead states e2e {} (a loss beyond the band)", figure_text(*e2e));
      take_numbers(c, e2e, first_of(figures, Metric::isolated));
      return c;
    }
    KnowledgeClass r = where_to_look(in, "the lead states routing, not a result");
    as_stated(r, in);
    return r;
  }
  // Rule 5: the headline figure of the finding's own summary.
  const std::array<std::pair<std::string_view, std::string_view>, 3> texts{
      {{"description", in.description},
       {"effect", in.effect},
       {"text", line ? in.text : std::string_view()}}};
  for (const auto& [label, text] : texts) {
    const auto figures = stated_figures(text);
    const StatedFigure* e2e = first_of(figures, Metric::e2e_pct);
    if (e2e == nullptr) {
      continue;
    }
    const StatedFigure* iso = first_of(figures, Metric::isolated);
    take_numbers(c, e2e, iso);
    const std::string stated = fmt::format("{} states e2e {}", label, figure_text(*e2e));
    if (e2e->hi > k_e2e_noise_pct && rejected_words(text, *e2e)) {
      c.kind = KnowledgeKind::negative;
      c.reason = stated + ", rejected";
    } else if (e2e->hi > k_e2e_noise_pct && noise_words(text, *e2e)) {
      c.kind = KnowledgeKind::in_noise;
      c.reason = stated + ", which its text calls noise";
    } else if (e2e->lo > k_e2e_noise_pct) {
      c.kind = KnowledgeKind::positive_measured;
      c.reason = stated + " (beyond +0.5 %)";
      own_effect_numbers(c, in.effect);
    } else if (e2e->hi < -k_e2e_noise_pct) {
      c.kind = KnowledgeKind::negative;
      c.reason = stated + " (a loss beyond the band)";
    } else {
      c.kind = KnowledgeKind::in_noise;
      c.reason = stated + " (inside the ±0.5 % band)";
    }
    return c;
  }
  for (const auto& [label, text] : texts) {
    const auto figures = stated_figures(text);
    const StatedFigure* iso = first_of(figures, Metric::isolated);
    if (iso == nullptr) {
      continue;
    }
    take_numbers(c, nullptr, iso);
    const std::string stated = fmt::format("{} states isolated {}, no e2e", label, figure_text(*iso));
    const bool iso_win = iso->hi > 1.0 + k_iso_noise && iso->lo >= 1.0 / (1.0 + k_iso_noise);
    if (iso_win && e2e_stays_in_noise(text)) {
      c.kind = KnowledgeKind::in_noise;
      c.reason = stated + ", and it says the e2e stays inside the noise band";
    } else if (iso_win) {
      c.kind = KnowledgeKind::positive_measured;
      c.reason = stated;
      own_effect_numbers(c, in.effect);
    } else if (iso->hi < 1.0 / (1.0 + k_iso_noise)) {
      c.kind = KnowledgeKind::negative;
      c.reason = stated + " (a slowdown)";
    } else {
      c.kind = KnowledgeKind::in_noise;
      c.reason = stated + " (inside the 3.4 % band)";
    }
    return c;
  }
  return where_to_look(in, "no measured figure");
}

} // namespace rfdb::domain
