-- Store a file version's text again (one zstd frame of the bytes whose
-- sha256 the row records) over a stored copy that failed verification.
UPDATE sources SET raw_zst = :raw_zst, bytes = :bytes WHERE source_id = :source_id;
