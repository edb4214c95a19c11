-- The calibration rows: every attempt of a non-retracted run with its run
-- identity, its prediction snapshot and its outcome (rfdb export). Each row
-- names its attempt as `rfdb show RUN --attempt KEY` does (run_id, attempt_key)
-- and carries the outcome's parity, rejection, deployment and the Director's
-- validation; reals are rounded to 4 decimals, as every JSON output is.
SELECT r.run_id, r.run_date, r.model, r.gfx, r.backend, r.isl, r.osl, r.conc,
       a.short_name, a.op_class, a.regime, a.lever, a.lever_kind, a.backend AS lever_backend,
       a.pred_stage, a.pred_source_kind, a.pred_confidence,
       round(a.pred_pct_gpu_time, 4) AS pred_pct_gpu_time,
       round(a.pred_roofline_pct, 4) AS pred_roofline_pct,
       round(a.pred_target_eff, 4) AS pred_target_eff,
       round(a.pred_attainable_speedup, 4) AS pred_attainable_speedup,
       round(a.pred_expected_e2e_gain_pct, 4) AS pred_expected_e2e_gain_pct,
       a.pred_headroom_class, a.pred_bound_type, a.pred_suspect,
       round(a.isolated_speedup, 4) AS isolated_speedup,
       round(a.e2e_delta_pct, 4) AS e2e_delta_pct,
       round(a.post_efficiency, 4) AS post_efficiency, a.gate, a.verdict,
       a.attempt_key, a.candidate, a.output_parity, a.reject_reason, a.deployed,
       a.validation_class, round(a.validation_speedup, 4) AS validation_speedup
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
WHERE a.run_id NOT IN (SELECT run_id FROM retractions)
ORDER BY r.run_date, r.run_id, a.short_name, a.attempt_key;
