-- Every current GEAK kb record (kb_records, migration 0017; docs/kb.md), by lane and record key.
SELECT /*@kb_record_columns*/
FROM kb_records
WHERE superseded = 0
ORDER BY lane, record_key;
