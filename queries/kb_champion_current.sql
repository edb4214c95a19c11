-- The current champion pointer of one identity dir, with its file's sha256.
SELECT c.champion_id, s.sha256 FROM kb_champions c JOIN sources s ON s.source_id = c.source_id
WHERE c.canonical_id = :canonical_id AND c.superseded = 0;
