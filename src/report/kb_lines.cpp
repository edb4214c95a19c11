// GEAK kb records on What works lines and in Cautions (rules in kb_lines.hpp).
#include "report/kb_lines.hpp"

#include "domain/kb_identity.hpp"
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "report/cautions.hpp"
#include "report/lines.hpp"
#include "report/lookup.hpp"
#include "report/text.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace rfdb::report {

namespace {

bool e2e_lane(const KbRecordInfo& r)
{
  return r.lane == "e2e";
}

std::string joined(const std::string& a, const std::string& b)
{
  return b.empty() ? a : a.empty() ? b : a + " " + b;
}

// The lever a record states: direction, else strategy, else backend.
std::string kb_lever_text(const KbRecordInfo& r)
{
  for (const std::string* t : {&r.direction, &r.strategy, &r.backend}) {
    if (std::string l = one_line(*t); !l.empty()) {
      return l;
    }
  }
  return "unnamed lever";
}

KbSource source_of(const KbRecordInfo& r)
{
  KbSource k;
  k.record_key = r.record_key;
  k.identity = kb_identity(r);
  k.content_signature = r.content_signature;
  k.validations = r.validations;
  k.failures = r.failures;
  k.not_reproduced = r.not_reproduced;
  k.inapplicable = r.inapplicable;
  k.geak_reproductions = r.reproductions;
  k.retired = r.retired;
  k.retired_why = r.retired_why;
  k.last_outcomes = r.last_outcomes;
  return k;
}

} // namespace

std::string kb_identity(const KbRecordInfo& r)
{
  std::vector<std::string> parts;
  const auto add = [&](const std::string& v) {
    if (std::string t = one_line(v); !t.empty()) {
      parts.push_back(std::move(t));
    }
  };
  if (e2e_lane(r)) {
    add(r.model);
    add(r.gfx);
    add(joined(r.framework, r.framework_version));
    add(r.precision);
  } else {
    add(r.gfx);
    add(r.kernel_name);
    add(r.backend);
    add(joined(r.framework, r.framework_version));
  }
  return util::join(parts, " \u00b7 ");
}

ReuseKey kb_reuse_key(const KbRecordInfo& r)
{
  if (e2e_lane(r)) {
    return {std::string(domain::to_string(domain::ReuseClass::config)), domain::gfx_key(r.gfx),
            std::string(domain::to_string(domain::Regime::both))};
  }
  return {std::string(domain::op_class_from_top_n("", r.kernel_name).value), domain::gfx_key(r.gfx),
          domain::normalize_regime("")};
}

std::optional<double> kb_e2e_pct(const KbRecordInfo& r)
{
  if (!e2e_lane(r)) {
    return std::nullopt;
  }
  if (r.throughput_tok_s && r.baseline_tok_s && *r.baseline_tok_s > 0.0) {
    return 100.0 * (*r.throughput_tok_s / *r.baseline_tok_s - 1.0);
  }
  if (r.speedup && *r.speedup > 0.0) {
    return 100.0 * (*r.speedup - 1.0);
  }
  return std::nullopt;
}

bool kb_measured_positive(const KbRecordInfo& r)
{
  if (e2e_lane(r)) {
    const auto pct = kb_e2e_pct(r);
    return pct && domain::is_e2e_gain(*pct);
  }
  return r.speedup && domain::is_isolated_win(*r.speedup);
}

std::string kb_ledger_text(int validations, int failures, int not_reproduced, int inapplicable)
{
  return fmt::format("kb: {} validated, {} failed, {} not reproduced, {} inapplicable", validations, failures,
                     not_reproduced, inapplicable);
}

namespace {

// A record joins a run line by its content signature only when it is about the same kernel on
// the same GPU: equal signatures of two kernels' patches (a shared boilerplate hunk) say nothing
// about either. The record's gfx (when stated) is the line's, and a kernel-lane record's kernel
// (canon_name, folded) is one of the line's kernels; an e2e-lane record names no kernel.
bool fits_line(const KbRecordInfo& r, const detail::Line& l)
{
  if (!r.gfx.empty() && domain::gfx_key(r.gfx) != l.key.gfx) {
    return false;
  }
  if (r.kernel_name.empty()) {
    return true;
  }
  const std::string want = fold_kernel_name(domain::kb::canon_name(r.kernel_name));
  return std::any_of(l.run_evidence.kernels.begin(), l.run_evidence.kernels.end(),
                     [&](const std::string& k) { return fold_kernel_name(k) == want; });
}

} // namespace

