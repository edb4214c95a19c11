// Evidence rows from the store → calibration observations (a plain mapping;
// every judgement about which rows count happens in priors.cpp).
#pragma once

#include "calibrate/priors.hpp"
#include "store/evidence.hpp"

#include <vector>

namespace rfdb::calibrate {

// The calibration view of every attempt of `evidence` (in its order), with its
// run's date and GPU from evidence.runs: the one place a store::Attempt becomes
// an Observation.
std::vector<Observation> observations_from(const store::Evidence& evidence);

// The estimator's rows of every non-retracted run inside `filter`, read from
// the materialized observations table into a compact table, with gfx and
// regime grouped as observations_from groups them: compute_priors_from_table on it gives
// what it gives on observations_from(load_evidence(…)). Errors: db.
Result<ObservationTable> load_observations(store::Database& db, const store::EvidenceFilter& filter);

} // namespace rfdb::calibrate
