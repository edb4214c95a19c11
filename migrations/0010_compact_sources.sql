-- rfdb schema, version 10: a smaller sources table (issue 12: the database at
-- most half the JSON it stores).
--
-- sources.sha256 holds the digest's 32 bytes (BLOB) instead of 64 hex
-- characters, in the table and in both indexes that carry it; rfdb spells it
-- in lower-case hex wherever it shows it (store/sources.cpp, sources_list).
-- SQLite 3.40 has no unhex(): rfdb registers rfdb_unhex(text) → BLOB on the
-- connection that migrates (store/database_open.cpp).
--
-- sources_identity becomes (run_id, rel_path, sha256) on the plain columns,
-- so its run_id prefix serves every per-run lookup and sources_run
-- (run_id, kind), which no query needed beyond that prefix, is dropped. The
-- knowledge files (run_id NULL, which a plain unique index would let repeat)
-- keep their (rel_path, sha256) identity in the partial index sources_knowledge.
DROP INDEX sources_identity;
DROP INDEX sources_run;
DROP INDEX sources_sha256;
ALTER TABLE sources ADD COLUMN sha256_bytes BLOB NOT NULL DEFAULT x'';
UPDATE sources SET sha256_bytes = rfdb_unhex(sha256);
ALTER TABLE sources DROP COLUMN sha256;
ALTER TABLE sources RENAME COLUMN sha256_bytes TO sha256;
CREATE UNIQUE INDEX sources_identity ON sources (run_id, rel_path, sha256);
CREATE UNIQUE INDEX sources_knowledge ON sources (rel_path, sha256) WHERE run_id IS NULL;
CREATE INDEX sources_sha256 ON sources (sha256);
