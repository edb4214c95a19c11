-- PostgreSQL text of queries/source_find.sql: coalesce for ifnull.
-- The stored version of a file with exactly this content, if any.
SELECT source_id, superseded_by
FROM sources
WHERE coalesce(run_id, '') = coalesce(CAST(:run_id AS text), '') AND rel_path = :rel_path AND sha256 = :sha256;
