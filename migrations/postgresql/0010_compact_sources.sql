-- rfdb schema, version 10 (PostgreSQL twin of migrations/0010_compact_sources.sql):
-- a smaller sources table.
--
-- sources.sha256 holds the digest's 32 bytes (BYTEA) instead of 64 hex
-- characters; rfdb spells it in lower-case hex wherever it shows it. The
-- column is re-added, as SQLite must, so both keep the same column order.
-- sources_identity becomes (run_id, rel_path, sha256) on the plain columns,
-- so its run_id prefix serves every per-run lookup, and sources_run is
-- dropped; the knowledge files (run_id NULL) keep their (rel_path, sha256)
-- identity in the partial index sources_knowledge.
DROP INDEX sources_identity;
DROP INDEX sources_run;
DROP INDEX sources_sha256;
ALTER TABLE sources ADD COLUMN sha256_bytes BYTEA;
UPDATE sources SET sha256_bytes = decode(sha256, 'hex');
ALTER TABLE sources ALTER COLUMN sha256_bytes SET NOT NULL;
ALTER TABLE sources DROP COLUMN sha256;
ALTER TABLE sources RENAME COLUMN sha256_bytes TO sha256;
CREATE UNIQUE INDEX sources_identity ON sources (run_id, rel_path, sha256);
CREATE UNIQUE INDEX sources_knowledge ON sources (rel_path, sha256) WHERE run_id IS NULL;
CREATE INDEX sources_sha256 ON sources (sha256);
