-- Whether a run stores any file version (one index seek): ingest looks up
-- each file of a run that stores some, and none of a run that stores none.
SELECT 1 AS stored
FROM sources
WHERE run_id = :run_id
LIMIT 1;
