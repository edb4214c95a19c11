-- The current tags of a run, by key (rfdb query run_tags -p run_id=RUN).
SELECT key, value
FROM run_tags
WHERE run_id = :run_id
ORDER BY key;