void detail::merge_kb(std::vector<Line>& lines, const ReportInput& scoped)
{
  if (scoped.kb_records.empty()) {
    return;
  }
  // In record_key order whatever the input's order: the lines come out the same.
  std::vector<const KbRecordInfo*> records;
  for (const auto& r : scoped.kb_records) {
    records.push_back(&r);
  }
  std::sort(records.begin(), records.end(),
            [](const KbRecordInfo* x, const KbRecordInfo* y) { return x->record_key < y->record_key; });
  std::unordered_map<std::string, std::vector<const KbRecordInfo*>> by_signature;
  for (const KbRecordInfo* r : records) {
    if (!r->content_signature.empty()) {
      by_signature[r->content_signature].push_back(r);
    }
  }
  std::set<std::string> matched; // record keys on a run line
  std::set<std::string> taken;   // key text and lever key of every line
  for (Line& l : lines) {
    taken.insert(l.key.text() + "\n" + l.lever_key);
    for (const auto& [signature, runs] : l.signature_runs) {
      const auto it = by_signature.find(signature);
      if (it == by_signature.end()) {
        continue;
      }
      for (const KbRecordInfo* r : it->second) {
        if (!fits_line(*r, l)) {
          continue;
        }
        KbSource k = source_of(*r);
        k.reproduced_by.assign(runs.begin(), runs.end());
        l.kb_sources.push_back(std::move(k));
        matched.insert(r->record_key);
      }
    }
    std::sort(l.kb_sources.begin(), l.kb_sources.end(),
              [](const KbSource& x, const KbSource& y) { return x.record_key < y.record_key; });
  }
  // kb-only lines: the measured positive records that count and joined no line, one line per
  // content signature (a record without one alone), in record_key order.
  std::map<std::string, std::size_t> by_group;
  for (const KbRecordInfo* rp : records) {
    const KbRecordInfo& r = *rp;
    if (matched.count(r.record_key) != 0 || r.retired || !kb_measured_positive(r)) {
      continue;
    }
    const std::string group = r.content_signature.empty() ? "#" + r.record_key : r.content_signature;
    const auto [it, added] = by_group.try_emplace(group, lines.size());
    if (added) {
      Line l;
      l.key = kb_reuse_key(r);
      l.display = kb_lever_text(r);
      l.lever_key = domain::lever_key(l.display, l.key.op_class);
      if (!taken.insert(l.key.text() + "\n" + l.lever_key).second) {
        l.lever_key += "#kb:" + r.record_key; // one line per (key, lever key)
        taken.insert(l.key.text() + "\n" + l.lever_key);
      }
      l.kb_only = true;
      l.spellings.insert(l.display);
      lines.push_back(std::move(l));
    }
    Line& l = lines[it->second];
    l.kb_sources.push_back(source_of(r));
    if (!r.kernel_name.empty()) {
      l.run_evidence.kernels.insert(r.kernel_name);
    }
    if (const std::string b = one_line(r.backend); !b.empty()) {
      l.run_evidence.backends.insert(b);
    }
    if (e2e_lane(r)) {
      widen(l.kb_e2e_min, l.kb_e2e_max, kb_e2e_pct(r));
    } else {
      widen(l.kb_iso_min, l.kb_iso_max, r.speedup);
    }
    bump_date(l.kb_last_seen, r.date);
  }
}

std::vector<Caution> detail::kb_cautions(const ReportInput& scoped)
{
  std::vector<Caution> out;
  for (const auto& r : scoped.kb_records) {
    if (!r.retired) {
      continue;
    }
    Caution c;
    c.kind = CautionKind::kb_retired;
    c.key = kb_reuse_key(r);
    c.run_date = r.date;
    c.short_name = r.kernel_name.empty() ? r.model : r.kernel_name;
    c.lever_key = "kb:" + r.record_key;
    c.text = fmt::format(
        "Also verify before reusing {} ({}): kb record {} ({}) is retired: {}; last tested outcomes {}; {} "
        "(`rfdb show --finding {}`).",
        md_text(kb_lever_text(r)), c.key.text(), md_code(r.record_key), md_text(kb_identity(r)),
        md_text(r.retired_why.empty() ? std::string("retired") : r.retired_why),
        r.last_outcomes.empty() ? std::string("none") : util::join(r.last_outcomes, ", "),
        kb_ledger_text(r.validations, r.failures, r.not_reproduced, r.inapplicable), r.record_key);
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const Caution& x, const Caution& y) {
    return std::tie(y.run_date, x.lever_key, x.text) < std::tie(x.run_date, y.lever_key, y.text);
  });
  return out;
}

} // namespace rfdb::report
