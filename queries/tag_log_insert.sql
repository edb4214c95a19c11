-- Record one tag or untag in the run's tag history (rfdb show lists it).
INSERT INTO tag_log (run_id, action, key, value, at)
VALUES (:run_id, :action, :key, :value, :at);
