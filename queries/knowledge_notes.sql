-- Imported methods, seam facts and routing notes (classification method,
-- seam_fact or routing_note; docs/playbook.md, "Methods and seams"): what to
-- do and where to look, not measured wins. The playbook's Methods and seams
-- section shows the first 20 of these.
SELECT identity, origin, classification, classification_reason, name, key_raw, op_class, gfx, regime,
       stars, last_seen
FROM learned_findings
WHERE superseded = 0 AND lifecycle = 'active'
  AND classification IN ('method', 'seam_fact', 'routing_note')
ORDER BY classification, last_seen DESC, identity;
