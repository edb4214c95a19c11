// The canonical run of tests/fixtures/runs/README.md, run 1 (Qwen3.5-35B-A3B-FP8, gfx950, conc 64)
// as calibration observations, shared by the calibrate tests.
#pragma once

#include "calibrate/priors.hpp"

#include <vector>

namespace rfdb::calibrate::test {

// fused_moe_kernel: 0.88 of roofline, 1.047× isolated, −0.064 % e2e.
inline Observation canonical_moe()
{
  Observation o;
  o.run_id = "e2e_qwen35_a3b_fp8_gfx950";
  o.run_date = "2025-05-20";
  o.round = "1";
  o.short_name = "fused_moe_kernel";
  o.lever = "moe_tuning_db";
  o.op_class = "moe";
  o.gfx = "gfx950";
  o.regime = "decode";
  o.isolated_speedup = 1.047;
  o.e2e_delta_pct = -0.064;
  o.prediction.roofline_pct = 0.88;
  o.prediction.target_eff = 0.90;
  o.prediction.attainable_speedup = 1.023;
  o.prediction.headroom_class = "saturated";
  o.prediction.confidence = "medium";
  o.prediction.pct_gpu_time = 26.45;
  return o;
}

// kernel_paged_attention_2d: 0.18 of roofline, 1.56× isolated, e2e not reported.
inline Observation canonical_attn()
{
  Observation o = canonical_moe();
  o.short_name = "kernel_paged_attention_2d";
  o.lever = "attention_backend";
  o.op_class = "attn";
  o.isolated_speedup = 1.56;
  o.e2e_delta_pct.reset();
  o.prediction.roofline_pct = 0.18;
  o.prediction.target_eff = 0.50;
  o.prediction.attainable_speedup = 2.778;
  o.prediction.headroom_class = "underperforming";
  o.prediction.pct_gpu_time = 8.86;
  return o;
}

inline std::vector<Observation> canonical()
{
  return {canonical_moe(), canonical_attn()};
}

} // namespace rfdb::calibrate::test
