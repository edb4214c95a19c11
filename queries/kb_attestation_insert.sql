-- One attestation history entry of a kb record (oldest first by seq).
INSERT INTO kb_attestations (record_id, seq, at, outcome, actor, evidence)
VALUES (:record_id, :seq, :at, :outcome, :actor, :evidence);
