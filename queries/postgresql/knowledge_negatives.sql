-- PostgreSQL text of queries/knowledge_negatives.sql: json_array_elements_text for json_each, string_agg for json_group_array, ILIKE for SQLite's ASCII-case-blind LIKE, NULL last_seen last. Ties in SQLite's rowid order.
-- Imported negatives, newest first: anti-pattern cards, findings whose
-- stated numbers show a loss, and cards with `- dead-end:` bullets (kept in
-- cautions behind "dead-end: "). The playbook's Cautions show the 10 newest.
SELECT identity, origin, key_raw, type, last_seen, effect, iso_max, e2e_max_pct,
       (SELECT '[' || coalesce(string_agg(to_json(c.value)::text, ',' ORDER BY c.n), '') || ']'
        FROM json_array_elements_text(f.cautions::json) WITH ORDINALITY AS c(value, n)
        WHERE c.value ILIKE 'dead-end: %') AS dead_ends
FROM learned_findings f
WHERE superseded = 0 AND lifecycle = 'active'
  AND (type = 'anti-pattern' OR iso_max <= 1.0
       OR (e2e_max_pct <= 0 AND NOT coalesce(iso_max > 1.0, false))
       OR EXISTS (SELECT 1 FROM json_array_elements_text(f.cautions::json) AS c(value)
                  WHERE c.value ILIKE 'dead-end: %'))
ORDER BY last_seen DESC NULLS LAST, identity, finding_id;
