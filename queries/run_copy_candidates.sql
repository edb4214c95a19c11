-- Copy check (ingest.cpp): other stored runs (retracted ones included) with
-- the same identity — model, gfx, backend, isl, osl, conc, NULL matching
-- NULL — and a measured attempt like :short_name's. The tolerances are
-- twice the rounding steps the check compares at (1e-4 ×, 1e-3 %), so this
-- is a superset of the copies; the caller compares every attempt.
SELECT DISTINCT r.run_id
FROM runs AS r
JOIN attempts AS a ON a.run_id = r.run_id
WHERE r.run_id != :run_id
  AND r.model IS :model AND r.gfx IS :gfx AND r.backend IS :backend
  AND r.isl IS :isl AND r.osl IS :osl AND r.conc IS :conc
  AND a.short_name = :short_name
  AND ((a.isolated_speedup IS NULL AND :isolated_speedup IS NULL)
       OR abs(a.isolated_speedup - :isolated_speedup) < 0.0002)
  AND ((a.e2e_delta_pct IS NULL AND :e2e_delta_pct IS NULL)
       OR abs(a.e2e_delta_pct - :e2e_delta_pct) < 0.002)
ORDER BY r.run_id;
