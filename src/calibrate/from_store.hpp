// Evidence rows from the store → calibration observations (a plain mapping;
// every judgement about which rows count happens in priors.cpp).
#pragma once

#include "calibrate/observation_table.hpp"
#include "calibrate/priors.hpp"
#include "calibrate/priors_coherence.hpp"
#include "store/evidence.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::calibrate {

// The gfx and regime a stored run's gfx and a verdict's regime are keyed under in the priors
// (as observations_from groups them): gfx normalized ("MI355X" → "gfx950"; "" stays "", which
// group_name reads as "unknown"), regime decode | prefill | mixed | unknown.
std::string priors_gfx_key(std::string_view raw);
std::string priors_regime_key(std::string_view raw);

// The calibration view of every attempt of `evidence` (in its order), with its
// run's date and GPU from evidence.runs: the one place a store::Attempt becomes
// an Observation.
std::vector<Observation> observations_from(const store::Evidence& evidence);

// The right-censored observations of the runs inside `filter`
// (store::for_each_censored_head: heads never tried whose verdict had
// roofline_pct >= target_eff, or was banded saturated), as Observations with
// `censored` set, gfx and regime grouped as observations_from groups them.
// Errors: db.
Result<std::vector<Observation>> censored_observations(store::Database& db,
                                                       const store::EvidenceFilter& filter);

// The estimator's rows of every non-retracted run inside `filter`, read from
// the materialized observations table into a compact table, with gfx and
// regime grouped as observations_from groups them, followed by the censored
// heads (censored_observations): compute_priors_from_table on it gives what it
// gives on observations_from(load_evidence(…)) + censored_observations(…). Errors: db.
Result<ObservationTable> load_observations(store::Database& db, const store::EvidenceFilter& filter);

// The priors of the evidence inside `filter` (`rfdb priors`): load_observations,
// the shifts detected in it (detect_shifts_from_table, attributed to the stack
// change between their two runs: stack_change on runs.backend/backend_version)
// into params.shifts, then compute_priors_from_table. The result's
// params.shifts lists them. Errors: db; as compute_priors.
Result<PriorsResult> compute_priors_from_store(store::Database& db, const store::EvidenceFilter& filter,
                                               const PriorsParams& params);

// The priors at two dates from one read of the evidence (`rfdb priors
// --compare-as-of/--compare-since`): `after` as of params.as_of, `before` as
// of `before_as_of` (YYYY-MM-DD). Errors: as compute_priors_from_store.
struct PriorsAtTwoDates {
  PriorsResult before;
  PriorsResult after;
};
Result<PriorsAtTwoDates> compute_priors_at_two_dates(store::Database& db, const store::EvidenceFilter& filter,
                                                     const PriorsParams& params,
                                                     const std::string& before_as_of);

// The priors as of each date of `as_of_dates` (YYYY-MM-DD; "" = the newest run date), from one
// read of the evidence (`rfdb rescore`): each one what compute_priors_from_store gives with
// params.as_of set to that date (its own shifts detected and attributed). In the order given.
// Errors: as compute_priors_from_store.
Result<std::vector<PriorsResult>> compute_priors_at_dates(store::Database& db,
                                                          const store::EvidenceFilter& filter,
                                                          const PriorsParams& params,
                                                          const std::vector<std::string>& as_of_dates);

// One key explained over the full evidence rows inside `filter` (`rfdb priors
// --explain KEY`: each attempt with its kernel and lever), with the shifts
// detected and attributed as compute_priors_from_store does: explain_priors,
// and explain_children when the key lies outside its children's range.
// Errors: db; as compute_priors.
struct StoredKeyExplanation {
  KeyExplanation key;
  std::optional<ChildrenCoherence> children;
};
Result<StoredKeyExplanation> explain_priors_from_store(store::Database& db,
                                                       const store::EvidenceFilter& filter,
                                                       const PriorsParams& params, const PriorsKey& key);

} // namespace rfdb::calibrate
