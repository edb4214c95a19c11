-- PostgreSQL text of queries/sources_list.sql: coalesce for ifnull, encode for lower(hex()); NULL run_id (knowledge) first, as in SQLite.
-- Provenance: every stored file version (rfdb query sources_list), its
-- sha256 in lower-case hex.
SELECT coalesce(s.run_id, '(knowledge)') AS run_id, s.rel_path, s.kind, s.variant, encode(s.sha256, 'hex') AS sha256,
       s.bytes, s.ingested_at, s.superseded_by IS NOT NULL AS superseded
FROM sources s
ORDER BY s.run_id NULLS FIRST, s.rel_path, s.source_id;
