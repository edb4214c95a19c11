-- Retract a run: it stays stored but leaves priors and the playbook.
INSERT INTO retractions (run_id, reason, retracted_at)
VALUES (:run_id, :reason, :retracted_at)
ON CONFLICT (run_id) DO UPDATE SET reason = excluded.reason, retracted_at = excluded.retracted_at;
