-- One stored file version's recorded size and sha256 with its text as one
-- zstd frame: what a re-ingest verifies before trusting the stored copy.
SELECT source_id, rel_path, bytes, sha256, raw_zst FROM sources WHERE source_id = :source_id;
