-- Store one file version with its provenance, stat and raw text.
INSERT INTO sources (run_id, rel_path, kind, variant, sha256, bytes, raw, ingested_at, size, mtime_ns)
VALUES (:run_id, :rel_path, :kind, :variant, :sha256, :bytes, :raw, :ingested_at, :size, :mtime_ns);
