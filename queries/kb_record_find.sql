-- The current GEAK kb records whose record_id is CAST(:id AS TEXT), or whose record_key is CAST(:id AS TEXT) or starts with it
-- (rfdb show --finding).
SELECT /*@kb_record_columns*/
FROM kb_records
WHERE superseded = 0
  AND (CAST(record_id AS TEXT) = CAST(:id AS TEXT) OR record_key = CAST(:id AS TEXT) OR substr(record_key, 1, length(CAST(:id AS TEXT))) = CAST(:id AS TEXT))
ORDER BY record_key = CAST(:id AS TEXT) DESC, CAST(record_id AS TEXT) = CAST(:id AS TEXT) DESC, record_key
LIMIT 6;
