-- PostgreSQL text of queries/evidence_attempts.sql: NULL run_date first, as in SQLite. Optional text parameters are CAST so PostgreSQL can type them.
-- Calibration and playbook evidence: every attempt of a non-retracted run,
-- with its run's identity, its prediction snapshot and whether the
-- predicting verdict was dispatch-bound. Optional filters :since (run_date
-- on or after) and :gfx.
SELECT a.run_id, r.run_date, r.gfx, r.model, r.isl, r.osl, r.conc, r.validation_class,
       a.round, a.short_name, a.op_class, a.regime, a.lever, a.lever_kind, a.backend,
       a.isolated_speedup, a.e2e_delta_pct, a.gate, a.verdict,
       a.pred_roofline_pct, a.pred_target_eff, a.pred_attainable_speedup,
       a.pred_expected_e2e_gain_pct, a.pred_headroom_class, a.pred_confidence, a.pred_suspect,
       a.pred_pct_gpu_time, a.post_efficiency, v.dispatch_bound, a.output_parity, a.reject_reason,
       a.pred_source_kind
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
LEFT JOIN verdicts v ON v.verdict_id = a.pred_verdict_id
WHERE a.run_id NOT IN (SELECT run_id FROM retractions)
  AND (CAST(:since AS text) IS NULL OR r.run_date >= :since)
  AND (CAST(:gfx AS text) IS NULL OR r.gfx = :gfx)
ORDER BY r.run_date NULLS FIRST, a.run_id, a.attempt_key;
