-- PostgreSQL text of queries/playbook_misses.sql: round(x, 4) through numeric (PostgreSQL has no round(double, int)).
-- Every isolated win (s > 1.034) with a real prediction (not suspect, a
-- headroom band, attainable > 0), and how far the measurement landed from
-- the predicted attainable_speedup: the playbook's Calibration shows the 5
-- largest misses each way. pred_case_mix: the cases of a multi-case measured
-- prediction (its attainable is their Amdahl mix), from which the playbook
-- diagnoses a case-mix miss. Non-retracted runs.
SELECT a.run_id, r.run_date, a.attempt_key, a.short_name, a.op_class, r.gfx, a.regime, a.lever,
       a.isolated_speedup, a.pred_attainable_speedup,
       round(CAST(a.isolated_speedup / a.pred_attainable_speedup AS numeric), 4)::double precision AS ratio,
       CASE WHEN a.isolated_speedup / a.pred_attainable_speedup > CAST(:iso_win_min AS double precision) THEN 'under-predicted'
            WHEN a.isolated_speedup / a.pred_attainable_speedup * CAST(:iso_win_min AS double precision) < 1.0 THEN 'over-predicted'
            ELSE 'within the band' END AS miss,
       a.pred_case_mix
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
WHERE a.run_id NOT IN (SELECT run_id FROM retractions)
  AND a.isolated_speedup > CAST(:iso_win_min AS double precision) AND coalesce(a.pred_suspect, 0) = 0
  AND a.pred_attainable_speedup > 0
  AND a.pred_headroom_class IN ('saturated', 'moderate', 'underperforming')
  AND coalesce(a.output_parity, '') <> 'fail'
  AND coalesce(a.reject_reason, '') NOT IN ('parity_regression', 'accuracy_regression',
                                            'output_corruption', 'no_engagement')
ORDER BY abs(ln(a.isolated_speedup / a.pred_attainable_speedup)) DESC, a.run_id, a.attempt_key;
