-- Every tag and untag of a run, oldest first
-- (rfdb query run_tag_history -p run_id=RUN).
SELECT action, key, value, at
FROM tag_log
WHERE run_id = :run_id
ORDER BY event_id;
