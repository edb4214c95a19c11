-- PostgreSQL text of queries/sources_list.sql: coalesce for ifnull; NULL run_id (knowledge) first, as in SQLite.
-- Provenance: every stored file version (rfdb query sources_list).
SELECT coalesce(s.run_id, '(knowledge)') AS run_id, s.rel_path, s.kind, s.variant, s.sha256,
       s.bytes, s.ingested_at, s.superseded_by IS NOT NULL AS superseded
FROM sources s
ORDER BY s.run_id NULLS FIRST, s.rel_path, s.source_id;
