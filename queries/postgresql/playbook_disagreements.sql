-- PostgreSQL text of queries/playbook_disagreements.sql: NULLs ordered as in SQLite.
-- Every profiled round whose top kernel by pct_gpu_time is not its top by
-- expected e2e gain, newest run first: the playbook's Routing quality shows
-- the 20 newest. Non-retracted runs, current verdicts.
WITH ranked AS (
  SELECT v.run_id, r.run_date, v.round, v.round_order, v.short_name, v.pct_gpu_time,
         v.expected_e2e_gain_pct,
         row_number() OVER (PARTITION BY v.run_id, v.round
                            ORDER BY coalesce(v.pct_gpu_time, 0) DESC, v.short_name) AS by_pct,
         row_number() OVER (PARTITION BY v.run_id, v.round
                            ORDER BY coalesce(v.expected_e2e_gain_pct, 0) DESC,
                                     coalesce(v.pct_gpu_time, 0) DESC, v.short_name) AS by_gain
  FROM verdicts v
  JOIN runs r ON r.run_id = v.run_id
  WHERE v.superseded = 0 AND v.round IS NOT NULL
    AND v.run_id NOT IN (SELECT run_id FROM retractions)
)
SELECT p.run_id, p.run_date, p.round,
       p.short_name AS top_by_pct, p.pct_gpu_time AS top_by_pct_pct_gpu_time,
       g.short_name AS top_by_gain, g.expected_e2e_gain_pct AS top_by_gain_expected_gain_pct
FROM ranked p
JOIN ranked g ON g.run_id = p.run_id AND g.round = p.round AND g.by_gain = 1
WHERE p.by_pct = 1 AND p.short_name <> g.short_name
ORDER BY p.run_date DESC NULLS LAST, p.run_id, p.round_order NULLS FIRST;
