-- The current (not superseded) version of a file path, if any.
SELECT source_id, sha256
FROM sources
WHERE ifnull(run_id, '') = ifnull(:run_id, '') AND rel_path = :rel_path AND superseded_by IS NULL;
