-- Record one retract or restore in the run's history (rfdb show lists it).
INSERT INTO retraction_log (run_id, action, reason, at)
VALUES (:run_id, :action, :reason, :at);
