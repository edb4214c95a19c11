// Evidence rows from the store → calibration observations (a plain mapping;
// every judgement about which rows count happens in priors.cpp).
#pragma once

#include "calibrate/observation_table.hpp"
#include "calibrate/priors.hpp"
#include "store/evidence.hpp"

#include <vector>

namespace rfdb::calibrate {

std::vector<Observation> observations_from(const std::vector<store::EvidenceAttempt>& attempts);

// The estimator's rows of every non-retracted run inside `filter`, read from
// the materialized observations table into a compact table, with gfx and
// regime grouped as observations_from groups them: compute_priors_from_table on it gives
// what it gives on observations_from(load_evidence(…).attempts). Errors: db.
Result<ObservationTable> load_observations(store::Database& db, const store::EvidenceFilter& filter);

} // namespace rfdb::calibrate
