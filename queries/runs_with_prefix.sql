-- Run ids equal to or starting with :prefix (rfdb show/retract/restore take
-- any unique prefix), the exact match first; at most 11 (10 are listed when
-- the prefix is ambiguous).
SELECT run_id
FROM runs
WHERE substr(run_id, 1, length(:prefix)) = :prefix
ORDER BY run_id <> :prefix, run_id
LIMIT 11;
