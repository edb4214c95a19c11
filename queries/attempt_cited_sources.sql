-- Every file one attempt cites, with the JSON pointer of the row inside it
-- ("" = the whole file), for `rfdb show RUN --attempt KEY`.
SELECT s.rel_path, s.kind, x.json_pointer, s.sha256, s.superseded_by IS NOT NULL AS superseded
FROM attempts a
JOIN attempt_sources x ON x.attempt_id = a.attempt_id
JOIN sources s ON s.source_id = x.source_id
WHERE a.run_id = :run_id AND a.attempt_key = :attempt_key
ORDER BY s.rel_path, x.json_pointer;
