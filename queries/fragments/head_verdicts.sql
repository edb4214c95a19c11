-- The head verdicts of every run's latest profiled round (pct_gpu_time >= :head_min_pct), each with
-- measured_id: its kernel's measured baseline verdict in the run (not suspect, banded), which
-- outranks the analytic verdict as in an attempt's prediction. Two CTEs, `latest` and `heads`,
-- expanded after WITH (tools/embed_sql.cmake; comment lines dropped) by
-- queries/playbook_saturated_heads.sql and queries/evidence_censored.sql in both dialects (the threshold cast
-- for PostgreSQL; SQLite reads the cast as REAL).
latest AS (
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
  WHERE v.superseded = 0 AND v.round IS NOT NULL
    AND v.pct_gpu_time >= CAST(:head_min_pct AS double precision)
)
