-- Remove one tag of a run (rfdb untag).
DELETE FROM run_tags WHERE run_id = :run_id AND key = :key;
