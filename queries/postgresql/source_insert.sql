-- PostgreSQL text of queries/source_insert.sql: RETURNING the new key (Database::last_insert_rowid).
-- Store one file version with its provenance, stat and raw text.
INSERT INTO sources (run_id, rel_path, kind, variant, sha256, bytes, raw, ingested_at, size, mtime_ns)
VALUES (:run_id, :rel_path, :kind, :variant, :sha256, :bytes, :raw, :ingested_at, :size, :mtime_ns)
RETURNING source_id;
