-- PostgreSQL text of queries/report_runs.sql (no order: the reader sorts the runs byte-wise). Optional text parameters are CAST so PostgreSQL can type them.
SELECT r.run_id, r.run_date, r.model, r.model_dtype, r.gfx, r.backend, r.isl, r.osl, r.conc,
       r.validation_class
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions)
  AND (CAST(:since AS text) IS NULL OR r.run_date >= :since)
  AND (CAST(:gfx AS text) IS NULL OR r.gfx = :gfx);
