// The scoped attempts folded one at a time into what the playbook's
// sections show (report/digest.hpp).
#include "report/digest.hpp"

#include "domain/normalize.hpp"
#include "domain/roofline.hpp"

#include <algorithm>
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

AttemptDigest::AttemptDigest()
{
  over.descending = false;
}

void AttemptDigest::need_realized(const std::string& run_id, const std::string& kernel)
{
  m_pick_run_known = false;
  RunPicks& picks = m_realized[run_id];
  for (const auto& [name, pick] : picks) {
    if (name == kernel) {
      return;
    }
  }
  picks.emplace_back(kernel, RealizedPick{});
}

RealizedPick AttemptDigest::realized(const std::string& run_id, const std::string& kernel) const
{
  RealizedPick p;
  if (const auto it = m_realized.find(run_id); it != m_realized.end()) {
    for (const auto& [name, pick] : it->second) {
      if (name == kernel) {
        p = pick;
      }
    }
  }
  p.short_name = kernel;
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
      if (usable) {
        c.ratio.push_back(*a.isolated_speedup / *a.prediction.attainable_speedup);
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
    detail::attempt_cautions(a, m_raised, &m_index, [this](const Caution& c) {
      const CautionId id{m_index.run_ids->id_of(c.run_id), name_id(c.short_name), name_id(c.lever_key),
                         static_cast<std::uint32_t>(c.kind)};
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
  if (what_works_exclusion(a).empty()) {
    detail::add_line_attempt(lines, m_index, a);
  }
  // Routing quality: the best e2e delta and isolated speedup of a pick.
  if (evidence && !m_realized.empty()) {
    if (RealizedPick* pick = pick_of(a.run_id, a.short_name); pick != nullptr) {
      RealizedPick& p = *pick;
      if (a.e2e_delta_pct) {
        p.best_e2e_pct = std::max(p.best_e2e_pct.value_or(*a.e2e_delta_pct), *a.e2e_delta_pct);
      }
      if (a.isolated_speedup) {
        p.best_isolated = std::max(p.best_isolated.value_or(*a.isolated_speedup), *a.isolated_speedup);
      }
    }
  }
}

std::uint32_t AttemptDigest::name_id(const std::string& name)
{
  return m_caution_names.try_emplace(name, static_cast<std::uint32_t>(m_caution_names.size())).first->second;
}

RealizedPick* AttemptDigest::pick_of(const std::string& run_id, const std::string& kernel)
{
  if (!m_pick_run_known || run_id != m_pick_run) {
    const auto it = m_realized.find(run_id);
    m_pick_run = run_id;
    m_pick_run_known = true;
    m_pick_picks = it == m_realized.end() ? nullptr : &it->second;
  }
  if (m_pick_picks == nullptr) {
    return nullptr;
  }
  for (auto& [name, pick] : *m_pick_picks) {
    if (name == kernel) {
      return &pick;
    }
  }
  return nullptr;
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

void HeadDigest::add_run(std::vector<HeadVerdict> run_heads)
{
  if (run_heads.empty()) {
    return;
  }
  heads += run_heads.size();
  // The latest verdict (highest round) per kernel; the first of equals.
  std::vector<HeadVerdict> latest;
  for (auto& h : run_heads) {
    const auto it = std::find_if(latest.begin(), latest.end(),
                                 [&](const HeadVerdict& l) { return l.short_name == h.short_name; });
    if (it == latest.end()) {
      latest.push_back(std::move(h));
    } else if (h.round > it->round) {
      *it = std::move(h);
    }
  }
  bool flagged = false;
  for (const auto& h : latest) {
    flagged = flagged || h.is_newest_run;
    if (!domain::is(h.headroom_class, domain::HeadroomClass::saturated) || h.pct_gpu_time < k_head_min_pct) {
      continue;
    }
    ++saturated_heads;
    std::pair<std::string, std::string> key{h.op_class.empty() ? "unknown" : h.op_class,
                                            domain::gfx_key(h.gfx)};
    m_group_runs[key].insert(m_run_ids->id_of(h.run_id), m_run_ids);
    auto it = m_groups.find(key);
    if (it == m_groups.end()) {
      it = m_groups.emplace(std::move(key), SaturatedGroup{h, 0, 0}).first;
    } else if (head_less(h, it->second.newest)) {
      it->second.newest = h;
    }
    ++it->second.heads;
  }
  const auto newer = [&](const std::vector<HeadVerdict>& than) {
    return than.empty() || std::tie(latest.front().run_date, latest.front().run_id) >
                               std::tie(than.front().run_date, than.front().run_id);
  };
  if (latest.front().run_id == m_watch) {
    m_watched = latest;
  }
  if (flagged && newer(m_flagged)) {
    m_flagged = latest;
  }
  if (newer(m_newest)) {
    m_newest = std::move(latest);
  }
}

std::vector<SaturatedGroup> HeadDigest::saturated_groups() const
{
  std::vector<SaturatedGroup> out;
  for (const auto& [key, g] : m_groups) {
    out.push_back(g);
    out.back().runs = m_group_runs.at(key).size();
  }
  std::sort(out.begin(), out.end(), [](const SaturatedGroup& a, const SaturatedGroup& b) {
    return key_less({a.newest.op_class, domain::gfx_key(a.newest.gfx), ""},
                    {b.newest.op_class, domain::gfx_key(b.newest.gfx), ""});
  });
  return out;
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

AttemptDigest digest_attempts(const ReportInput& scoped)
{
  AttemptDigest d;
  for (const auto& r : scoped.rankings) {
    d.need_realized(r.run_id, r.top_by_pct);
    d.need_realized(r.run_id, r.top_by_gain);
  }
  for (const auto& a : scoped.attempts) {
    d.add(a);
  }
  return d;
}

} // namespace rfdb::report
