-- Cite one file (and the place in it) for an attempt.
INSERT OR IGNORE INTO attempt_sources (attempt_id, source_id, json_pointer)
VALUES (:attempt_id, :source_id, :json_pointer);
