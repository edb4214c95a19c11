-- The current version of each of a run's files with its size and recorded
-- mtime: what a re-ingest compares the eval dir's stat with before reading it.
-- Only columns stored before raw_zst: reading sha256 (the last column) would
-- walk each row's overflow pages, i.e. read every stored text.
SELECT source_id, rel_path, bytes, mtime_ns
FROM sources
WHERE run_id = :run_id AND superseded_by IS NULL
ORDER BY rel_path;
