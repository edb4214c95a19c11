#include "support/attempts.hpp"

#include "domain/vocab.hpp"

#include <utility>

namespace rfdb::test {

store::Attempt measured_gemm_attempt(std::string run_id, std::string attempt_key, double isolated_speedup)
{
  store::Attempt a;
  a.run_id = std::move(run_id);
  a.attempt_key = std::move(attempt_key);
  a.short_name = "gemm_bf16";
  a.op_class = domain::OpClass::gemm;
  a.lever = "hipBLASLt tuned solution";
  a.lever_kind = domain::LeverKind::tuning;
  a.verdict = domain::Verdict::confirmed;
  a.gate = "accepted";
  a.measured = true;
  a.isolated_speedup = isolated_speedup;
  a.validation_class = domain::ValidationClass::unknown;
  return a;
}

} // namespace rfdb::test
