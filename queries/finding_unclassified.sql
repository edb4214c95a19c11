-- Whether a stored knowledge file version has findings an older rfdb wrote
-- without a classification (migration 0012): the next ingest of the same
-- file reads them anew, so `show` and `query` see what the report sees.
SELECT count(*) AS n FROM learned_findings WHERE source_id = :source_id AND classification IS NULL;
