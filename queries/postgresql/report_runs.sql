-- PostgreSQL text of queries/report_runs.sql (no order: the reader sorts the runs byte-wise). Optional text parameters are CAST so PostgreSQL can type them.
SELECT r.run_id, r.run_date, r.model, r.model_dtype, r.gfx, r.backend, r.isl, r.osl, r.conc,
       r.validation_class,
       (SELECT MAX(b.throughput_spread_pct) FROM bench_summaries b
        WHERE b.run_id = r.run_id AND b.role IN ('baseline', 'validation_base', 'overlay_ref'))
         AS measured_spread_pct
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions)
  AND (CAST(:since AS text) IS NULL OR r.run_date >= :since)
  AND (CAST(:gfx AS text) IS NULL OR r.gfx = :gfx);
