-- The stored version of a file with exactly this content, if any.
SELECT source_id, superseded_by
FROM sources
WHERE ifnull(run_id, '') = ifnull(:run_id, '') AND rel_path = :rel_path AND sha256 = :sha256;
