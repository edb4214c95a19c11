-- Every stored file version of a run, oldest first, for re-derivation
-- (raw_zst: the file's text as one zstd frame).
SELECT source_id, rel_path, kind, bytes, raw_zst, superseded_by IS NOT NULL AS superseded
FROM sources
WHERE run_id = :run_id
ORDER BY rel_path, source_id;
