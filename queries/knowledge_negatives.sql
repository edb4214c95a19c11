-- Imported negatives, newest first: findings classified negative or in_noise
-- (docs/playbook.md, "Imported knowledge"; rows an older rfdb stored without a
-- classification: anti-pattern cards and stated losses), and cards with
-- `- dead-end:` bullets (kept in cautions behind "dead-end: "). The
-- playbook's Cautions show the newest.
SELECT identity, origin, key_raw, type, classification, classification_reason, last_seen, effect,
       iso_max, e2e_max_pct,
       (SELECT json_group_array(c.value) FROM json_each(f.cautions) c
        WHERE c.value LIKE 'dead-end: %') AS dead_ends
FROM learned_findings f
WHERE superseded = 0 AND lifecycle = 'active' AND coalesce(classification, '') != 'archived'
  AND (classification IN ('negative', 'in_noise')
       OR (classification IS NULL
           AND (type = 'anti-pattern' OR iso_max <= 1.0
                OR (e2e_max_pct <= 0 AND NOT coalesce(iso_max > 1.0, 0))))
       OR EXISTS (SELECT 1 FROM json_each(f.cautions) c WHERE c.value LIKE 'dead-end: %'))
ORDER BY last_seen DESC, identity;
