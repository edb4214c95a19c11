// The run-copy rule: a run's measured attempts against stored runs of its identity (see run_copy.hpp).
#include "ingest/run_copy.hpp"

#include "domain/vocab.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

namespace rfdb::ingest {

namespace {

// One measured attempt as the copy check compares it: short_name, isolated
// speedup in 1e-4 steps, e2e delta in 1e-3 steps (the precision producers
// print; a re-serialized copy may differ below it).
using MeasuredAttempt = std::tuple<std::string, std::optional<std::int64_t>, std::optional<std::int64_t>>;

MeasuredAttempt measured_attempt(std::string short_name, std::optional<double> iso, std::optional<double> e2e)
{
  const auto steps = [](std::optional<double> v, double scale) {
    return v ? std::optional(std::llround(*v * scale)) : std::nullopt;
  };
  return {std::move(short_name), steps(iso, 1e4), steps(e2e, 1e3)};
}

// The run's measured attempts, sorted: a multiset in canonical order.
std::vector<MeasuredAttempt> measured_attempts(const DerivedRun& run)
{
  std::vector<MeasuredAttempt> out;
  for (const auto& a : run.attempts) {
    const auto& r = a.record;
    if (r.isolated_speedup || r.e2e_delta_pct) {
      out.push_back(measured_attempt(r.short_name, r.isolated_speedup, r.e2e_delta_pct));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A stored run's measured attempts, sorted.
std::vector<MeasuredAttempt> stored_measured_attempts(const std::vector<store::MeasuredAttemptRow>& rows)
{
  std::vector<MeasuredAttempt> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    out.push_back(measured_attempt(r.short_name, r.isolated_speedup, r.e2e_delta_pct));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The partial-copy rule's attempts: measured kernel attempts with an
// isolated speedup (a config trial's coarse e2e delta alone, which
// independent sweeps repeat, never makes a copy).
bool is_copy_evidence(std::string_view kind, const std::optional<double>& iso)
{
  return iso.has_value() && domain::is(kind, domain::AttemptKind::kernel);
}
bool is_copy_evidence(domain::AttemptKind kind, const std::optional<double>& iso)
{
  return iso.has_value() && kind == domain::AttemptKind::kernel;
}

// One of `derived`'s attempts and the stored one it repeats: same kernel,
// same candidate dir or lever, isolated speedup equal to 4 decimals and e2e
// delta to 3 (none on both sides is equal).
std::optional<std::string> shared_attempt(const DerivedAttempt& mine, const store::MeasuredAttemptRow& theirs)
{
  const auto& r = mine.record;
  if (!is_copy_evidence(theirs.kind, theirs.isolated_speedup) || r.short_name != theirs.short_name ||
      measured_attempt(r.short_name, r.isolated_speedup, r.e2e_delta_pct) !=
          measured_attempt(theirs.short_name, theirs.isolated_speedup, theirs.e2e_delta_pct)) {
    return std::nullopt;
  }
  if (!(r.candidate && theirs.candidate && *r.candidate == *theirs.candidate) && r.lever != theirs.lever) {
    return std::nullopt;
  }
  return mine.key == theirs.attempt_key ? mine.key
                                        : fmt::format("{} (stored as {})", mine.key, theirs.attempt_key);
}

// The first stored run (by run_id) with `derived`'s identity that shares a
// measured kernel attempt with it (shared_attempt): a snapshot of a run with
// a candidate removed or added. Independent runs practically never measure
// the same isolated speedup to 4 decimals on the same kernel and lever
// (docs/artifacts.md, "Copies"). One narrow query per attempt.
Result<std::optional<CopyOf>> find_partial_copy(store::RunWriter& writer, const DerivedRun& derived)
{
  std::set<std::string> runs;
  for (const auto& a : derived.attempts) {
    const auto& r = a.record;
    if (!is_copy_evidence(a.kind, r.isolated_speedup)) {
      continue;
    }
    const auto [short_name, iso, e2e] = measured_attempt(r.short_name, r.isolated_speedup, r.e2e_delta_pct);
    std::vector<std::string> candidates;
    RFDB_TRY_ASSIGN(candidates, writer.copy_candidates(
                                    derived.run, short_name, static_cast<double>(*iso) / 1e4,
                                    e2e ? std::optional(static_cast<double>(*e2e) / 1e3) : std::nullopt));
    runs.insert(candidates.begin(), candidates.end());
  }
  for (const auto& other : runs) {
    std::vector<store::MeasuredAttemptRow> rows;
    RFDB_TRY_ASSIGN(rows, writer.measured_attempts(other));
    std::vector<std::string> shared;
    for (const auto& a : derived.attempts) {
      if (!is_copy_evidence(a.kind, a.record.isolated_speedup)) {
        continue;
      }
      for (const auto& row : rows) {
        if (auto key = shared_attempt(a, row)) {
          shared.push_back(std::move(*key));
          break;
        }
      }
    }
    if (!shared.empty()) {
      return CopyOf{other,
                    fmt::format("{} shared measured kernel attempt{}: {}", shared.size(),
                                shared.size() == 1 ? "" : "s", fmt::join(shared, ", ")),
                    true};
    }
  }
  return std::optional<CopyOf>();
}

} // namespace

// The stored run `derived` copies, if any (run_copy.hpp). Runs inside the
// write transaction, after the run's files are stored and derived, so a
// concurrent copy that committed first is seen. SQL narrows the candidates
// to runs with the identity and one matching attempt (or every file), so
// the cost does not grow with the number of runs sharing an identity.
Result<std::optional<CopyOf>> find_run_copy(store::RunWriter& writer, const DerivedRun& derived)
{
  const auto mine = measured_attempts(derived);
  if (!mine.empty()) {
    // Narrow by one attempt (a copy has them all); its rounded values are
    // within the query's tolerance. One with an isolated speedup lets the
    // query seek a narrow range of attempts_measured.
    const auto narrow = std::find_if(mine.begin(), mine.end(),
                                     [](const MeasuredAttempt& m) { return std::get<1>(m).has_value(); });
    const auto& [short_name, iso, e2e] = narrow != mine.end() ? *narrow : mine.front();
    const auto unscale = [](std::optional<std::int64_t> steps, double scale) {
      return steps ? std::optional(static_cast<double>(*steps) / scale) : std::nullopt;
    };
    std::vector<std::string> candidates;
    RFDB_TRY_ASSIGN(candidates,
                    writer.copy_candidates(derived.run, short_name, unscale(iso, 1e4), unscale(e2e, 1e3)));
    for (auto& other : candidates) {
      std::vector<store::MeasuredAttemptRow> rows;
      RFDB_TRY_ASSIGN(rows, writer.measured_attempts(other));
      if (stored_measured_attempts(rows) == mine) {
        return CopyOf{std::move(other), fmt::format("the same {} measured attempt{}", mine.size(),
                                                    mine.size() == 1 ? "" : "s")};
      }
    }
  }
  // Usually some file is stored nowhere else; only then is the join over
  // every shared file (linear in the runs sharing it) worth running.
  bool unshared = false;
  RFDB_TRY_ASSIGN(unshared, writer.has_unshared_file(derived.run.run_id));
  if (!unshared) {
    std::optional<std::string> file_copy;
    RFDB_TRY_ASSIGN(file_copy, writer.file_copy(derived.run));
    if (file_copy) {
      return CopyOf{std::move(*file_copy), "every file already stored there"};
    }
  }
  return find_partial_copy(writer, derived);
}

} // namespace rfdb::ingest
