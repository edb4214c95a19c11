-- Drop a run's stored limitations (re-derived from env_report.json).
DELETE FROM run_limitations WHERE run_id = :run_id;
