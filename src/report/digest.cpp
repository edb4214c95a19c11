// The scoped attempts folded one at a time into what the playbook's
// sections show (report/digest.hpp).
#include "report/digest.hpp"

#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "report/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <tuple>

namespace rfdb::report {

void MissList::add(double ratio, const AttemptInfo& attempt)
{
  ++total;
  const auto before = [this](double r, const AttemptInfo& a, const Miss& m) {
    if (r != m.ratio) {
      return descending ? r > m.ratio : r < m.ratio;
    }
    return std::tie(a.run_id, a.attempt_key) < std::tie(m.attempt.run_id, m.attempt.attempt_key);
  };
  if (kept.size() == k_misses_shown && !before(ratio, attempt, kept.back())) {
    return;
  }
  auto at = kept.begin();
  while (at != kept.end() && !before(ratio, attempt, *at)) {
    ++at;
  }
  kept.insert(at, Miss{ratio, attempt});
  if (kept.size() > k_misses_shown) {
    kept.pop_back();
  }
}

void MissList::merge(MissList&& other)
{
  const std::size_t all = total + other.total;
  for (const Miss& m : other.kept) {
    add(m.ratio, m.attempt);
  }
  total = all;
}

AttemptDigest::AttemptDigest()
{
  over.descending = false;
}

void AttemptDigest::number_runs(std::shared_ptr<const std::vector<std::string>> run_ids)
{
  m_index.run_ids = std::make_shared<detail::RunIds>(std::move(run_ids));
}

namespace {

constexpr double k_none = std::numeric_limits<double>::quiet_NaN();

// The larger of a best so far and a value (NaN: none, on either side).
double best_of(double best, double value)
{
  if (std::isnan(value)) {
    return best;
  }
  return std::isnan(best) ? value : std::max(best, value);
}

std::optional<double> optional_of(double best)
{
  return std::isnan(best) ? std::nullopt : std::optional<double>(best);
}

} // namespace

void AttemptDigest::note_best(std::uint32_t run, std::uint32_t kernel, const std::optional<double>& e2e_pct,
                              const std::optional<double>& isolated)
{
  if (m_best.empty() || m_best.back().run != run || m_best.back().kernel != kernel) {
    if (m_best.size() == m_best.capacity() && m_best.size() >= 1024) {
      compact_best(); // grows only when at least half is distinct
    }
    m_best.push_back(Best{run, kernel, k_none, k_none});
  }
  Best& b = m_best.back();
  b.e2e_pct = best_of(b.e2e_pct, e2e_pct.value_or(k_none));
  b.isolated = best_of(b.isolated, isolated.value_or(k_none));
}

void AttemptDigest::compact_best()
{
  const auto key = [](const Best& b) { return std::pair(b.run, b.kernel); };
  std::sort(m_best.begin(), m_best.end(), [&](const Best& x, const Best& y) { return key(x) < key(y); });
  std::size_t out = 0; // m_best[0, out): merged so far (out never passes the element read)
  for (const Best& next : m_best) {
    if (out != 0 && key(m_best[out - 1]) == key(next)) {
      Best& b = m_best[out - 1];
      b.e2e_pct = best_of(b.e2e_pct, next.e2e_pct);
      b.isolated = best_of(b.isolated, next.isolated);
    } else {
      m_best[out++] = next;
    }
  }
  m_best.resize(out);
}

void AttemptDigest::seal()
{
  compact_best();
  m_sealed = true;
}

RealizedPick AttemptDigest::realized(const std::string& run_id, const std::string& kernel,
                                     std::uint32_t run_index) const
{
  RealizedPick p;
  p.short_name = kernel;
  const auto run = m_index.run_ids->find(run_id, run_index);
  const auto name = m_caution_names.find(kernel);
  if (!m_sealed || !run || name == m_caution_names.end()) {
    return p;
  }
  const auto it = std::lower_bound(m_best.begin(), m_best.end(), std::pair(*run, name->second),
                                   [](const Best& b, const std::pair<std::uint32_t, std::uint32_t>& k) {
                                     return std::pair(b.run, b.kernel) < k;
                                   });
  if (it != m_best.end() && it->run == *run && it->kernel == name->second) {
    p.best_e2e_pct = optional_of(it->e2e_pct);
    p.best_isolated = optional_of(it->isolated);
  }
  return p;
}

void AttemptDigest::add(const AttemptInfo& a)
{
  ++attempts;
  newest.see(a.run_date);
  const bool config = is_config_trial(a);
  const bool usable = has_usable_prediction(a);
  // Calibration: per op class samples (serving-config trials have no kernel
  // prediction), and the misses beyond the noise band.
  if (config) {
    ++config_trials;
  } else {
    ClassSample& c = by_class[a.op_class.empty() ? "unknown" : a.op_class];
    ++c.attempts;
    if (usable) {
      c.predicted.push_back(*a.prediction.attainable_speedup);
    }
    if (a.isolated_speedup) {
      c.measured.push_back(*a.isolated_speedup);
      // Not a number (both infinite, written into the store by hand): no
      // ratio, since a NaN leaves a median to the samples' order.
      if (const double r = usable ? *a.isolated_speedup / *a.prediction.attainable_speedup : k_none;
          !std::isnan(r)) {
        c.ratio.push_back(r);
      }
    }
  }
  const bool evidence = speed_is_evidence(a);
  if (a.isolated_speedup && domain::is_isolated_win(*a.isolated_speedup) && usable && evidence) {
    const double r = *a.isolated_speedup / *a.prediction.attainable_speedup;
    if (domain::beats_prediction(r, 1.0)) {
      under.add(r, a);
    } else if (r * (1.0 + domain::k_iso_noise) < 1.0) {
      over.add(r, a);
    }
  }
  if (keep_all_cautions) {
    detail::attempt_cautions(a, cautions, &m_index);
  } else {
    m_raised.clear();
    detail::attempt_cautions(a, m_raised, &m_index, [this, &a](const Caution& c) {
      const CautionId id{m_index.run_ids->id_of(c.run_id, a.run_index), name_id(c.short_name),
                         name_id(c.lever_key), static_cast<std::uint32_t>(c.kind)};
      if (m_caution_keys.insert(id).second) {
        ++distinct_run_cautions;
      }
      // Its text is needed when it may be shown: it ties a shown one, there
      // is room, or it comes before the last one shown.
      return cautions.size() < k_run_cautions ||
             std::any_of(cautions.begin(), cautions.end(),
                         [&](const Caution& t) { return detail::same_caution(c, t); }) ||
             detail::run_caution_less(c, cautions.back(), false);
    });
    for (auto& c : m_raised) {
      keep_caution(std::move(c));
    }
  }
  if (in_what_works(a)) {
    detail::add_line_attempt(lines, m_index, a);
  }
  // Routing quality: the best e2e delta and isolated speedup of every
  // (run, kernel) it may pick.
  if (evidence && (a.e2e_delta_pct || a.isolated_speedup)) {
    note_best(m_index.run_ids->id_of(a.run_id, a.run_index), name_id(a.short_name), a.e2e_delta_pct,
              a.isolated_speedup);
  }
}

void AttemptDigest::merge(AttemptDigest&& other)
{
  attempts += other.attempts;
  config_trials += other.config_trials;
  newest.see(other.newest.value());
  for (auto& [op_class, c] : other.by_class) {
    ClassSample& to = by_class[op_class];
    to.attempts += c.attempts;
    to.predicted.insert(to.predicted.end(), c.predicted.begin(), c.predicted.end());
    to.measured.insert(to.measured.end(), c.measured.begin(), c.measured.end());
    to.ratio.insert(to.ratio.end(), c.ratio.begin(), c.ratio.end());
  }
  under.merge(std::move(other.under));
  over.merge(std::move(other.over));
  // The other's numbers of kernel and lever key texts, and of runs, in this
  // digest's numbering (runs numbered by the same list keep their number).
  std::vector<std::uint32_t> names(other.m_caution_names.size());
  for (const auto& [name, id] : other.m_caution_names) {
    names[id] = name_id(name);
  }
  const auto run_of = [&](std::uint32_t id) {
    return m_index.run_ids->id_of(other.m_index.run_ids->name(id), id);
  };
  if (keep_all_cautions) {
    cautions.insert(cautions.end(), std::make_move_iterator(other.cautions.begin()),
                    std::make_move_iterator(other.cautions.end()));
  } else {
    // The k_run_cautions first caution groups of the union are among each
    // side's first ones, each with the smallest text of its group.
    for (const CautionId& c : other.m_caution_keys) {
      m_caution_keys.insert(CautionId{run_of(c.run), names[c.kernel], names[c.lever_key], c.kind});
    }
    distinct_run_cautions = m_caution_keys.size();
    for (auto& c : other.cautions) {
      keep_caution(std::move(c));
    }
  }
  detail::merge_lines(lines, m_index, std::move(other.lines));
  for (const Best& b : other.m_best) {
    m_best.push_back(Best{run_of(b.run), names[b.kernel], b.e2e_pct, b.isolated});
  }
  compact_best();
}

std::uint32_t AttemptDigest::name_id(const std::string& name)
{
  return m_caution_names.try_emplace(name, static_cast<std::uint32_t>(m_caution_names.size())).first->second;
}

void AttemptDigest::keep_caution(Caution&& c)
{
  for (auto& t : cautions) {
    if (detail::same_caution(c, t)) {
      if (c.text < t.text) {
        t = std::move(c); // the duplicate that sorts first is kept
      }
      return;
    }
  }
  const auto at =
      std::upper_bound(cautions.begin(), cautions.end(), c,
                       [](const Caution& x, const Caution& y) { return detail::run_caution_less(x, y); });
  cautions.insert(at, std::move(c));
  if (cautions.size() > k_run_cautions) {
    cautions.pop_back();
  }
}

bool head_less(const HeadVerdict& a, const HeadVerdict& b)
{
  return std::forward_as_tuple(b.run_date, a.run_id, b.pct_gpu_time, a.short_name) <
         std::forward_as_tuple(a.run_date, b.run_id, a.pct_gpu_time, b.short_name);
}

void HeadDigest::watch(std::string run_id)
{
  m_watch = std::move(run_id);
}

void HeadDigest::number_runs(std::shared_ptr<const std::vector<std::string>> run_ids)
{
  m_run_ids = std::make_shared<detail::RunIds>(std::move(run_ids));
}

void HeadDigest::add_run(std::span<const HeadVerdict> run_heads)
{
  if (run_heads.empty()) {
    return;
  }
  heads += run_heads.size();
  // The latest verdict (highest round) per kernel; the first of equals.
  std::vector<const HeadVerdict*>& latest = m_latest;
  latest.clear();
  for (const auto& h : run_heads) {
    const auto it = std::find_if(latest.begin(), latest.end(),
                                 [&](const HeadVerdict* l) { return l->short_name == h.short_name; });
    if (it == latest.end()) {
      latest.push_back(&h);
    } else if (h.round > (*it)->round) {
      *it = &h;
    }
  }
  bool flagged = false;
  for (const HeadVerdict* p : latest) {
    const HeadVerdict& h = *p;
    flagged = flagged || h.is_newest_run;
    if (!domain::is(h.headroom_class, domain::HeadroomClass::saturated) ||
        h.pct_gpu_time < domain::k_head_min_pct) {
      continue;
    }
    // A disputed head is grouped apart: listed with both figures, never rerouted.
    auto& groups = h.disputed ? m_disputed : m_groups;
    ++(h.disputed ? disputed_heads : saturated_heads);
    std::pair<std::string, std::string> key{h.op_class.empty() ? "unknown" : h.op_class,
                                            domain::gfx_key(h.gfx)};
    (h.disputed ? m_disputed_runs : m_group_runs)[key].insert(m_run_ids->id_of(h.run_id, h.run_index),
                                                              m_run_ids);
    auto it = groups.find(key);
    if (it == groups.end()) {
      it = groups.emplace(std::move(key), SaturatedGroup{h, 0, 0}).first;
    } else if (head_less(h, it->second.newest)) {
      it->second.newest = h;
    }
    ++it->second.heads;
  }
  const HeadVerdict& front = *latest.front();
  const auto newer = [&](const std::vector<HeadVerdict>& than) {
    return than.empty() ||
           std::tie(front.run_date, front.run_id) > std::tie(than.front().run_date, than.front().run_id);
  };
  const auto keep = [&](std::vector<HeadVerdict>& into) {
    into.clear();
    for (const HeadVerdict* h : latest) {
      into.push_back(*h);
    }
  };
  if (front.run_id == m_watch) {
    keep(m_watched);
  }
  if (flagged && newer(m_flagged)) {
    keep(m_flagged);
  }
  if (newer(m_newest)) {
    keep(m_newest);
  }
}

namespace {

std::vector<SaturatedGroup>
sorted_groups(const std::map<std::pair<std::string, std::string>, SaturatedGroup>& groups,
              const std::map<std::pair<std::string, std::string>, detail::RunSet>& runs)
{
  std::vector<SaturatedGroup> out;
  for (const auto& [key, g] : groups) {
    out.push_back(g);
    out.back().runs = runs.at(key).size();
  }
  std::sort(out.begin(), out.end(), [](const SaturatedGroup& a, const SaturatedGroup& b) {
    return key_less({a.newest.op_class, domain::gfx_key(a.newest.gfx), ""},
                    {b.newest.op_class, domain::gfx_key(b.newest.gfx), ""});
  });
  return out;
}

} // namespace

std::vector<SaturatedGroup> HeadDigest::saturated_groups() const
{
  return sorted_groups(m_groups, m_group_runs);
}

std::vector<SaturatedGroup> HeadDigest::disputed_groups() const
{
  return sorted_groups(m_disputed, m_disputed_runs);
}

void HeadDigest::flag_newest(const std::string& run_id)
{
  if (m_newest.empty() || m_newest.front().run_id != run_id) {
    return;
  }
  for (auto& h : m_newest) {
    h.is_newest_run = true;
  }
  if (m_flagged.empty() || std::tie(m_newest.front().run_date, m_newest.front().run_id) >
                               std::tie(m_flagged.front().run_date, m_flagged.front().run_id)) {
    m_flagged = m_newest;
  }
}

std::pair<std::string, std::vector<HeadVerdict>> HeadDigest::newest(bool have_runs) const
{
  const std::vector<HeadVerdict>* shown = &m_newest;
  std::string run;
  if (!m_flagged.empty()) {
    shown = &m_flagged;
  } else if (have_runs) {
    run = m_watch;
    shown = &m_watched;
  }
  std::vector<HeadVerdict> out;
  if (!shown->empty()) {
    run = shown->front().run_id;
    out = *shown;
  }
  std::sort(out.begin(), out.end(), head_less);
  return {run, std::move(out)};
}

} // namespace rfdb::report
