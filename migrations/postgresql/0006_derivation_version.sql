-- Which version of rfdb's derivation rules wrote a run's rows
-- (migrations/0006_derivation_version.sql). active_runs selects `r.*`:
-- re-created so it carries the new column, as SQLite's view does.
ALTER TABLE runs ADD COLUMN derived_by BIGINT NOT NULL DEFAULT 0;
CREATE OR REPLACE VIEW active_runs AS
SELECT r.*
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions);
