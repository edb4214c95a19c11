-- The current version of each of a run's files with its size and recorded
-- mtime: what a re-ingest compares the eval dir's stat with before reading it.
SELECT source_id, rel_path, sha256, bytes, mtime_ns
FROM sources
WHERE run_id = :run_id AND superseded_by IS NULL
ORDER BY rel_path;
