-- Whether a run row exists.
SELECT 1 FROM runs WHERE run_id = :run_id;
