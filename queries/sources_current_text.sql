-- The current version of every stored file of :run_id, or with :all = 1 of
-- every run and every knowledge file (run_id NULL, last), for
-- `rfdb export --raw` (raw_zst: the file's text as one zstd frame; bytes and
-- sha256 as recorded, which export verifies it against).
SELECT source_id, run_id, rel_path, kind, bytes, sha256, raw_zst
FROM sources
WHERE superseded_by IS NULL AND (:all = 1 OR run_id = :run_id)
ORDER BY run_id IS NULL, run_id, rel_path;
