-- Another run that stores a file with the same path and content (copy check).
SELECT run_id FROM sources
WHERE sha256 = :sha256 AND rel_path = :rel_path AND run_id IS NOT NULL AND run_id != :run_id
LIMIT 1;
