-- PostgreSQL text of queries/report_findings.sql: json_extract as ->>. Optional text parameters are CAST so PostgreSQL can type them.
-- Imported legacy knowledge (cards, playbook lines, proposals) as the
-- playbook reads it, current versions only; :gfx keeps findings on that GPU
-- or on none.
SELECT origin, identity, name, key_raw, kernel_class_raw, op_class, gfx, regime, type, stars,
       lever, apply, effect, iso_min, iso_max, e2e_min_pct, e2e_max_pct, confirms, last_seen,
       lifecycle, sources_cited, cautions, (fields::json ->> 'generator') AS generator,
       (fields::json ->> 'description') AS description, text,
       (fields::json ->> 'lever_key') AS lever_key, classification, classification_reason,
       (fields::json ->> 'status') AS status, (fields::json ->> 'title') AS title
FROM learned_findings
WHERE superseded = 0
  AND (CAST(:gfx AS text) IS NULL OR gfx = :gfx OR gfx IS NULL)
ORDER BY identity, finding_id;
