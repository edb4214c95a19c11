-- Imported legacy knowledge (cards, playbook lines, proposals) as the
-- playbook reads it, current versions only; :gfx keeps findings on that GPU
-- or on none.
SELECT origin, identity, name, key_raw, kernel_class_raw, op_class, gfx, regime, type, stars,
       lever, apply, effect, iso_min, iso_max, e2e_min_pct, e2e_max_pct, confirms, last_seen,
       lifecycle, sources_cited, cautions, json_extract(fields, '$.generator') AS generator,
       json_extract(fields, '$.description') AS description, text,
       json_extract(fields, '$.lever_key') AS lever_key, classification, classification_reason,
       json_extract(fields, '$.status') AS status, json_extract(fields, '$.title') AS title
FROM learned_findings
WHERE superseded = 0
  AND (:gfx IS NULL OR gfx = :gfx OR gfx IS NULL)
ORDER BY identity, finding_id;
