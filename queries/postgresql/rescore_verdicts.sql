-- PostgreSQL text of queries/rescore_verdicts.sql: NULLs ordered as in SQLite (first ascending, last descending). Optional text parameters are CAST so PostgreSQL can type them.
SELECT * FROM (
  SELECT v.verdict_id, v.run_id, r.run_date, r.gfx, v.round, v.round_order, v.short_name,
         v.op_class, v.regime, v.source_kind, v.confidence, v.pct_gpu_time, v.roofline_pct,
         v.target_eff, v.attainable_speedup, v.expected_e2e_gain_pct, v.headroom_class, v.suspect,
         v.dispatch_bound
  FROM verdicts v
  JOIN runs r ON r.run_id = v.run_id
  WHERE v.superseded = 0 AND v.round IS NOT NULL
    AND ((CAST(:run_id AS text) IS NULL AND v.run_id NOT IN (SELECT run_id FROM retractions))
         OR v.run_id = :run_id)
  UNION ALL
  SELECT m.verdict_id, m.run_id, r.run_date, r.gfx, 'measured' AS round, 1000000000 AS round_order,
         m.short_name, m.op_class, m.regime, m.source_kind, m.confidence,
         (SELECT p.pct_gpu_time FROM verdicts p
          WHERE p.run_id = m.run_id AND p.short_name = m.short_name AND p.round IS NOT NULL
            AND p.superseded = 0
          ORDER BY p.round_order NULLS FIRST, p.verdict_id LIMIT 1) AS pct_gpu_time,
         m.roofline_pct, m.target_eff, m.attainable_speedup, m.expected_e2e_gain_pct,
         m.headroom_class, m.suspect, m.dispatch_bound
  FROM verdicts m
  JOIN runs r ON r.run_id = m.run_id
  WHERE m.superseded = 0 AND m.round IS NULL AND m.source_kind = 'measured' AND m.phase = 'baseline'
    AND ((CAST(:run_id AS text) IS NULL AND m.run_id NOT IN (SELECT run_id FROM retractions))
         OR m.run_id = :run_id)
) u
ORDER BY run_date NULLS FIRST, run_id, round_order NULLS FIRST, pct_gpu_time DESC NULLS LAST,
         short_name, verdict_id;
