-- PostgreSQL text of queries/rescore_verdicts.sql: NULLs ordered as in SQLite (first ascending, last descending). Optional text parameters are CAST so PostgreSQL can type them.
SELECT v.run_id, r.run_date, r.gfx, v.round, v.round_order, v.short_name, v.op_class, v.regime,
       v.source_kind, v.confidence, v.pct_gpu_time, v.roofline_pct, v.target_eff,
       v.attainable_speedup, v.expected_e2e_gain_pct, v.headroom_class, v.suspect, v.dispatch_bound
FROM verdicts v
JOIN runs r ON r.run_id = v.run_id
WHERE v.superseded = 0 AND v.round IS NOT NULL
  AND ((CAST(:run_id AS text) IS NULL AND v.run_id NOT IN (SELECT run_id FROM retractions))
       OR v.run_id = :run_id)
ORDER BY r.run_date NULLS FIRST, v.run_id, v.round_order NULLS FIRST, v.pct_gpu_time DESC NULLS LAST,
         v.short_name, v.verdict_id;
