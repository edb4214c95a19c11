// The roofline prediction an attempt was made on: the verdict that chose its
// kernel, as ingest joins it, the store keeps it (attempts.pred_* columns)
// and calibrate and report read it back. One struct for every layer.
#pragma once

#include "domain/roofline.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rfdb::domain {

// Text fields hold the stored spelling of their vocabulary (domain/vocab.hpp;
// nullopt = NULL: no prediction, or the verdict did not say). Units as in a
// roofline verdict: fractions 0–1 for roofline_pct and target_eff, × for
// attainable_speedup, percent 0–100 for expected_e2e_gain_pct and pct_gpu_time.
struct Prediction {
  std::optional<std::string> source_kind;      // SourceKind: analytic | measured
  std::optional<std::string> stage;            // Stage: A | B | C
  std::optional<std::string> headroom_class;   // HeadroomClass
  std::optional<std::string> bound_type;       // BoundType
  std::optional<std::string> confidence;       // Confidence: low | medium | high
  std::optional<double> roofline_pct;          // fraction 0–1
  std::optional<double> target_eff;            // fraction 0–1
  std::optional<double> attainable_speedup;    // ×, max(1, target_eff / roofline_pct)
  std::optional<double> expected_e2e_gain_pct; // percent 0–100, the Amdahl gain
  std::optional<double> pct_gpu_time;          // percent 0–100 of the profiled GPU time
  std::optional<bool> suspect;                 // the verdict flagged its own numbers
  bool dispatch_bound = false;                 // launch-bound: no roofline verdict
  std::optional<std::string> round;            // profile round of the verdict ('0', 'head', '1', …)
  // A multi-case measured verdict's matched cases (attempts.pred_case_mix):
  // attainable_speedup is then their Amdahl mix; empty otherwise.
  std::vector<CaseShare> case_mix;
};

} // namespace rfdb::domain
