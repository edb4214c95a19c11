-- PostgreSQL text of queries/evidence_attempts.sql: NULL run_date first, as in SQLite. Optional text parameters are CAST so PostgreSQL can type them.
-- Calibration evidence (`rfdb priors --explain`): every attempt of a non-retracted run,
-- the members of src/store/attempt_fields.def calibration reads (C), whether the
-- predicting verdict was dispatch-bound, and its run's identity. Optional filters :since
-- (run_date on or after) and :gfx.
SELECT /*@attempt_select:C*/,
       v.dispatch_bound, r.run_date, r.gfx, r.model, r.isl, r.osl, r.conc,
       r.validation_class
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
LEFT JOIN verdicts v ON v.verdict_id = a.pred_verdict_id
WHERE a.run_id NOT IN (SELECT run_id FROM retractions)
  AND (CAST(:since AS text) IS NULL OR r.run_date >= :since)
  AND (CAST(:gfx AS text) IS NULL OR r.gfx = :gfx)
ORDER BY r.run_date NULLS FIRST, a.run_id, a.attempt_key;
