-- The runs the playbook counts: identity and workload of every non-retracted
-- run (no evidence counts, unlike runs_list). Optional filters :since
-- (run_date on or after) and :gfx (exact). In table order: the reader puts
-- them in run order (undated first, run_date, run_id), which costs less than
-- a sort here under the report's small page cache.
SELECT r.run_id, r.run_date, r.model, r.model_dtype, r.gfx, r.backend, r.isl, r.osl, r.conc,
       r.validation_class
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions)
  AND (:since IS NULL OR r.run_date >= :since)
  AND (:gfx IS NULL OR r.gfx = :gfx);
