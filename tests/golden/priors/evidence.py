# target_eff priors (fraction of roofline) calibrated by `rfdb priors`, as of 2026-08-24.
# Levels: class,gfx; prior strength k=2. Regenerate rather than edit.
# *_EVIDENCE: per value, n observations, runs (distinct runs), source (calibrated: its own
# observations; parent: copied from its parent key; seed: no observations in the class) and
# the 90 % interval [lo, hi] (None: fewer than 2 runs, or no observations).
# attn: seed, no observations
TARGET_EFF = {"gemm": 0.8788, "moe": 0.8257, "attn": 0.5000}
TARGET_EFF_EVIDENCE = {
    "gemm": {"n": 5, "runs": 2, "source": "calibrated", "interval": [0.8123, 0.8991]},
    "moe": {"n": 2, "runs": 1, "source": "calibrated", "interval": None},
    "attn": {"n": 0, "runs": 0, "source": "seed", "interval": None},
}
# moe:gfx942 copied from its parent (n 0)
TARGET_EFF_BY_GFX = {
    "gfx942": {"moe": 0.8257},
    "gfx950": {"gemm": 0.8788, "moe": 0.8257},
}
TARGET_EFF_BY_GFX_EVIDENCE = {
    "gfx942": {
        "moe": {"n": 0, "runs": 0, "source": "parent", "interval": None},
    },
    "gfx950": {
        "gemm": {"n": 5, "runs": 2, "source": "calibrated", "interval": [0.8123, 0.8991]},
        "moe": {"n": 2, "runs": 1, "source": "calibrated", "interval": None},
    },
}
# Multiply a verdict's expected_e2e_gain_pct by E2E_TRANSFER[(op_class, regime)]; keys with fewer
# than 2 runs are absent: use the raw Amdahl ceiling there. A ratio above 1 from fewer than
# 5 runs is capped at 1.0 (capped: True in E2E_TRANSFER_EVIDENCE).
# ("moe", "decode"): capped at 1.0 (2 runs, beyond ceiling 2)
# ("attn", "prefill"): raw Amdahl ceiling, 1 run (absent from E2E_TRANSFER)
E2E_TRANSFER = {("moe", "decode"): 1.0000, ("gemm", "decode"): 0.7826}
E2E_TRANSFER_EVIDENCE = {
    ("moe", "decode"): {"runs": 2, "attempts": 3, "source": "calibrated", "interval": [1.0000, 1.0000], "capped": True, "beyond_ceiling": 2},
    ("gemm", "decode"): {"runs": 6, "attempts": 9, "source": "calibrated", "interval": [0.6100, 0.9300], "capped": False, "beyond_ceiling": 1},
    ("attn", "prefill"): {"runs": 1, "attempts": 1, "source": "raw", "interval": None, "capped": False, "beyond_ceiling": 0},
}
