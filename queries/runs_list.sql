-- Every run with its identity, workload and how much evidence it holds
-- (rfdb runs). :include_retracted = 1 also lists retracted runs, 2 lists
-- only them. Optional filters: :gfx and :backend (exact, any case), :model
-- (a part of the model name, any case), :since and :until (run_date, both
-- inclusive).
SELECT r.run_id, r.run_date, r.model, r.gfx, r.backend, r.backend_version,
       r.isl, r.osl, r.conc, r.tp,
       r.baseline_throughput_tok_s, r.final_throughput_tok_s, r.throughput_speedup,
       r.validation_class,
       (SELECT count(*) FROM profile_rounds p WHERE p.run_id = r.run_id) AS rounds,
       (SELECT count(*) FROM verdicts v WHERE v.run_id = r.run_id AND v.superseded = 0) AS verdicts,
       (SELECT count(*) FROM attempts a WHERE a.run_id = r.run_id) AS attempts,
       (SELECT count(*) FROM sources s WHERE s.run_id = r.run_id) AS sources,
       -- the run's measured spread (store::measured_spread_pct: the same reference roles)
       (SELECT MAX(b.throughput_spread_pct) FROM bench_summaries b
        WHERE b.run_id = r.run_id AND b.role IN ('baseline', 'validation_base', 'overlay_ref'))
         AS measured_spread_pct,
       x.reason AS retracted_reason
FROM runs r
LEFT JOIN retractions x ON x.run_id = r.run_id
WHERE CASE :include_retracted WHEN 2 THEN x.run_id IS NOT NULL
                              WHEN 1 THEN 1
                              ELSE x.run_id IS NULL END
  AND (:gfx IS NULL OR lower(r.gfx) = lower(:gfx))
  AND (:backend IS NULL OR lower(r.backend) = lower(:backend))
  AND (:model IS NULL OR instr(lower(r.model), lower(:model)) > 0)
  AND (:since IS NULL OR r.run_date >= :since)
  AND (:until IS NULL OR r.run_date <= :until)
ORDER BY r.run_date, r.run_id;
