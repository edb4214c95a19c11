-- Every run with its identity, workload and how much evidence it holds.
-- :include_retracted = 1 also lists retracted runs.
SELECT r.run_id, r.run_date, r.model, r.gfx, r.backend, r.backend_version,
       r.isl, r.osl, r.conc, r.tp,
       r.baseline_throughput_tok_s, r.final_throughput_tok_s, r.throughput_speedup,
       r.validation_class,
       (SELECT count(*) FROM profile_rounds p WHERE p.run_id = r.run_id) AS rounds,
       (SELECT count(*) FROM verdicts v WHERE v.run_id = r.run_id AND v.superseded = 0) AS verdicts,
       (SELECT count(*) FROM attempts a WHERE a.run_id = r.run_id) AS attempts,
       (SELECT count(*) FROM sources s WHERE s.run_id = r.run_id) AS sources,
       x.reason AS retracted_reason
FROM runs r
LEFT JOIN retractions x ON x.run_id = r.run_id
WHERE :include_retracted = 1 OR x.run_id IS NULL
ORDER BY r.run_date, r.run_id;
