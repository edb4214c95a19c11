-- Drop a run's observation rows before re-deriving them. Deleting its
-- attempts cascades to them too; this also clears rows a connection without
-- foreign keys left behind.
DELETE FROM observations WHERE run_id = :run_id;
