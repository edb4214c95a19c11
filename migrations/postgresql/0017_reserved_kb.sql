-- rfdb schema, version 17: reserved for the GEAK kb tables (issue 31, branch feat/kbingest),
-- which lands its own 0017 at merge; this placeholder (no change) only keeps the migration
-- numbers gapless on feat/lookup and is dropped when the two merge.
SELECT 1;
