// The attempt model: measured candidates first, then references attached by
// kernel and agreeing numbers (see attempt_model.hpp).
#include "ingest/evaldir/attempt_model.hpp"

#include "domain/normalize.hpp"
#include "ingest/evaldir/common.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

namespace rfdb::ingest {

namespace {

std::string strip_task(std::string s)
{
  if (const auto slash = s.find_last_of('/'); slash != std::string::npos) {
    s = s.substr(slash + 1);
  }
  if (s.size() > 5 && s.ends_with("_task")) {
    s.resize(s.size() - 5);
  }
  return s;
}

bool has_numbers(const AttemptRecord& r)
{
  return r.isolated_speedup.has_value() || r.e2e_delta_pct.has_value();
}

// The kernel a record is about: its short_name when the profile knows it,
// else its task dir's kernel (a candidate named `ck_tuned_gemm` extracted to
// kernels/_w8a8_block_fp8_matmul_task is about _w8a8_block_fp8_matmul).
std::string resolve_kernel(const AttemptRecord& r, const std::set<std::string>& known)
{
  if (known.contains(r.short_name) || !r.task_dir || r.task_dir->empty()) {
    return r.short_name;
  }
  const std::string task = strip_task(*r.task_dir);
  return task.empty() ? r.short_name : task;
}

// How strongly a ledger verdict describes an attempt: a head's summary row
// (confirmed) outranks the per-candidate row (candidate_passed).
int verdict_rank(const std::optional<std::string>& raw)
{
  static constexpr std::array<std::string_view, 8> k_order{
      "confirmed_corrective", "confirmed",        "dead_end",           "flagged",
      "incomplete",           "candidate_passed", "candidate_rejected", "candidate_incomplete"};
  if (!raw) {
    return 100;
  }
  const std::string key = util::lower_ascii(*raw);
  for (std::size_t i = 0; i < k_order.size(); ++i) {
    if (k_order[i] == key) {
      return static_cast<int>(i);
    }
  }
  return 50;
}

// The variant a candidate's name or tag spells ("triton_splitk",
// "cand_K_streamk_v2", "whole-file"), with the kernel's own name removed
// first (a kernel called `*_splitk_*` does not make every candidate on it a
// split-K variant); nullopt when it names none.
std::optional<std::string> variant_named(std::string_view name, std::string_view kernel)
{
  std::string text(name);
  if (!kernel.empty()) {
    for (auto at = text.find(kernel); at != std::string::npos; at = text.find(kernel, at)) {
      text.replace(at, kernel.size(), " ");
    }
  }
  std::string words = " ";
  for (const char c : text) {
    const char l = util::lower_ascii(c);
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      words += l;
    } else if (words.back() != ' ') {
      words += ' ';
    }
  }
  words += ' ';
  struct Spelling {
    std::string_view variant;
    std::array<std::string_view, 2> words;
  };
  static constexpr std::array<Spelling, 5> k_variants = {{
      {"split-KV", {" split kv ", " splitkv "}},
      {"split-K", {" split k ", " splitk "}},
      {"stream-K", {" stream k ", " streamk "}},
      {"decode-tile", {" decode tile ", " decodetile "}},
      {"whole-file", {" whole file ", " wholefile "}},
  }};
  for (const auto& v : k_variants) {
    for (const auto w : v.words) {
      if (words.find(w) != std::string::npos) {
        return std::string(v.variant);
      }
    }
  }
  return std::nullopt;
}

// The part of a candidate dir "cand_<kernel>_<tag>" after the kernel, else
// the dir without "cand_".
std::string_view candidate_part(std::string_view candidate, std::string_view kernel)
{
  if (candidate.substr(0, 5) == "cand_") {
    candidate.remove_prefix(5);
  }
  if (!kernel.empty() && candidate.substr(0, kernel.size()) == kernel) {
    candidate.remove_prefix(kernel.size());
  }
  return candidate;
}

// An authored kernel or code patch whose candidate or ledger row names a
// variant carries it in its lever text: "authored triton kernel (split-K)",
// "code patch (rebind, whole-file)".
void name_variant(DerivedAttempt& d)
{
  std::string& lever = d.record.lever;
  if (!d.variant || !(lever.starts_with("authored ") || lever.starts_with("code patch"))) {
    return;
  }
  if (lever.ends_with(")")) {
    lever.insert(lever.size() - 1, ", " + *d.variant);
  } else {
    lever += " (" + *d.variant + ")";
  }
}

template <typename T> void fill(std::optional<T>& into, const std::optional<T>& from)
{
  if (!into && from) {
    into = from;
  }
}

class Builder {
public:
  Builder(const std::set<std::string>& known, std::vector<Warning>& warnings)
      : m_known(known), m_warnings(warnings)
  {
  }

