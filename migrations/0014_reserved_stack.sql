-- rfdb schema, version 14: reserved for the run's stack (issue 30, branch feat/stack), which
-- lands its own 0014 at merge; this placeholder (no change) only keeps the
-- migration numbers gapless on feat/noise and is dropped when the two merge.
SELECT 1;
