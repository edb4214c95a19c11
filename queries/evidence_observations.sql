-- The estimator's rows (`rfdb priors`, the playbook's priors): every
-- materialized observation row of a non-retracted run, read from the narrow
-- observations table, with each row's prediction source_kind (analytic |
-- measured) looked up by its attempt's primary key. Optional filters :since (run_date on or after)
-- and :gfx. Table order (a run's attempts together); the estimator does not
-- depend on it.
SELECT run_id, run_date, gfx, op_class, regime, output_parity, reject_reason, headroom_class,
       confidence, isolated_speedup, e2e_delta_pct, roofline_pct, attainable_speedup, pct_gpu_time,
       post_efficiency, suspect, dispatch_bound, short_name,
       (SELECT a.pred_source_kind FROM attempts a WHERE a.attempt_id = observations.attempt_id) AS source_kind,
       profiler_hbm_undercount
FROM observations
WHERE run_id NOT IN (SELECT run_id FROM retractions)
  AND (:since IS NULL OR run_date >= :since)
  AND (:gfx IS NULL OR gfx = :gfx);