  void add_candidate(RecordIn in, std::string key)
  {
    DerivedAttempt d;
    d.kind = domain::is(in.record.origin, domain::AttemptOrigin::sweep) ? domain::AttemptKind::config
                                                                        : domain::AttemptKind::kernel;
    if (d.kind == domain::AttemptKind::kernel) {
      const std::string kernel = resolve_kernel(in.record, m_known);
      if (kernel != in.record.short_name) {
        d.candidate_short_name = in.record.short_name;
        in.record.short_name = kernel;
      }
      if (in.record.task_dir && !in.record.task_dir->empty()) {
        d.task = strip_task(*in.record.task_dir) + "_task";
      }
    }
    d.key = unique_key(std::move(key));
    note_variant(d, in.record);
    d.measured = has_numbers(in.record);
    d.deployed = in.record.accepted_overlay && !in.record.accepted_overlay->empty();
    d.sources.push_back({in.source_id, in.record.json_pointer});
    d.record = std::move(in.record);
    m_out.push_back(std::move(d));
  }

  // A bake-off winner: the overlay candidate that deployed it, else its own
  // attempt.
  void add_bakeoff(RecordIn in)
  {
    const std::string kernel = resolve_kernel(in.record, m_known);
    if (DerivedAttempt* match = find_match(in.record, kernel, in)) {
      attach(*match, in, /*is_ledger=*/false);
      return;
    }
    if (m_ambiguous) {
      return;
    }
    add_candidate(std::move(in), "opbench:" + kernel);
  }

  void add_reference(RecordIn in, int ledger_index)
  {
    const std::string kernel = resolve_kernel(in.record, m_known);
    DerivedAttempt* match = find_match(in.record, kernel, in);
    if (m_ambiguous) {
      return;
    }
    if (match != nullptr) {
      attach(*match, in, domain::is(in.record.origin, domain::AttemptOrigin::ledger));
      if (ledger_index >= 0 && match->ledger_order < 0) {
        match->ledger_order = ledger_index;
      }
      if (domain::is(in.record.origin, domain::AttemptOrigin::accepted)) {
        match->in_accepted_list = true;
        match->deployed = true;
      }
      return;
    }
    const bool measured = has_numbers(in.record);
    if (measured) {
      m_warnings.push_back(Warning{in.rel_path, in.record.json_pointer,
                                   fmt::format("{} row for {} matches no measured candidate "
                                               "(isolated {}, e2e {}); stored as its own attempt",
                                               in.record.origin, kernel, show(in.record.isolated_speedup),
                                               show(in.record.e2e_delta_pct)),
                                   false});
    }
    const std::string key = fmt::format("{}:{}#{}", in.record.origin, kernel, in.record.json_pointer);
    const bool accepted = domain::is(in.record.origin, domain::AttemptOrigin::accepted);
    add_candidate(std::move(in), key);
    m_out.back().ledger_order = ledger_index;
    m_out.back().in_accepted_list = accepted;
    m_out.back().deployed = m_out.back().deployed || accepted;
  }

  // An overlay candidate: a new attempt, unless the same candidate dir was
  // already read (overlay/cand_X and its copy under final/overlay/) with
  // numbers that agree — then it is one more source of that attempt.
  void add_integrate(RecordIn in)
  {
    const std::string key = "cand:" + in.record.candidate.value_or(in.record.short_name);
    for (auto& d : m_out) {
      if (d.key != key) {
        continue;
      }
      if (numbers_agree(d.record, in.record) || (!has_numbers(d.record) && !has_numbers(in.record))) {
        attach(d, in, /*is_ledger=*/false);
        fill(d.record.accepted_overlay, in.record.accepted_overlay);
        fill(d.record.patch_ref, in.record.patch_ref);
        fill(d.record.table_ref, in.record.table_ref);
        d.deployed = d.deployed || (in.record.accepted_overlay && !in.record.accepted_overlay->empty());
        return;
      }
      m_warnings.push_back(Warning{in.rel_path, in.record.json_pointer,
                                   fmt::format("candidate {} is described twice with different numbers "
                                               "(isolated {} vs {}, e2e {} vs {}); kept as two attempts",
                                               *in.record.candidate, show(d.record.isolated_speedup),
                                               show(in.record.isolated_speedup), show(d.record.e2e_delta_pct),
                                               show(in.record.e2e_delta_pct)),
                                   false});
      break;
    }
    add_candidate(std::move(in), key);
  }

  std::vector<DerivedAttempt> take() { return std::move(m_out); }

private:
  static std::string show(const std::optional<double>& v)
  {
    return v ? fmt::format("{}", *v) : std::string("-");
  }

