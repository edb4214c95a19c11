-- The estimator's right-censored observations (docs/estimator.md, "Censored
-- observations"): every head (pct_gpu_time >= :head_min_pct in a run's latest
-- profiled round) of a non-retracted run that has no attempt in its run and
-- whose verdict says it was close to its roofline: roofline_pct >= target_eff
-- (censor 'skip_gate': GEAK's skip gate leaves such a head untried) or banded
-- saturated (censor 'saturated_no_attempt'). A kernel's measured baseline
-- roofline outranks its analytic verdict, as in an attempt's prediction and in
-- playbook_saturated_heads. Suspect and dispatch-bound verdicts carry no band and
-- are left out. Optional filters :since (run_date on or after) and :gfx.
WITH /*@head_verdicts*/,
chosen AS (
  SELECT h.run_id, h.round, h.short_name, h.op_class, h.regime,
         coalesce(m.headroom_class, h.headroom_class) AS headroom_class,
         coalesce(m.confidence, h.confidence) AS confidence,
         coalesce(m.roofline_pct, h.roofline_pct) AS roofline_pct,
         coalesce(m.target_eff, h.target_eff) AS target_eff,
         coalesce(m.attainable_speedup, h.attainable_speedup) AS attainable_speedup,
         h.pct_gpu_time,
         CASE WHEN m.verdict_id IS NULL THEN h.source_kind ELSE 'measured' END AS source_kind,
         coalesce(m.profiler_hbm_undercount, 0) AS profiler_hbm_undercount
  FROM heads h
  LEFT JOIN verdicts m ON m.verdict_id = h.measured_id
  WHERE h.suspect = 0 AND h.dispatch_bound = 0
    AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = h.run_id AND a.short_name = h.short_name)
)
SELECT c.run_id, r.run_date, r.gfx, c.op_class, c.regime, c.headroom_class, c.confidence,
       c.roofline_pct, c.attainable_speedup, c.pct_gpu_time, c.short_name, c.source_kind,
       c.profiler_hbm_undercount,
       CASE WHEN c.roofline_pct >= c.target_eff THEN 'skip_gate' ELSE 'saturated_no_attempt' END AS censor,
       c.round
FROM chosen c
JOIN runs r ON r.run_id = c.run_id
WHERE c.run_id NOT IN (SELECT run_id FROM retractions)
  AND (c.roofline_pct >= c.target_eff OR c.headroom_class = 'saturated')
  AND (:since IS NULL OR r.run_date >= :since)
  AND (:gfx IS NULL OR r.gfx = :gfx)
ORDER BY r.run_date, c.run_id, c.pct_gpu_time DESC, c.short_name;
