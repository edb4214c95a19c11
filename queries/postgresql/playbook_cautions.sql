-- PostgreSQL text of queries/playbook_cautions.sql: NULL run_date last (descending), as in SQLite.
-- Every run caution of the playbook, newest run first (the playbook shows
-- the 20 newest): an isolated win that lost e2e, a measurement beyond the
-- predicted attainable speedup (a real prediction), and a lever the run's
-- Director validation included and did not confirm. Non-retracted runs.
SELECT a.run_id, r.run_date, a.attempt_key, a.short_name, a.op_class, r.gfx, a.lever,
       a.isolated_speedup, a.e2e_delta_pct, a.pred_attainable_speedup,
       a.validation_class, a.validation_speedup,
       CASE WHEN a.isolated_speedup > 1.034 AND a.e2e_delta_pct <= -0.5 THEN 'e2e_loss'
            WHEN a.isolated_speedup > a.pred_attainable_speedup * 1.034
                 AND coalesce(a.pred_suspect, 0) = 0
                 AND a.pred_headroom_class IN ('saturated', 'moderate', 'underperforming')
              THEN 'model_contradiction'
            ELSE 'lost_validation' END AS caution
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
WHERE a.run_id NOT IN (SELECT run_id FROM retractions)
  AND ((a.isolated_speedup > 1.034 AND a.e2e_delta_pct <= -0.5)
       OR (a.isolated_speedup > a.pred_attainable_speedup * 1.034 AND a.pred_attainable_speedup > 0
           AND coalesce(a.pred_suspect, 0) = 0
           AND a.pred_headroom_class IN ('saturated', 'moderate', 'underperforming')
           -- wrong output or a kernel that never ran contradicts no model
           AND coalesce(a.output_parity, '') <> 'fail'
           AND coalesce(a.reject_reason, '') NOT IN ('parity_regression', 'accuracy_regression',
                                                     'output_corruption', 'no_engagement'))
       OR (a.measured = 1 AND a.e2e_delta_pct > 0.5 AND coalesce(a.output_parity, '') <> 'fail'
           AND coalesce(a.reject_reason, '') <> 'no_engagement'
           AND (a.kind = 'config' OR a.isolated_speedup IS NULL
                OR (a.isolated_speedup > 1.034 AND a.gate = 'accepted'))
           AND (a.deployed = 1 OR (a.kind = 'config' AND a.verdict = 'confirmed'))
           AND (a.validation_class = 'no_win' OR a.validation_speedup <= 1.0)))
ORDER BY r.run_date DESC NULLS LAST, a.run_id, a.attempt_key;
