-- PostgreSQL text of queries/evidence_findings.sql: json_extract as ->>. Optional text parameters are CAST so PostgreSQL can type them.
-- Imported legacy findings (cards, playbook lines, proposals), current versions.
-- json: sources_cited, cautions
SELECT origin, identity, name, op_class, gfx, regime, lever, effect, stars, iso_min, iso_max,
       e2e_min_pct, e2e_max_pct, confirms, last_seen, lifecycle, sources_cited, cautions,
       (fields::json ->> 'generator') AS generator, kernel_class_raw, type
FROM learned_findings
WHERE superseded = 0
  AND (CAST(:gfx AS text) IS NULL OR gfx = :gfx OR gfx IS NULL)
ORDER BY identity, finding_id;
