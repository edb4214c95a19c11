-- rfdb schema, version 18 (PostgreSQL twin of migrations/0018_attempt_content_signature.sql):
-- attempts.content_signature, GEAK's csha:/asha: implementation signature of the candidate
-- (NULL when the run stores neither its diff nor its tuning table).
ALTER TABLE attempts ADD COLUMN content_signature TEXT COLLATE "C";

-- PostgreSQL expands a view's `a.*` when the view is created: re-create it so it lists the new
-- column as SQLite's view does.
DROP VIEW attempt_outcomes;
CREATE VIEW attempt_outcomes AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, a.*
FROM attempts a
JOIN active_runs r ON r.run_id = a.run_id;
