-- rfdb schema, version 8 (PostgreSQL twin of migrations/0008_compressed_raw.sql):
-- each file's text stored once, zstd-compressed.
--
-- sources.raw (TEXT) becomes sources.raw_zst (BYTEA): one zstd frame of the
-- file's bytes exactly as read (src/util/zstd.hpp). `bytes` stays the
-- uncompressed size and `sha256` the digest of the uncompressed bytes.
-- PostgreSQL has no zstd in SQL, so this migration cannot compress stored
-- text: on a database that already stores files the SET NOT NULL below
-- fails ("column raw_zst contains null values") and the migration rolls
-- back with the text intact; re-ingest such a history into a new database.
ALTER TABLE sources ADD COLUMN raw_zst BYTEA;
ALTER TABLE sources ALTER COLUMN raw_zst SET NOT NULL;
ALTER TABLE sources DROP COLUMN raw;
-- Shared zstd dictionaries: each small JSON file compresses against the keys
-- and names the stored files share (store/text_codec.hpp). rfdb trains one
-- from the stored files at 256 files, then at each 4-fold growth; a frame
-- records the id of its dictionary (none for frames this migration writes).
CREATE TABLE zstd_dicts (
  dict_id       BIGINT PRIMARY KEY, -- zstd's dictionary id, as frames record it (≥ 32768)
  dict          BYTEA NOT NULL,
  trained_files BIGINT NOT NULL,    -- stored files (max source_id) when it was trained
  samples       BIGINT NOT NULL,    -- stored files it was trained on
  trained_at    TEXT NOT NULL       -- ISO-8601 UTC
);

-- sources.size (migration 0007) repeated `bytes`: a re-ingest compares the
-- file's stat size with `bytes` (and its mtime with mtime_ns).
ALTER TABLE sources DROP COLUMN size;

-- kernel_samples.raw and verdicts.raw repeated each row's JSON, which the
-- stored file holds at the row's json_pointer. current_verdicts selects v.*
-- (expanded when the view was created), so it is dropped and re-created.
DROP VIEW current_verdicts;
ALTER TABLE kernel_samples DROP COLUMN raw;
ALTER TABLE verdicts DROP COLUMN raw;
CREATE VIEW current_verdicts AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, v.*
FROM verdicts v
JOIN active_runs r ON r.run_id = v.run_id
WHERE v.superseded = 0;
