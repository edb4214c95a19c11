-- PostgreSQL text of queries/playbook_saturated_heads.sql: NULL run_date last (descending), as in SQLite. Ties in SQLite's rowid order.
-- Every saturated head verdict (pct_gpu_time >= 5 in a run's latest profiled
-- round), with a kernel's measured baseline roofline outranking its analytic
-- verdict as in an attempt's prediction; newest run first. The playbook
-- shows the newest per kernel class x gfx. disputed = 1: a measured verdict
-- whose engine disputes the band (headroom_ratio >= 1.25 or guidance
-- actionable, beside it), listed as disputed and not rerouted. profiler_hbm_undercount = 1:
-- the measured verdict's rocprof-compute under-counts HBM bytes on its gfx
-- (docs/playbook.md, "Profiler-biased measured verdicts"). Non-retracted runs.
WITH latest AS (
  SELECT run_id, max(round_order) AS round_order
  FROM verdicts WHERE superseded = 0 AND round IS NOT NULL GROUP BY run_id
),
heads AS (
  SELECT v.*, (SELECT m.verdict_id FROM verdicts m
               WHERE m.run_id = v.run_id AND m.superseded = 0 AND m.source_kind = 'measured'
                 AND m.phase = 'baseline' AND m.suspect = 0
                 AND m.headroom_class IN ('saturated', 'moderate', 'underperforming')
                 AND (m.short_name = v.short_name OR m.name = v.short_name)
               ORDER BY m.verdict_id LIMIT 1) AS measured_id
  FROM verdicts v
  JOIN latest l ON l.run_id = v.run_id AND l.round_order = v.round_order
  WHERE v.superseded = 0 AND v.round IS NOT NULL AND v.pct_gpu_time >= CAST(:head_min_pct AS double precision)
)
SELECT h.run_id, r.run_date, r.gfx, h.op_class, h.short_name, h.pct_gpu_time,
       coalesce(m.roofline_pct, h.roofline_pct) AS roofline_pct,
       coalesce(m.target_eff, h.target_eff) AS target_eff,
       CASE WHEN m.verdict_id IS NULL THEN 'analytic' ELSE 'measured' END AS verdict,
       coalesce(m.disputed, 0) AS disputed, m.headroom_ratio, m.guidance, m.observed_limit,
       coalesce(m.profiler_hbm_undercount, 0) AS profiler_hbm_undercount
FROM heads h
JOIN runs r ON r.run_id = h.run_id
LEFT JOIN verdicts m ON m.verdict_id = h.measured_id
WHERE h.run_id NOT IN (SELECT run_id FROM retractions)
  AND CASE WHEN m.verdict_id IS NULL
           THEN h.headroom_class = 'saturated' AND h.suspect = 0 AND h.dispatch_bound = 0
           ELSE m.headroom_class = 'saturated' END
ORDER BY r.run_date DESC NULLS LAST, h.run_id, h.pct_gpu_time DESC, h.short_name, h.verdict_id;