  std::string unique_key(std::string key)
  {
    std::string k = key;
    for (int i = 2; std::any_of(m_out.begin(), m_out.end(), [&](const auto& d) { return d.key == k; }); ++i) {
      k = fmt::format("{}#{}", key, i);
    }
    return k;
  }

  bool same_kernel(const DerivedAttempt& d, const AttemptRecord& r, const std::string& kernel) const
  {
    if (d.kind != domain::AttemptKind::kernel) {
      return false;
    }
    for (const std::string* id :
         {&d.record.short_name, d.candidate_short_name ? &*d.candidate_short_name : nullptr}) {
      if (id != nullptr && (*id == kernel || *id == r.short_name)) {
        return true;
      }
    }
    return d.task && strip_task(*d.task) == kernel;
  }

  // Every number both sides state agrees, and at least one is compared.
  static bool numbers_agree(const AttemptRecord& a, const AttemptRecord& r)
  {
    int compared = 0;
    if (a.isolated_speedup && r.isolated_speedup) {
      if (!isolated_agrees(*a.isolated_speedup, *r.isolated_speedup)) {
        return false;
      }
      ++compared;
    }
    if (a.e2e_delta_pct && r.e2e_delta_pct) {
      if (!e2e_agrees(*a.e2e_delta_pct, *r.e2e_delta_pct)) {
        return false;
      }
      ++compared;
    }
    return compared > 0;
  }

  // The reference's backend (a ledger row's `:<backend>` suffix) names the
  // candidate: its backend, or its overlay dir's tag.
  static bool backend_names(const DerivedAttempt& d, const AttemptRecord& r)
  {
    if (!r.backend) {
      return false;
    }
    const std::string b = util::lower_ascii(*r.backend);
    if (d.record.backend && util::lower_ascii(*d.record.backend) == b) {
      return true;
    }
    const std::string cand = util::lower_ascii(d.record.candidate.value_or(""));
    return cand.size() > b.size() && cand.ends_with("_" + b);
  }

  DerivedAttempt* find_match(const AttemptRecord& r, const std::string& kernel, const RecordIn& in)
  {
    m_ambiguous = false;
    const bool measured = has_numbers(r);
    std::vector<DerivedAttempt*> hits;
    for (auto& d : m_out) {
      if (!same_kernel(d, r, kernel)) {
        continue;
      }
      if (measured ? numbers_agree(d.record, r) : !has_numbers(d.record) && accepts_unmeasured(d, r)) {
        hits.push_back(&d);
      }
    }
    if (hits.size() > 1) {
      std::vector<DerivedAttempt*> named;
      std::copy_if(hits.begin(), hits.end(), std::back_inserter(named),
                   [&](const DerivedAttempt* d) { return backend_names(*d, r); });
      if (named.size() == 1) {
        return named.front();
      }
      // A flagged head describes the flagged try, not the dead end.
      std::vector<DerivedAttempt*> same_verdict;
      std::copy_if(hits.begin(), hits.end(), std::back_inserter(same_verdict), [&](const DerivedAttempt* d) {
        return r.verdict != domain::Verdict::unknown && d->record.verdict == r.verdict;
      });
      if (same_verdict.size() == 1) {
        return same_verdict.front();
      }
      std::string keys;
      for (const auto* d : hits) {
        keys += (keys.empty() ? "" : ", ") + d->key;
      }
      m_warnings.push_back(Warning{in.rel_path, r.json_pointer,
                                   fmt::format("{} row for {} agrees equally with {} attempts ({}); "
                                               "attached to none",
                                               r.origin, kernel, hits.size(), keys),
                                   false});
      m_ambiguous = true;
      return nullptr;
    }
    return hits.empty() ? nullptr : hits.front();
  }

  // Unmeasured ledger rows are each their own try (a flagged first try and a
  // dead end on the same kernel are two attempts); the other unmeasured
  // references (flagged heads, a failed bake-off) describe one of them.
  static bool accepts_unmeasured(const DerivedAttempt& d, const AttemptRecord& r)
  {
    if (!domain::is(r.origin, domain::AttemptOrigin::ledger)) {
      return true;
    }
    return d.ledger_order < 0 && !domain::is(d.record.origin, domain::AttemptOrigin::ledger);
  }

