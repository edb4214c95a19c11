-- The stored version of a file with exactly this content, if any (:sha256
-- is the digest's 32 bytes; `IS` matches a NULL run_id, and SQLite searches
-- sources_identity with it).
SELECT source_id, superseded_by
FROM sources
WHERE run_id IS :run_id AND rel_path = :rel_path AND sha256 = :sha256;
