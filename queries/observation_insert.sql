-- A run's observation rows (migration 0009), written in its ingest
-- transaction after its attempts: the back-fill's SELECT for one run.
INSERT INTO observations (attempt_id, run_id, run_date, gfx, op_class, regime, round, short_name, lever,
                          isolated_speedup, e2e_delta_pct, roofline_pct, attainable_speedup, pct_gpu_time,
                          headroom_class, confidence, suspect, dispatch_bound, post_efficiency,
                          output_parity, reject_reason, profiler_hbm_undercount)
SELECT a.attempt_id, a.run_id, r.run_date, r.gfx, a.op_class, a.regime, a.round, a.short_name, a.lever,
       a.isolated_speedup, a.e2e_delta_pct, a.pred_roofline_pct, a.pred_attainable_speedup,
       a.pred_pct_gpu_time, a.pred_headroom_class, a.pred_confidence, a.pred_suspect,
       coalesce(v.dispatch_bound, 0), a.post_efficiency, a.output_parity, a.reject_reason,
       a.profiler_hbm_undercount
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
LEFT JOIN verdicts v ON v.verdict_id = a.pred_verdict_id
WHERE a.run_id = :run_id
ORDER BY a.attempt_id;
