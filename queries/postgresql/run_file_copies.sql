-- PostgreSQL text of queries/run_file_copies.sql: IS NOT DISTINCT FROM for IS.
-- Copy check (ingest/run_copy.cpp): other stored runs (retracted ones included) with
-- the same identity — model, gfx, backend, isl, osl, conc, NULL matching
-- NULL — that store every current file of :run_id with the same path and
-- content (the sources_sha256 index finds them).
SELECT o.run_id
FROM sources AS s
JOIN sources AS o ON o.sha256 = s.sha256 AND o.rel_path = s.rel_path
JOIN runs AS r ON r.run_id = o.run_id
WHERE s.run_id = :run_id AND s.superseded_by IS NULL AND o.run_id != :run_id
  AND r.model IS NOT DISTINCT FROM :model AND r.gfx IS NOT DISTINCT FROM :gfx
  AND r.backend IS NOT DISTINCT FROM :backend
  AND r.isl IS NOT DISTINCT FROM :isl AND r.osl IS NOT DISTINCT FROM :osl
  AND r.conc IS NOT DISTINCT FROM :conc
GROUP BY o.run_id
HAVING count(DISTINCT s.rel_path) =
       (SELECT count(*) FROM sources WHERE run_id = :run_id AND superseded_by IS NULL)
ORDER BY o.run_id
LIMIT 1;
