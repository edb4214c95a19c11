-- The attestation history of one kb record, oldest first.
SELECT seq, at, outcome, actor, evidence FROM kb_attestations
WHERE record_id = :record_id
ORDER BY seq;
