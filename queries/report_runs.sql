-- The runs the playbook counts: identity and workload of every non-retracted
-- run (no evidence counts, unlike runs_list). Optional filters :since
-- (run_date on or after) and :gfx (exact). In table order: the reader puts
-- them in run order (undated first, run_date, run_id), which costs less than
-- a sort here under the report's small page cache. measured_spread_pct: the
-- widest throughput spread (percent) of the run's reference bench summaries
-- (domain::is_reference_bench_role names the same roles), the run's own e2e
-- noise (migration 0015, docs/playbook.md "Noise measured per run").
SELECT r.run_id, r.run_date, r.model, r.model_dtype, r.gfx, r.backend, r.isl, r.osl, r.conc,
       r.validation_class,
       (SELECT MAX(b.throughput_spread_pct) FROM bench_summaries b
        WHERE b.run_id = r.run_id AND b.role IN ('baseline', 'validation_base', 'overlay_ref'))
         AS measured_spread_pct
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions)
  AND (:since IS NULL OR r.run_date >= :since)
  AND (:gfx IS NULL OR r.gfx = :gfx);
