// Test support: store::Attempt records built for the tests that need one
// without a parser (the report's input builder, the attempt member table).
#pragma once

#include "store/attempt.hpp"

#include <string>

namespace rfdb::test {

// A measured gemm tuning attempt of `run_id` ("gemm_bf16", lever "hipBLASLt
// tuned solution", gate accepted, verdict confirmed, validation_class
// unknown) with `isolated_speedup` (×) and no prediction; set the rest.
store::Attempt measured_gemm_attempt(std::string run_id, std::string attempt_key, double isolated_speedup);

} // namespace rfdb::test
