# target_eff priors (fraction of roofline) calibrated by `rfdb priors`, as of 2026-08-15.
# Levels: class; prior strength k=3. Regenerate rather than edit.
TARGET_EFF = {"gemm": 0.8918, "moe": 0.9036, "elementwise": 0.8750, "attn": 0.5278}
# Multiply a verdict's expected_e2e_gain_pct by E2E_TRANSFER[(op_class, regime)]; keys with fewer
# than 2 runs are absent: use the raw Amdahl ceiling there.
E2E_TRANSFER = {}
