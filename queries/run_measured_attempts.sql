-- A run's measured attempts (an isolated speedup or an e2e delta), for the
-- copy check (ingest.cpp).
SELECT short_name, isolated_speedup, e2e_delta_pct
FROM attempts
WHERE run_id = :run_id AND (isolated_speedup IS NOT NULL OR e2e_delta_pct IS NOT NULL);
