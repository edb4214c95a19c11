-- PostgreSQL text of queries/source_latest.sql: IS NOT DISTINCT FROM uses no
-- index, so a run's file (sources_identity) and a knowledge file
-- (sources_knowledge, run_id NULL) are two index searches; one finds nothing.
-- The current (not superseded) version of a file path, if any.
SELECT source_id
FROM sources
WHERE run_id = CAST(:run_id AS text) AND rel_path = :rel_path AND superseded_by IS NULL
UNION ALL
SELECT source_id
FROM sources
WHERE run_id IS NULL AND CAST(:run_id AS text) IS NULL AND rel_path = :rel_path AND superseded_by IS NULL;
