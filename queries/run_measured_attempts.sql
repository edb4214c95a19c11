-- A run's measured attempts (an isolated speedup or an e2e delta), for the
-- copy check (ingest/run_copy.cpp): the numbers for the exact-copy rule, the kind,
-- key, candidate and lever for the partial-copy rule.
SELECT short_name, isolated_speedup, e2e_delta_pct, kind, attempt_key, candidate, lever
FROM attempts
WHERE run_id = :run_id AND (isolated_speedup IS NOT NULL OR e2e_delta_pct IS NOT NULL);
