-- Provenance: every stored file version (rfdb query sources_list), its
-- sha256 in lower-case hex.
SELECT ifnull(s.run_id, '(knowledge)') AS run_id, s.rel_path, s.kind, s.variant, lower(hex(s.sha256)) AS sha256,
       s.bytes, s.ingested_at, s.superseded_by IS NOT NULL AS superseded
FROM sources s
ORDER BY s.run_id, s.rel_path, s.source_id;
