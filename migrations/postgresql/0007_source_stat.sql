-- The file's stat when a version was read (migrations/0007_source_stat.sql).
ALTER TABLE sources ADD COLUMN size BIGINT;
ALTER TABLE sources ADD COLUMN mtime_ns BIGINT;
