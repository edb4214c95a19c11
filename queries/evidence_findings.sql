-- Imported legacy findings (cards, playbook lines, proposals), current versions.
-- json: sources_cited, cautions
SELECT origin, identity, name, op_class, gfx, regime, lever, effect, stars, iso_min, iso_max,
       e2e_min_pct, e2e_max_pct, confirms, last_seen, lifecycle, sources_cited, cautions,
       json_extract(fields, '$.generator') AS generator, kernel_class_raw, type
FROM learned_findings
WHERE superseded = 0
  AND (:gfx IS NULL OR gfx = :gfx OR gfx IS NULL)
ORDER BY identity, finding_id;
