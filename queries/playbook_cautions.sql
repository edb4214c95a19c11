-- Every run caution of the playbook, newest run first (the playbook shows
-- the 20 newest), one row per attempt and kind (caution): an isolated win
-- that lost e2e (e2e_loss), a measurement beyond the predicted attainable
-- speedup of a real prediction (model_contradiction), a lever the run's
-- Director validation included and did not confirm (lost_validation), an
-- output that failed parity with the integrate reason saying what broke
-- (parity_failure), and an isolated win whose e2e stayed inside the noise
-- band (no_transfer). Non-retracted runs. e2e_band_pct is the band that
-- decided a gain (percent): the fixed ±0.5 %, or the run's measured spread
-- (the widest of its reference bench summaries) when wider, as the playbook
-- judges (docs/playbook.md, "Noise measured per run"); a loss is judged
-- against the fixed band.
WITH c AS (
  SELECT a.run_id, r.run_date, a.attempt_key, a.short_name, a.op_class, r.gfx, a.lever,
         a.isolated_speedup, a.e2e_delta_pct, a.pred_attainable_speedup,
         a.validation_class, a.validation_speedup, a.output_parity, a.reject_reason, a.reason,
         a.measured, a.kind, a.gate, a.verdict, a.deployed, a.pred_suspect, a.pred_headroom_class,
         -- wrong output: output parity fail, or a parity/accuracy/corruption reject reason
         CASE WHEN lower(coalesce(a.output_parity, '')) = 'fail'
                   OR coalesce(a.reject_reason, '') IN ('parity_regression', 'accuracy_regression',
                                                        'output_corruption')
              THEN 1 ELSE 0 END AS parity_failed,
         -- the run's e2e band (domain::run_e2e_band): its measured spread when wider than the fixed band
         MAX(:e2e_noise_pct,
             coalesce((SELECT MAX(b.throughput_spread_pct) FROM bench_summaries b
                       WHERE b.run_id = a.run_id AND b.role IN ('baseline', 'validation_base', 'overlay_ref')),
                      0)) AS e2e_band_pct
  FROM attempts a
  JOIN runs r ON r.run_id = a.run_id
  WHERE a.run_id NOT IN (SELECT run_id FROM retractions)
),
flagged AS (
  SELECT c.*, 'e2e_loss' AS caution FROM c
  WHERE c.isolated_speedup > :iso_win_min AND c.e2e_delta_pct <= -:e2e_noise_pct
  UNION ALL
  SELECT c.*, 'model_contradiction' FROM c
  WHERE c.isolated_speedup > c.pred_attainable_speedup * :iso_win_min AND c.pred_attainable_speedup > 0
    AND coalesce(c.pred_suspect, 0) = 0
    AND c.pred_headroom_class IN ('saturated', 'moderate', 'underperforming')
    -- wrong output or a kernel that never ran contradicts no model
    AND c.parity_failed = 0 AND coalesce(c.reject_reason, '') <> 'no_engagement'
  UNION ALL
  SELECT c.*, 'lost_validation' FROM c
  WHERE c.measured = 1 AND c.e2e_delta_pct > c.e2e_band_pct AND coalesce(c.output_parity, '') <> 'fail'
    AND coalesce(c.reject_reason, '') <> 'no_engagement'
    AND (c.kind = 'config' OR c.isolated_speedup IS NULL
         OR (c.isolated_speedup > :iso_win_min AND c.gate = 'accepted'))
    AND (c.deployed = 1 OR (c.kind = 'config' AND c.verdict = 'confirmed'))
    AND (c.validation_class = 'no_win' OR c.validation_speedup <= 1.0)
  UNION ALL
  SELECT c.*, 'parity_failure' FROM c
  WHERE c.parity_failed = 1
  UNION ALL
  -- an isolated win whose e2e stayed inside the band: it did not transfer
  SELECT c.*, 'no_transfer' FROM c
  WHERE c.measured = 1 AND c.isolated_speedup > :iso_win_min
    AND c.e2e_delta_pct > -:e2e_noise_pct AND c.e2e_delta_pct <= c.e2e_band_pct
    AND c.parity_failed = 0 AND coalesce(c.reject_reason, '') <> 'no_engagement'
)
SELECT run_id, run_date, attempt_key, short_name, op_class, gfx, lever,
       isolated_speedup, e2e_delta_pct, pred_attainable_speedup,
       validation_class, validation_speedup, caution, output_parity, reject_reason, reason, e2e_band_pct
FROM flagged
ORDER BY run_date DESC, run_id, attempt_key, caution;
