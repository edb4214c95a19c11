-- Imported negatives, newest first: anti-pattern cards, findings whose
-- stated numbers show a loss, and cards with `- dead-end:` bullets (kept in
-- cautions behind "dead-end: "). The playbook's Cautions show the 10 newest.
SELECT identity, origin, key_raw, type, last_seen, effect, iso_max, e2e_max_pct,
       (SELECT json_group_array(c.value) FROM json_each(f.cautions) c
        WHERE c.value LIKE 'dead-end: %') AS dead_ends
FROM learned_findings f
WHERE superseded = 0 AND lifecycle = 'active'
  AND (type = 'anti-pattern' OR iso_max <= 1.0
       OR (e2e_max_pct <= 0 AND NOT coalesce(iso_max > 1.0, 0))
       OR EXISTS (SELECT 1 FROM json_each(f.cautions) c WHERE c.value LIKE 'dead-end: %'))
ORDER BY last_seen DESC, identity;