  // The variant the record's names spell (its candidate dir or ledger
  // direction after the kernel, its backend, the candidate's own
  // short_name), unless the attempt already has one.
  static void note_variant(DerivedAttempt& d, const AttemptRecord& r)
  {
    if (d.variant || d.kind == domain::AttemptKind::config) {
      return;
    }
    const std::string& kernel = d.record.short_name.empty() ? r.short_name : d.record.short_name;
    std::vector<std::string_view> names;
    if (r.candidate) {
      const auto colon = r.candidate->rfind(':');
      names.push_back(colon != std::string::npos && domain::is(r.origin, domain::AttemptOrigin::ledger)
                          ? std::string_view(*r.candidate).substr(colon + 1)
                          : candidate_part(*r.candidate, kernel));
    }
    if (r.backend) {
      names.emplace_back(*r.backend);
    }
    if (r.short_name != kernel) {
      names.emplace_back(r.short_name);
    }
    if (d.candidate_short_name) {
      names.emplace_back(*d.candidate_short_name);
    }
    for (const auto name : names) {
      if (auto v = variant_named(name, kernel)) {
        d.variant = std::move(v);
        return;
      }
    }
  }

  void attach(DerivedAttempt& d, const RecordIn& in, bool is_ledger)
  {
    AttemptRecord& a = d.record;
    const AttemptRecord& r = in.record;
    note_variant(d, r);
    d.sources.push_back({in.source_id, r.json_pointer});
    fill(a.backend, r.backend);
    fill(a.winner_kind, r.winner_kind);
    fill(a.regime, r.regime);
    fill(a.isolated_speedup, r.isolated_speedup);
    fill(a.e2e_delta_pct, r.e2e_delta_pct);
    fill(a.gate, r.gate);
    fill(a.output_parity, r.output_parity);
    fill(a.parity_kind, r.parity_kind);
    fill(a.reason, r.reason);
    fill(a.round, r.round);
    fill(a.pct_gpu_time, r.pct_gpu_time);
    fill(a.task_dir, r.task_dir);
    if (a.op_class == domain::OpClass::unknown) {
      a.op_class = r.op_class;
    }
    if (a.lever_kind == domain::LeverKind::other) {
      a.lever_kind = r.lever_kind;
    }
    if (a.lever.empty()) {
      a.lever = r.lever;
    }
    if (is_ledger && verdict_rank(r.verdict_raw) < verdict_rank(a.verdict_raw)) {
      a.verdict_raw = r.verdict_raw;
      a.verdict = r.verdict;
    } else if (a.verdict == domain::Verdict::unknown) {
      a.verdict = r.verdict;
      fill(a.verdict_raw, r.verdict_raw);
    }
    // An integrate_result that names no backend learns it from the bake-off.
    if (a.lever == "authored kernel" && a.backend) {
      a.lever = "authored " + *a.backend + " kernel";
    } else if (a.lever == "code patch" && a.backend) {
      a.lever = "code patch (" + *a.backend + ")";
    }
    d.measured = has_numbers(a);
  }

  const std::set<std::string>& m_known;
  std::vector<Warning>& m_warnings;
  std::vector<DerivedAttempt> m_out;
  bool m_ambiguous = false;
};

} // namespace

bool isolated_agrees(double a, double b)
{
  return std::fabs(a - b) <= 0.001 * std::max(std::fabs(a), std::fabs(b)) + 1e-12;
}

bool e2e_agrees(double a, double b)
{
  return std::fabs(a - b) <= 0.01 + 1e-9;
}

std::vector<DerivedAttempt> build_attempts(std::vector<RecordIn> records, const std::set<std::string>& known,
                                           std::vector<Warning>& warnings)
{
  // Measured candidates in file order, then bake-offs, then references in
  // the order the workflow return lists them (ledger first).
  const auto rank = [](const std::string& origin) {
    static constexpr std::array<std::string_view, 7> k_order{"integrate", "sweep",   "opbench", "ledger",
                                                             "accepted",  "pending", "flagged"};
    const auto it = std::find(k_order.begin(), k_order.end(), origin);
    return static_cast<int>(it - k_order.begin());
  };
  std::stable_sort(records.begin(), records.end(), [&](const RecordIn& a, const RecordIn& b) {
    return rank(a.record.origin) < rank(b.record.origin);
  });
  Builder b(known, warnings);
  int ledger_index = 0;
  for (auto& in : records) {
    const std::string& origin = in.record.origin;
    if (domain::is(origin, domain::AttemptOrigin::integrate)) {
      b.add_integrate(std::move(in));
    } else if (domain::is(origin, domain::AttemptOrigin::sweep)) {
      b.add_candidate(in, "config:" + in.record.candidate.value_or(in.record.config_change.value_or("")));
    } else if (domain::is(origin, domain::AttemptOrigin::opbench) && has_numbers(in.record)) {
      b.add_bakeoff(std::move(in));
    } else {
      const bool ledger = domain::is(origin, domain::AttemptOrigin::ledger);
      b.add_reference(std::move(in), ledger ? ledger_index++ : -1);
    }
  }
  std::vector<DerivedAttempt> out = b.take();
  for (auto& d : out) {
    name_variant(d);
  }
  return out;
}

} // namespace rfdb::ingest
