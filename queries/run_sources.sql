-- Every stored file version of a run, oldest first, for re-derivation
-- (raw_zst: the file's text as one zstd frame; bytes and sha256: its size
-- and digest, which every read checks).
SELECT source_id, rel_path, kind, bytes, sha256, raw_zst, superseded_by IS NOT NULL AS superseded
FROM sources
WHERE run_id = :run_id
ORDER BY rel_path, source_id;
