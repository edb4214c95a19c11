-- PostgreSQL text of queries/replay_win_runs.sql: optional text parameters are CAST so PostgreSQL can type them.
SELECT r.run_id, r.run_date, r.gfx
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions)
  AND r.run_date IS NOT NULL AND r.run_date <= :as_of
  AND (CAST(:since AS text) IS NULL OR r.run_date >= :since)
  AND EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = r.run_id AND a.e2e_delta_pct > 0)
ORDER BY r.run_date DESC, r.run_id;
