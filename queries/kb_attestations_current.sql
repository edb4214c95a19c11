-- The attestation histories of every current GEAK kb record (docs/kb.md), by record then oldest
-- first: what `rfdb report` reads with kb_records.sql (docs/playbook.md, "GEAK kb records").
SELECT a.record_id, a.seq, a.at, a.outcome, a.actor, a.evidence
FROM kb_attestations a
JOIN kb_records r ON r.record_id = a.record_id
WHERE r.superseded = 0
ORDER BY a.record_id, a.seq;
