-- One identity dir's champion.json (migration 0017).
INSERT INTO kb_champions (source_id, canonical_id, metric, session_id, value)
VALUES (:source_id, :canonical_id, :metric, :session_id, :value);
