-- Copy check (ingest/run_copy.cpp): other stored runs (retracted ones included) with
-- the same identity — model, gfx, backend, isl, osl, conc, NULL matching
-- NULL — that store every current file of :run_id with the same path and
-- content (the sources_sha256 index finds them; CROSS JOIN keeps SQLite from
-- starting at every run with the identity instead).
SELECT o.run_id
FROM sources AS s
CROSS JOIN sources AS o
CROSS JOIN runs AS r
WHERE o.sha256 = s.sha256 AND o.rel_path = s.rel_path AND r.run_id = o.run_id
  AND s.run_id = :run_id AND s.superseded_by IS NULL AND o.run_id != :run_id
  AND r.model IS :model AND r.gfx IS :gfx AND r.backend IS :backend
  AND r.isl IS :isl AND r.osl IS :osl AND r.conc IS :conc
GROUP BY o.run_id
HAVING count(DISTINCT s.rel_path) =
       (SELECT count(*) FROM sources WHERE run_id = :run_id AND superseded_by IS NULL)
ORDER BY o.run_id
LIMIT 1;
