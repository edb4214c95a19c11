-- The file's stat when a version was read, so a re-ingest can tell an
-- unchanged file without reading it: `size` (bytes, as stat reported it)
-- and `mtime_ns` (modification time, ns since the epoch). NULL for rows
-- stored before this migration and for knowledge files: such a file is
-- read and hashed as before, and its stat is recorded on the next write.
ALTER TABLE sources ADD COLUMN size INTEGER;
ALTER TABLE sources ADD COLUMN mtime_ns INTEGER;
