-- Stored files to train a compression dictionary on: every :step-th by
-- source_id, so old and new producers are both represented.
SELECT bytes, raw_zst
FROM sources
WHERE source_id % :step = 0
ORDER BY source_id
LIMIT :limit;
