-- rfdb schema, version 11 (PostgreSQL twin of migrations/0011_attempts_measured.sql):
-- the copy check's partial index on measured attempts by short_name and
-- isolated speedup.
CREATE INDEX attempts_measured ON attempts (short_name, isolated_speedup)
  WHERE isolated_speedup IS NOT NULL OR e2e_delta_pct IS NOT NULL;
