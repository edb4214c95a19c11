-- PostgreSQL text of queries/source_insert.sql: RETURNING the new key (Database::last_insert_rowid).
-- Store one file version with its provenance, mtime and text (one zstd
-- frame; bytes is the uncompressed size).
INSERT INTO sources (run_id, rel_path, kind, variant, sha256, bytes, raw_zst, ingested_at, mtime_ns)
VALUES (:run_id, :rel_path, :kind, :variant, :sha256, :bytes, :raw_zst, :ingested_at, :mtime_ns)
RETURNING source_id;
