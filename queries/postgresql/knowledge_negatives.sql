-- PostgreSQL text of queries/knowledge_negatives.sql: json_each as json_array_elements_text.
-- Imported negatives, newest first: findings classified negative or in_noise
-- (rows an older rfdb stored without a classification: anti-pattern cards and
-- stated losses), and cards with `- dead-end:` bullets.
SELECT identity, origin, key_raw, type, classification, classification_reason, last_seen, effect,
       iso_max, e2e_max_pct,
       (SELECT '[' || coalesce(string_agg(to_json(c.value)::text, ',' ORDER BY c.n), '') || ']'
        FROM json_array_elements_text(f.cautions::json) WITH ORDINALITY AS c(value, n)
        WHERE c.value ILIKE 'dead-end: %') AS dead_ends
FROM learned_findings f
WHERE superseded = 0 AND lifecycle = 'active' AND coalesce(classification, '') != 'archived'
  AND (classification IN ('negative', 'in_noise')
       OR (classification IS NULL
           AND (type = 'anti-pattern' OR iso_max <= 1.0
                OR (e2e_max_pct <= 0 AND NOT coalesce(iso_max > 1.0, false))))
       OR EXISTS (SELECT 1 FROM json_array_elements_text(f.cautions::json) AS c(value)
                  WHERE c.value ILIKE 'dead-end: %'))
ORDER BY last_seen DESC NULLS LAST, identity, finding_id;
