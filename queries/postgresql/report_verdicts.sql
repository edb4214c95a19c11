-- PostgreSQL text of queries/report_verdicts.sql: NULLs ordered as in SQLite (first ascending, last descending). Optional text parameters are CAST so PostgreSQL can type them.
-- The playbook's head verdicts: current profile-round (analytic) verdicts,
-- and each kernel's measured baseline roofline (roofline-v1), which outranks
-- the analytic verdict as the attempt's prediction does. A post roofline is
-- never a prediction and is left out. Non-retracted runs; optional :since
-- and :gfx filters.
SELECT v.run_id, r.run_date, r.gfx, v.round, v.round_order, v.short_name, v.name, v.op_class,
       v.source_kind, v.pct_gpu_time, v.roofline_pct, v.target_eff, v.attainable_speedup,
       v.expected_e2e_gain_pct, v.headroom_class, v.suspect, v.dispatch_bound,
       v.byte_reduction_levers
FROM verdicts v
JOIN runs r ON r.run_id = v.run_id
WHERE v.superseded = 0
  AND (v.round IS NOT NULL OR (v.source_kind = 'measured' AND v.phase = 'baseline'))
  AND v.run_id NOT IN (SELECT run_id FROM retractions)
  AND (CAST(:since AS text) IS NULL OR r.run_date >= :since)
  AND (CAST(:gfx AS text) IS NULL OR r.gfx = :gfx)
ORDER BY r.run_date NULLS FIRST, v.run_id, v.round_order NULLS FIRST, v.pct_gpu_time DESC NULLS LAST,
         v.short_name, v.verdict_id;
