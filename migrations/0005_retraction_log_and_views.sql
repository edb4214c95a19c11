-- rfdb schema, version 5: the history of retractions, and the views people
-- querying the database with sqlite3 should start from (docs/schema.md).

-- Every retract and restore, oldest first. `retractions` stays the current
-- state (one row per retracted run); this table keeps each reason given.
CREATE TABLE retraction_log (
  event_id INTEGER PRIMARY KEY,
  run_id   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  action   TEXT NOT NULL CHECK (action IN ('retract', 'restore')),
  reason   TEXT,           -- retract: why; restore: NULL
  at       TEXT NOT NULL   -- ISO-8601 UTC timestamp
) STRICT;
CREATE INDEX retraction_log_run ON retraction_log (run_id, event_id);
INSERT INTO retraction_log (run_id, action, reason, at)
SELECT run_id, 'retract', reason, retracted_at FROM retractions ORDER BY retracted_at, run_id;

-- Views select `*` of their base table, so columns a later migration adds
-- appear in them. A migration that rebuilds runs, verdicts or attempts
-- (create, copy, drop, rename) must DROP these views first and re-create
-- them after: SQLite refuses to rename a table while a view names a
-- dropped one.

-- Runs that count: every run that is not retracted.
CREATE VIEW active_runs AS
SELECT r.*
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions);

-- The current roofline verdicts (superseded ones left out) of active runs,
-- with the run's date, GPU, model and serving stack.
CREATE VIEW current_verdicts AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, v.*
FROM verdicts v
JOIN active_runs r ON r.run_id = v.run_id
WHERE v.superseded = 0;

-- Every attempt of an active run with the run's date, GPU, model and
-- serving stack: the prediction (pred_*) next to the outcome.
CREATE VIEW attempt_outcomes AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, a.*
FROM attempts a
JOIN active_runs r ON r.run_id = a.run_id;
