-- The current kb record of one lane and key, with the digest of the files it was read from.
SELECT record_id, files_sha256 FROM kb_records
WHERE lane = :lane AND record_key = :record_key AND superseded = 0;
