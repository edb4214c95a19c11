# target_eff priors (fraction of roofline) calibrated by `rfdb priors`, as of 2026-08-15.
# Levels: class; prior strength k=2. Regenerate rather than edit.
# *_EVIDENCE: per value, n observations, runs (distinct runs), source (calibrated: its own
# observations; parent: copied from its parent key; seed: no observations in the class) and
# the 90 % interval [lo, hi] (None: fewer than 2 runs, or no observations).
# Evidence options: --include-biased-profiler.
# elementwise: seed, no observations
TARGET_EFF = {"gemm": 0.8791, "moe": 0.9049, "elementwise": 0.8750, "attn": 0.5356}
TARGET_EFF_EVIDENCE = {
    "gemm": {"n": 2, "runs": 1, "source": "calibrated", "interval": None},
    "moe": {"n": 1, "runs": 1, "source": "calibrated", "interval": None},
    "elementwise": {"n": 0, "runs": 0, "source": "seed", "interval": None},
    "attn": {"n": 2, "runs": 2, "source": "calibrated", "interval": [0.2808, 0.5800]},
}
# Multiply a verdict's expected_e2e_gain_pct by E2E_TRANSFER[(op_class, regime)]; keys with fewer
# than 2 runs are absent: use the raw Amdahl ceiling there. A ratio above 1 from fewer than
# 5 runs is capped at 1.0 (capped: True in E2E_TRANSFER_EVIDENCE).
# ("gemm", "prefill"): raw Amdahl ceiling, 1 run (absent from E2E_TRANSFER)
# ("moe", "decode"): raw Amdahl ceiling, 1 run (absent from E2E_TRANSFER)
# ("elementwise", "prefill"): raw Amdahl ceiling, 1 run (absent from E2E_TRANSFER)
# ("attn", "decode"): raw Amdahl ceiling, 1 run (absent from E2E_TRANSFER)
E2E_TRANSFER = {}
E2E_TRANSFER_EVIDENCE = {
    ("gemm", "prefill"): {"runs": 1, "attempts": 1, "source": "raw", "interval": None, "capped": False, "beyond_ceiling": 0},
    ("moe", "decode"): {"runs": 1, "attempts": 1, "source": "raw", "interval": None, "capped": False, "beyond_ceiling": 0},
    ("elementwise", "prefill"): {"runs": 1, "attempts": 1, "source": "raw", "interval": None, "capped": False, "beyond_ceiling": 0},
    ("attn", "decode"): {"runs": 1, "attempts": 1, "source": "raw", "interval": None, "capped": False, "beyond_ceiling": 0},
}
