-- PostgreSQL text of queries/attempt_source_insert.sql: ON CONFLICT DO NOTHING for INSERT OR IGNORE.
-- Cite one file (and the place in it) for an attempt.
INSERT INTO attempt_sources (attempt_id, source_id, json_pointer)
VALUES (:attempt_id, :source_id, :json_pointer)
ON CONFLICT DO NOTHING;
