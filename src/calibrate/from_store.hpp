// Evidence rows from the store → calibration observations (a plain mapping;
// every judgement about which rows count happens in priors.cpp).
#pragma once

#include "calibrate/priors.hpp"
#include "store/evidence.hpp"

#include <vector>

namespace rfdb::calibrate {

std::vector<Observation> observations_from(const std::vector<store::EvidenceAttempt>& attempts);

} // namespace rfdb::calibrate
