# target_eff priors (fraction of roofline) calibrated by `rfdb priors`, as of 2026-08-15.
# Class level; prior strength k=3. Regenerate rather than edit.
TARGET_EFF = {"gemm": 0.8918, "moe": 0.9036, "elementwise": 0.8750, "attn": 0.5278}
