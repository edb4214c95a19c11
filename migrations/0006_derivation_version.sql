-- Which version of rfdb's derivation rules wrote a run's rows (runs,
-- verdicts, attempts …). 0 = before the attempt model of migration 0003:
-- such a run is re-derived from its stored files on its next `rfdb ingest`,
-- even when no file changed, so an upgraded database never keeps attempts
-- counted by older rules.
ALTER TABLE runs ADD COLUMN derived_by INTEGER NOT NULL DEFAULT 0;
