-- Copy check (ingest/run_copy.cpp): other stored runs (retracted ones included) with
-- the same identity — model, gfx, backend, isl, osl, conc, NULL matching
-- NULL — and a measured attempt like :short_name's. The tolerances are
-- twice the rounding steps the check compares at (1e-4 ×, 1e-3 %), so this
-- is a superset of the copies; the caller compares every attempt (an exact
-- copy: one query for the run; a partial copy: one per measured kernel
-- attempt with an isolated speedup, then candidate dir or lever). The two
-- branches (no isolated speedup / one within the tolerance) each search the
-- partial index attempts_measured (migration 0011), whose condition they
-- repeat; the wider range bounds only let it seek, abs() decides.
SELECT DISTINCT r.run_id
FROM (SELECT run_id, e2e_delta_pct
      FROM attempts
      WHERE short_name = :short_name AND isolated_speedup IS NULL AND :isolated_speedup IS NULL
        AND (isolated_speedup IS NOT NULL OR e2e_delta_pct IS NOT NULL)
      UNION ALL
      SELECT run_id, e2e_delta_pct
      FROM attempts
      WHERE short_name = :short_name
        AND isolated_speedup > :isolated_speedup - 0.0003 AND isolated_speedup < :isolated_speedup + 0.0003
        AND abs(isolated_speedup - :isolated_speedup) < 0.0002
        AND (isolated_speedup IS NOT NULL OR e2e_delta_pct IS NOT NULL)) AS a
JOIN runs AS r ON r.run_id = a.run_id
WHERE r.run_id != :run_id
  AND r.model IS :model AND r.gfx IS :gfx AND r.backend IS :backend
  AND r.isl IS :isl AND r.osl IS :osl AND r.conc IS :conc
  AND ((a.e2e_delta_pct IS NULL AND :e2e_delta_pct IS NULL)
       OR abs(a.e2e_delta_pct - :e2e_delta_pct) < 0.002)
ORDER BY r.run_id;
