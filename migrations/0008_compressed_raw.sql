-- rfdb schema, version 8: each file's text stored once, zstd-compressed.
--
-- sources.raw (TEXT) becomes sources.raw_zst (BLOB): one zstd frame of the
-- file's bytes exactly as read (src/util/zstd.hpp), BOM, CRLF and invalid
-- UTF-8 included. `bytes` stays the uncompressed size and `sha256` the
-- digest of the uncompressed bytes. SQLite has no zstd: rfdb registers
-- rfdb_zstd(text) → BLOB on the connection that migrates (store/database_open.cpp).
ALTER TABLE sources ADD COLUMN raw_zst BLOB NOT NULL DEFAULT x'';
UPDATE sources SET raw_zst = rfdb_zstd(raw);
ALTER TABLE sources DROP COLUMN raw;
-- Shared zstd dictionaries: each small JSON file compresses against the keys
-- and names the stored files share (store/text_codec.hpp). rfdb trains one
-- from the stored files at 256 files, then at each 4-fold growth; a frame
-- records the id of its dictionary (none for frames this migration writes).
CREATE TABLE zstd_dicts (
  dict_id       INTEGER PRIMARY KEY, -- zstd's dictionary id, as frames record it (≥ 32768)
  dict          BLOB NOT NULL,
  trained_files INTEGER NOT NULL,    -- stored files (max source_id) when it was trained
  samples       INTEGER NOT NULL,    -- stored files it was trained on
  trained_at    TEXT NOT NULL       -- ISO-8601 UTC
) STRICT;

-- sources.size (migration 0007) repeated `bytes`: a re-ingest compares the
-- file's stat size with `bytes` (and its mtime with mtime_ns).
ALTER TABLE sources DROP COLUMN size;

-- kernel_samples.raw and verdicts.raw repeated each row's JSON, which the
-- stored file holds at the row's json_pointer. current_verdicts selects v.*,
-- so it is dropped and re-created around the change (see migration 0005).
DROP VIEW current_verdicts;
ALTER TABLE kernel_samples DROP COLUMN raw;
ALTER TABLE verdicts DROP COLUMN raw;
CREATE VIEW current_verdicts AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, v.*
FROM verdicts v
JOIN active_runs r ON r.run_id = v.run_id
WHERE v.superseded = 0;
