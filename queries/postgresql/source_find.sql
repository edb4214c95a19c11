-- PostgreSQL text of queries/source_find.sql: IS NOT DISTINCT FROM uses no
-- index, so a run's file (sources_identity) and a knowledge file
-- (sources_knowledge, run_id NULL) are two index searches; one finds nothing.
-- The stored version of a file with exactly this content, if any.
SELECT source_id, superseded_by
FROM sources
WHERE run_id = CAST(:run_id AS text) AND rel_path = :rel_path AND sha256 = :sha256
UNION ALL
SELECT source_id, superseded_by
FROM sources
WHERE run_id IS NULL AND CAST(:run_id AS text) IS NULL AND rel_path = :rel_path AND sha256 = :sha256;
