-- The current (not superseded) version of a file path, if any (`IS` matches
-- a NULL run_id, and SQLite searches sources_identity with it).
SELECT source_id
FROM sources
WHERE run_id IS :run_id AND rel_path = :rel_path AND superseded_by IS NULL;
