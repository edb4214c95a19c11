-- PostgreSQL text of queries/export_attempts.sql: NULL run_date first, as in SQLite.
-- The calibration rows: every attempt of a non-retracted run with its run
-- identity, its prediction snapshot and its outcome (rfdb export).
SELECT r.run_id, r.run_date, r.model, r.gfx, r.backend, r.isl, r.osl, r.conc,
       a.short_name, a.op_class, a.regime, a.lever, a.lever_kind, a.backend AS lever_backend,
       a.pred_stage, a.pred_source_kind, a.pred_confidence, a.pred_pct_gpu_time,
       a.pred_roofline_pct, a.pred_target_eff, a.pred_attainable_speedup,
       a.pred_expected_e2e_gain_pct, a.pred_headroom_class, a.pred_bound_type, a.pred_suspect,
       a.isolated_speedup, a.e2e_delta_pct, a.post_efficiency, a.gate, a.verdict
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
WHERE a.run_id NOT IN (SELECT run_id FROM retractions)
ORDER BY r.run_date NULLS FIRST, r.run_id, a.short_name, a.attempt_key;
