-- PostgreSQL text of queries/source_latest.sql: coalesce for ifnull.
-- The current (not superseded) version of a file path, if any.
SELECT source_id, sha256
FROM sources
WHERE coalesce(run_id, '') = coalesce(CAST(:run_id AS text), '') AND rel_path = :rel_path AND superseded_by IS NULL;
