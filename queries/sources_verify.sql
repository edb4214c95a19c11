-- Every stored file version (current and superseded, run files and
-- knowledge files, run_id NULL) with the size and sha256 its row records and
-- its text as one zstd frame, for `rfdb check`'s verification of what is stored.
SELECT source_id, run_id, rel_path, bytes, superseded_by IS NOT NULL AS superseded, sha256, raw_zst
FROM sources
ORDER BY source_id;
