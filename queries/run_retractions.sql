-- The retract/restore history of a run, oldest first
-- (rfdb query run_retractions -p run_id=RUN).
SELECT action, reason, at
FROM retraction_log
WHERE run_id = :run_id
ORDER BY event_id;
