-- Record the mtime of a file whose content is stored already (touched, or
-- stored before migration 0007).
UPDATE sources SET mtime_ns = :mtime_ns
WHERE source_id = :source_id AND mtime_ns IS NOT :mtime_ns;
