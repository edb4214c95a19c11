-- rfdb schema, version 11: the copy check's index (issue 12: ingest cost
-- must not grow with the runs that share an identity).
--
-- Ingest's copy check (queries/run_copy_candidates.sql) looks for stored
-- attempts with one short_name and an isolated speedup within a tolerance;
-- without an index it read every attempt of every run with the same identity
-- (250 runs per identity in tools/bench's 1000-run corpus, 30× that at
-- 30 000). Partial: only measured attempts are ever looked up, and only they
-- take space.
CREATE INDEX attempts_measured ON attempts (short_name, isolated_speedup)
  WHERE isolated_speedup IS NOT NULL OR e2e_delta_pct IS NOT NULL;
