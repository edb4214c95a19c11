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
  AND (:since IS NULL OR r.run_date >= :since)
  AND (:gfx IS NULL OR r.gfx = :gfx)
ORDER BY r.run_date, a.run_id, a.attempt_key;
