-- The achieved efficiency e of every observation of one op class (:op_class),
-- optionally on one GPU (:gfx, any case), in run date order: one row per
-- observation with its run's date, kernel, e (the measured post-change
-- efficiency when a post roofline measured the attempt, else
-- min(1, roofline_pct × isolated speedup)), where e came from (e_source: post
-- | model), the prediction's source (analytic | measured) and confidence, and
-- the run's serving backend and version, and its stack: every stored
-- `package version` of run_stack, by package, ", "-joined, the version as
-- `rfdb runs --stack` shows it (the recorded string without its local part;
-- the release part when derived (rocm) or not a bare version; a path as
-- recorded), NULL when the run's files state none. The rows are the estimator's
-- observations (docs/estimator.md): an isolated win beyond the noise band,
-- parity not failed, a usable prediction, e not infeasible, not resting on a
-- measured roofline flagged profiler_hbm_undercount (as `rfdb priors` by default); retracted runs
-- are left out. Split weights and time decay are rfdb priors' (see --explain).
SELECT o.run_date AS date, o.run_id AS run, o.short_name AS kernel, o.gfx, o.regime, o.lever,
       round(CASE WHEN o.post_efficiency IS NOT NULL THEN o.post_efficiency
                  WHEN o.roofline_pct * o.isolated_speedup > 1 THEN 1
                  ELSE o.roofline_pct * o.isolated_speedup END, 6) AS e,
       CASE WHEN o.post_efficiency IS NOT NULL THEN 'post' ELSE 'model' END AS e_source,
       a.pred_source_kind AS prediction_source, o.confidence, o.roofline_pct, o.isolated_speedup,
       r.backend, r.backend_version,
       (SELECT group_concat(entry, ', ') FROM (SELECT s.package || ' ' ||
                                                 CASE WHEN s.release IS NOT NULL AND (s.via IS NOT NULL OR s.raw NOT GLOB '[0-9]*') THEN s.release
                                                      WHEN instr(s.raw, '+') > 0 THEN substr(s.raw, 1, instr(s.raw, '+') - 1)
                                                      ELSE s.raw END AS entry FROM run_stack s
                                               WHERE s.run_id = o.run_id ORDER BY s.package)) AS stack
FROM observations o
JOIN attempts a ON a.attempt_id = o.attempt_id
JOIN runs r ON r.run_id = o.run_id
WHERE o.run_id NOT IN (SELECT run_id FROM retractions)
  AND lower(o.op_class) = lower(:op_class)
  AND (:gfx IS NULL OR lower(o.gfx) = lower(:gfx))
  AND o.run_date IS NOT NULL
  AND lower(coalesce(o.output_parity, '')) <> 'fail'
  AND coalesce(o.reject_reason, '') NOT IN ('parity_regression', 'accuracy_regression', 'output_corruption')
  AND o.isolated_speedup > :iso_win_min
  AND coalesce(o.suspect, 0) = 0 AND o.dispatch_bound = 0
  AND o.headroom_class IN ('underperforming', 'moderate', 'saturated')
  AND o.roofline_pct > 0 AND o.roofline_pct <= 1
  AND (o.post_efficiency IS NULL OR o.post_efficiency > 0)
  AND o.confidence IN ('high', 'medium', 'low')
  AND o.profiler_hbm_undercount = 0
  AND CASE WHEN o.post_efficiency IS NOT NULL THEN o.post_efficiency
           ELSE o.roofline_pct * o.isolated_speedup END <= :infeasible_e
ORDER BY o.run_date, o.run_id, o.short_name, o.attempt_id;
