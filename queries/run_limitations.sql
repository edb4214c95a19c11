-- A run's stated limitations (env_report.json `limitations`, migration 0015), in file order.
SELECT limitation FROM run_limitations WHERE run_id = :run_id ORDER BY limitation_index;
