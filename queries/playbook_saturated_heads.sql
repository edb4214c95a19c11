-- Every saturated head verdict (pct_gpu_time >= 5 in a run's latest profiled
-- round), with a kernel's measured baseline roofline outranking its analytic
-- verdict as in an attempt's prediction; newest run first. The playbook
-- shows the newest per kernel class x gfx. disputed = 1: a measured verdict
-- whose engine disputes the band (headroom_ratio >= 1.25 or guidance
-- actionable, beside it), listed as disputed and not rerouted. profiler_hbm_undercount = 1:
-- the measured verdict's rocprof-compute under-counts HBM bytes on its gfx
-- (docs/playbook.md, "Profiler-biased measured verdicts"). Non-retracted runs.
WITH /*@head_verdicts*/
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
ORDER BY r.run_date DESC, h.run_id, h.pct_gpu_time DESC, h.short_name;
