-- PostgreSQL text of queries/run_copy_candidates.sql: IS NOT DISTINCT FROM for IS.
-- Copy check (ingest.cpp): other stored runs (retracted ones included) with
-- the same identity — model, gfx, backend, isl, osl, conc, NULL matching
-- NULL — and a measured attempt like :short_name's. The tolerances are
-- twice the rounding steps the check compares at (1e-4 ×, 1e-3 %), so this
-- is a superset of the copies; the caller compares every attempt.
SELECT DISTINCT r.run_id
FROM runs AS r
JOIN attempts AS a ON a.run_id = r.run_id
WHERE r.run_id != :run_id
  AND r.model IS NOT DISTINCT FROM :model AND r.gfx IS NOT DISTINCT FROM :gfx
  AND r.backend IS NOT DISTINCT FROM :backend
  AND r.isl IS NOT DISTINCT FROM :isl AND r.osl IS NOT DISTINCT FROM :osl
  AND r.conc IS NOT DISTINCT FROM :conc
  AND a.short_name = :short_name
  AND ((a.isolated_speedup IS NULL AND CAST(:isolated_speedup AS double precision) IS NULL)
       OR abs(a.isolated_speedup - :isolated_speedup) < 0.0002)
  AND ((a.e2e_delta_pct IS NULL AND CAST(:e2e_delta_pct AS double precision) IS NULL)
       OR abs(a.e2e_delta_pct - :e2e_delta_pct) < 0.002)
ORDER BY r.run_id;
