-- Every current imported finding with what it says: its classification
-- (positive_measured | in_noise | negative | method | seam_fact |
-- routing_note | archived), the reason (which text and figure decided) and
-- the figures it read (isolated × over baseline, e2e percent), as the
-- playbook sorts them into What works, Cautions and Methods and seams
-- (docs/playbook.md, "Imported knowledge").
SELECT identity, origin, classification, classification_reason, iso_min, iso_max, e2e_min_pct,
       e2e_max_pct, op_class, gfx, regime, stars, last_seen, name
FROM learned_findings
WHERE superseded = 0
ORDER BY classification, identity, finding_id;
