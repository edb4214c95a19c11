// `rfdb lookup`'s rules (see lookup.hpp and docs/lookup.md).
#include "report/lookup.hpp"

#include "report/tiers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

namespace rfdb::report {

namespace {

std::string lower(std::string_view s)
{
  std::string out(s);
  for (auto& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool is_separator(char c)
{
  return c == '_' || c == '-' || c == '.' || std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::set<std::string> tokens(std::string_view name)
{
  std::set<std::string> out;
  std::string cur;
  for (const char c : name) {
    if (is_separator(c)) {
      if (!cur.empty()) {
        out.insert(lower(cur));
      }
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) {
    out.insert(lower(cur));
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b)
{
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::optional<double> median(std::vector<double> v)
{
  if (v.empty()) {
    return std::nullopt;
  }
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

bool filters_pass(const LookupQuery& q, const LookupCandidate& c)
{
  if (q.backend && !c.backend.empty() && lower(*q.backend) != lower(c.backend)) {
    return false;
  }
  if (q.dtype && !precision_matches(*q.dtype, c.dtype)) {
    return false;
  }
  if (q.model && !c.model.empty() && lower(c.model).find(lower(*q.model)) == std::string::npos) {
    return false;
  }
  const auto differs = [](const std::optional<int>& want, const std::optional<int>& stated) {
    return want && stated && *want != *stated;
  };
  if (differs(q.isl, c.isl) || differs(q.osl, c.osl) || differs(q.conc, c.conc)) {
    return false;
  }
  if (q.shape && !c.shapes.empty() &&
      std::find(c.shapes.begin(), c.shapes.end(), *q.shape) == c.shapes.end()) {
    return false;
  }
  if (q.case_name && !c.cases.empty() &&
      std::find(c.cases.begin(), c.cases.end(), *q.case_name) == c.cases.end()) {
    return false;
  }
  return true;
}

// Newest first: date descending, then run id, then attempt key.
bool newer(const LookupCandidate* a, const LookupCandidate* b)
{
  return std::tie(b->date, a->run_id, a->attempt_key, a->kb_record) <
         std::tie(a->date, b->run_id, b->attempt_key, b->kb_record);
}

std::string ref_of(const LookupCandidate& c)
{
  return c.source == "kb" ? "kb record " + c.kb_record : "run " + c.run_id + "#" + c.attempt_key;
}

// The tier of a lever: the playbook's rule over its run wins (report::assign_tier); a kb record
// adds one agreeing source. A lever its kb records alone stand behind: ★★★ when one of them was
// validated (its ledger counts a validation, or the record says validated), ★★ with ≥ 2
// reproductions, else ★. The better of the two; a lost Director validation caps at ★★.
Tier lever_tier(const TierEvidence& runs, bool any_run, bool any_kb, int validations, bool kb_validated,
                int kb_reproductions)
{
  Tier kb{1, "single kb record, not validated"};
  if (validations > 0 || kb_validated) {
    kb = {3, validations > 0 ? fmt::format("validated {} time(s) by its kb attestation ledger", validations)
                             : std::string("validated kb record")};
  } else if (kb_reproductions >= 2) {
    kb = {2, fmt::format("kb record reproduced {} times", kb_reproductions)};
  }
  if (!any_run) {
    return kb;
  }
  TierEvidence ev = runs;
  if (any_kb) {
    ev.agreeing_sources += 1;
  }
  Tier t = assign_tier(ev);
  if (any_kb && kb.stars > t.stars && !(ev.validation_lost && kb.stars > 2)) {
    t = kb;
  }
  return t;
}

LookupLever make_lever(const std::string& key, const std::vector<const LookupCandidate*>& all,
                       const std::vector<const LookupCandidate*>& key_wins)
{
  std::vector<const LookupCandidate*> wins;
  std::vector<const LookupCandidate*> kbs;
  for (const auto* c : all) {
    // A retired kb record is negative history: its speedup is no win of the lever.
    if (c->win && !(c->source == "kb" && c->retired)) {
      wins.push_back(c);
    }
    if (c->source == "kb") {
      kbs.push_back(c);
    }
  }
  std::sort(wins.begin(), wins.end(), newer);
  std::sort(kbs.begin(), kbs.end(), newer);
  // The head: the newest run win, else the newest kb win, else the newest kb record.
  const LookupCandidate* head = nullptr;
  for (const auto* c : wins) {
    if (head == nullptr || (head->source == "kb" && c->source == "run")) {
      head = c;
    }
  }
  if (head == nullptr) {
    head = kbs.front();
  }
  LookupLever l;
  l.lever = head->lever;
  l.lever_key = key;
  l.lever_kind = head->lever_kind;
  l.apply_kind = head->apply_kind;
  l.apply = head->apply;
  l.files = head->files;
  l.apply_section = head->apply_section;
  l.apply_first_line = head->apply_first_line;
  l.apply_last_line = head->apply_last_line;
  if (!head->files.empty() && head->source == "run") {
    l.export_command = fmt::format("rfdb export --raw {} --out DIR", head->run_id);
  }
  if (!kbs.empty()) {
    l.show_command = "rfdb show --finding " + kbs.front()->kb_record;
    if (head->source == "kb" && !head->files.empty()) {
      l.export_command = "rfdb export --raw --all --out DIR   # DIR/knowledge/" + head->files.front();
    }
  }
  // A retired kb record's figures are still shown (the lever is marked retired), so the
  // figures come from the wins, or from the kb records when the lever has no win.
  const std::vector<const LookupCandidate*>& figures = wins.empty() ? kbs : wins;
  std::vector<double> iso, e2e;
  std::set<std::string> signatures, techniques;
  TierEvidence ev;
  ev.run_evidence = true;
  std::set<std::string> runs, clean_runs;
  bool any_run = false;
  for (const auto* c : figures) {
    if (c->isolated_speedup) {
      iso.push_back(*c->isolated_speedup);
    }
    if (c->e2e_delta_pct) {
      e2e.push_back(*c->e2e_delta_pct);
    }
    if (!c->content_signature.empty()) {
      signatures.insert(c->content_signature);
    }
    if (c->source == "kb") {
      continue;
    }
    any_run = true;
    l.refs.push_back(c->run_id + "#" + c->attempt_key);
    if (runs.insert(c->run_id).second) {
      l.runs.push_back(c->run_id);
    }
    if (c->clean) {
      clean_runs.insert(c->run_id);
    }
    ev.verified_e2e = ev.verified_e2e || c->verified_e2e;
  }
  std::vector<const LookupCandidate*> listed = figures;
  for (const auto* c : kbs) {
    if (std::find(listed.begin(), listed.end(), c) == listed.end()) {
      listed.push_back(c);
    }
  }
  std::sort(listed.begin(), listed.end(), newer);
  for (const auto* c : listed) {
    l.sources.push_back(ref_of(*c));
  }
  int kb_reproductions = 0;
  bool kb_validated = false;
  for (const auto* c : kbs) {
    l.kb_records.push_back(c->kb_record);
    techniques.insert(c->techniques.begin(), c->techniques.end());
    l.validations += c->validations;
    l.failures += c->failures;
    l.not_reproduced += c->not_reproduced;
    l.inapplicable += c->inapplicable;
    if (!c->retired) { // a retired record's reproductions and validation no longer count
      kb_reproductions = std::max(kb_reproductions, c->kb_reproductions);
      kb_validated = kb_validated || c->kb_validated;
    }
    if (c->retired && !l.retired) {
      l.retired = true;
      l.retired_why = c->kb_record + ": " + c->retired_why;
    }
    if (!l.throughput_tok_s && c->throughput_tok_s) {
      l.throughput_tok_s = c->throughput_tok_s;
      l.baseline_tok_s = c->baseline_tok_s;
    }
  }
  l.techniques.assign(techniques.begin(), techniques.end());
  for (const auto* c : all) {
    if (c->validation_lost && !ev.validation_lost) {
      ev.validation_lost = true;
      ev.lost_speedup = c->validation_speedup;
    }
  }
  // Reproductions: independent runs that measured a win of the same lever key, or of the
  // same implementation (a signature one of its wins carries) under another lever text, plus
  // the largest `reproductions` of its kb records (a store session and its experience of one
  // signature are one measurement written twice, so their counts are not added).
  std::set<std::string> reproducing = runs;
  for (const auto* c : key_wins) {
    if (c->source == "run" && !c->content_signature.empty() && signatures.count(c->content_signature) != 0) {
      reproducing.insert(c->run_id);
    }
  }
  l.reproductions = static_cast<int>(reproducing.size()) + kb_reproductions;
  l.signatures.assign(signatures.begin(), signatures.end());
  l.iso_median = median(iso);
  l.e2e_median_pct = median(e2e);
  l.measured = !iso.empty() || !e2e.empty();
  if (!iso.empty()) {
    l.iso_min = *std::min_element(iso.begin(), iso.end());
    l.iso_max = *std::max_element(iso.begin(), iso.end());
  }
  if (!e2e.empty()) {
    l.e2e_min_pct = *std::min_element(e2e.begin(), e2e.end());
    l.e2e_max_pct = *std::max_element(e2e.begin(), e2e.end());
  }
  ev.agreeing_sources = static_cast<int>(reproducing.size());
  ev.clean_sources = static_cast<int>(clean_runs.size());
  ev.clean_runs = ev.clean_sources;
  const Tier tier = lever_tier(ev, any_run, !kbs.empty(), l.validations, kb_validated, kb_reproductions);
  l.stars = tier.stars;
  l.tier_reason = tier.reason;
  if (l.retired) {
    l.tier_reason = "retired (" + l.retired_why + "); " + l.tier_reason;
  }
  l.freshness = head->date;
  for (const auto* c : figures) {
    l.freshness = std::max(l.freshness, c->date);
  }
  l.stack = head->stack;
  l.attempts = static_cast<int>(all.size());
  return l;
}

bool lever_before(const LookupLever& a, const LookupLever& b)
{
  const double ea = a.e2e_median_pct.value_or(-1e300);
  const double eb = b.e2e_median_pct.value_or(-1e300);
  const double ia = a.iso_median.value_or(-1e300);
  const double ib = b.iso_median.value_or(-1e300);
  const bool ca = a.validations > 0 || a.reproductions >= 2;
  const bool cb = b.validations > 0 || b.reproductions >= 2;
  return std::tie(a.retired, b.measured, b.stars, cb, ib, eb, b.reproductions, a.lever_key) <
         std::tie(b.retired, a.measured, a.stars, ca, ia, ea, a.reproductions, b.lever_key);
}

} // namespace

std::string fold_kernel_name(std::string_view name)
{
  std::string out;
  for (const char c : name) {
    if (!is_separator(c)) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

std::string normalize_precision(std::string_view dtype)
{
  std::string s;
  bool run = false;
  for (const char c : dtype) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && std::isalnum(u) != 0) {
      s.push_back(static_cast<char>(std::tolower(u)));
      run = false;
    } else if (!run) {
      s.push_back('_');
      run = true;
    }
  }
  // Python's strip("_") is not applied by GEAK; leading/trailing separators stay folded to "_".
  const auto cut = s.find('_');
  const std::string head = s.substr(0, cut);
  const std::string rest = cut == std::string::npos ? "" : s.substr(cut);
  static const std::map<std::string, std::string, std::less<>> aliases{
      {"float8", "fp8"},    {"f8", "fp8"},  {"float16", "fp16"}, {"f16", "fp16"}, {"half", "fp16"},
      {"bfloat16", "bf16"}, {"bf", "bf16"}, {"float32", "fp32"}, {"f32", "fp32"}, {"float", "fp32"}};
  const auto it = aliases.find(head);
  return (it == aliases.end() ? head : it->second) + rest;
}

bool precision_matches(std::string_view wanted, std::string_view stated)
{
  const std::string a = normalize_precision(wanted);
  const std::string b = normalize_precision(stated);
  if (a.empty() || b.empty() || a == b) {
    return true;
  }
  const auto refines = [](const std::string& base, const std::string& refined) {
    return refined.size() > base.size() && refined.starts_with(base) && refined[base.size()] == '_';
  };
  return refines(a, b) || refines(b, a);
}

std::optional<std::string> normalize_shape(std::string_view shape)
{
  std::vector<std::string> dims;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= shape.size(); ++i) {
    if (i < shape.size() && shape[i] != ',' && shape[i] != 'x' && shape[i] != 'X') {
      continue;
    }
    const std::string_view part = shape.substr(start, i - start);
    std::int32_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || part.front() < '0' || part.front() > '9' || ec != std::errc() ||
        end != part.data() + part.size() || v <= 0) {
      return std::nullopt;
    }
    dims.push_back(std::to_string(v));
    start = i + 1;
  }
  if (dims.size() > 4) {
    return std::nullopt;
  }
  return fmt::format("{}", fmt::join(dims, ","));
}

bool well_formed_dtype(std::string_view dtype)
{
  if (dtype.empty() || dtype.size() > 32 || std::isalpha(static_cast<unsigned char>(dtype.front())) == 0) {
    return false;
  }
  bool after_separator = false;
  for (const char c : dtype) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '_' || c == '-') {
      if (after_separator) {
        return false;
      }
      after_separator = true;
    } else if (u < 0x80 && std::isalnum(u) != 0) {
      after_separator = false;
    } else {
      return false;
    }
  }
  return !after_separator;
}

LookupAnswer lookup(const LookupQuery& query, const std::vector<LookupCandidate>& candidates)
{
  LookupAnswer answer;
  std::set<std::string> names;
  for (const auto& c : candidates) {
    names.insert(c.kernel);
  }
  std::set<std::string> resolved;
  if (names.count(query.kernel) != 0) {
    resolved.insert(query.kernel);
    answer.match = KeyMatch::exact;
  } else {
    const std::string folded = fold_kernel_name(query.kernel);
    for (const auto& n : names) {
      if (!folded.empty() && fold_kernel_name(n) == folded) {
        resolved.insert(n);
      }
    }
    answer.match = resolved.empty() ? KeyMatch::miss : KeyMatch::normalized;
  }
  if (answer.match == KeyMatch::miss) {
    const std::string folded = fold_kernel_name(query.kernel);
    const auto want = tokens(query.kernel);
    std::vector<std::tuple<std::size_t, int, std::string>> ranked;
    for (const auto& n : names) {
      int shared = 0;
      for (const auto& t : tokens(n)) {
        shared += static_cast<int>(want.count(t));
      }
      ranked.emplace_back(edit_distance(folded, fold_kernel_name(n)), -shared, n);
    }
    std::sort(ranked.begin(), ranked.end());
    for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) {
      answer.nearest.push_back(std::get<2>(ranked[i]));
    }
    return answer;
  }
  answer.kernels.assign(resolved.begin(), resolved.end());
  const std::string gfx = lower(query.gfx);
  // The e2e lane of the kb answers for a model and workload: only when one is asked.
  const bool e2e_asked = query.model || query.isl;
  std::vector<const LookupCandidate*> in_key;
  std::set<std::string> other_gfx;
  // Per source, the candidates on the key (other filters passed) and how many state a shape / case.
  struct Stated {
    int on_key = 0, shapes = 0, cases = 0;
  };
  std::map<std::string, Stated> stated;
  // Candidates on the key that --dtype alone left out, and the precisions they state.
  int dtype_excluded = 0;
  std::set<std::string> excluded_dtypes;
  for (const auto& c : candidates) {
    if (resolved.count(c.kernel) == 0 || (c.kb_lane == "e2e" && !e2e_asked)) {
      continue;
    }
    if (lower(c.gfx) != gfx) {
      other_gfx.insert(lower(c.gfx));
      continue;
    }
    LookupQuery unnarrowed = query;
    unnarrowed.shape.reset();
    unnarrowed.case_name.reset();
    if (filters_pass(unnarrowed, c)) {
      auto& st = stated[c.source];
      ++st.on_key;
      st.shapes += c.shapes.empty() ? 0 : 1;
      st.cases += c.cases.empty() ? 0 : 1;
    }
    if (filters_pass(query, c)) {
      in_key.push_back(&c);
    } else if (query.dtype) {
      LookupQuery any_dtype = query;
      any_dtype.dtype.reset();
      if (filters_pass(any_dtype, c)) {
        ++dtype_excluded;
        excluded_dtypes.insert(c.dtype);
      }
    }
  }
  if (dtype_excluded > 0) {
    answer.notes.push_back(fmt::format("--dtype {} left out {} candidate{} on the key (stated precision {})",
                                       *query.dtype, dtype_excluded, dtype_excluded == 1 ? "" : "s",
                                       fmt::join(excluded_dtypes, ", ")));
  }
  for (const auto& [source, st] : stated) {
    const std::string noun = source == "kb" ? "kb records" : "run attempts";
    if (query.shape && st.shapes == 0) {
      answer.notes.push_back(noun + " carry no shape; not narrowed");
    } else if (query.shape && st.shapes < st.on_key) {
      answer.notes.push_back(
          fmt::format("{} of {} {} state no shape; kept", st.on_key - st.shapes, st.on_key, noun));
    }
    if (query.case_name && st.cases == 0) {
      answer.notes.push_back(noun + " carry no case names; not narrowed");
    } else if (query.case_name && st.cases < st.on_key) {
      answer.notes.push_back(
          fmt::format("{} of {} {} state no case names; kept", st.on_key - st.cases, st.on_key, noun));
    }
  }
  answer.kb_records = static_cast<int>(std::count_if(
      in_key.begin(), in_key.end(), [](const LookupCandidate* c) { return c->source == "kb"; }));
  answer.attempts = static_cast<int>(in_key.size()) - answer.kb_records;
  if (in_key.empty() && !other_gfx.empty()) {
    bool any_on_gfx = false;
    for (const auto& c : candidates) {
      any_on_gfx = any_on_gfx || (resolved.count(c.kernel) != 0 && lower(c.gfx) == gfx);
    }
    if (!any_on_gfx) {
      answer.other_gfx.assign(other_gfx.begin(), other_gfx.end());
    }
  }
  // One lever per lever key; a kb record joins the lever of a run attempt with its content
  // signature (one implementation, two sources), else the kb records of one signature form one
  // lever ("kb csha:…"), else it is its own ("kb KEY").
  std::map<std::string, std::string> key_of_signature;
  for (const auto* c : in_key) {
    if (c->source == "run" && !c->content_signature.empty()) {
      auto [it, fresh] = key_of_signature.try_emplace(c->content_signature, c->lever_key);
      if (!fresh && c->win) {
        it->second = std::min(it->second, c->lever_key);
      }
    }
  }
  std::map<std::string, std::vector<const LookupCandidate*>> by_lever;
  std::vector<const LookupCandidate*> key_wins;
  for (const auto* c : in_key) {
    std::string key = c->lever_key;
    if (c->source == "kb") {
      const auto it = key_of_signature.find(c->content_signature);
      key = c->content_signature.empty()   ? "kb " + c->kb_record
            : it != key_of_signature.end() ? it->second
                                           : "kb " + c->content_signature;
    }
    by_lever[key].push_back(c);
    if (c->win) {
      key_wins.push_back(c);
    }
  }
  for (const auto& [key, group] : by_lever) {
    if (std::any_of(group.begin(), group.end(),
                    [](const LookupCandidate* c) { return c->win || (c->source == "kb" && c->retired); })) {
      answer.levers.push_back(make_lever(key, group, key_wins));
    }
  }
  std::sort(answer.levers.begin(), answer.levers.end(), lever_before);
  return answer;
}

} // namespace rfdb::report
