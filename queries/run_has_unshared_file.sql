-- Copy check (ingest/run_copy.cpp): 1 when some current file of :run_id is stored
-- under no other run (same path and content), so no run can store them all.
-- Cheap: each file stops at its first match in the sources_sha256 index,
-- however many runs share it.
SELECT 1
FROM sources AS m
WHERE m.run_id = :run_id AND m.superseded_by IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM sources AS x
    WHERE x.sha256 = m.sha256 AND x.rel_path = m.rel_path AND ifnull(x.run_id, '') != :run_id)
LIMIT 1;
