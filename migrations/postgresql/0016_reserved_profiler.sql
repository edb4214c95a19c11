-- rfdb schema, version 16: reserved for the profiler-aware verdicts (issue 30, branch
-- feat/profiler), which lands its own 0016 at merge; this placeholder (no change) only keeps the
-- migration numbers gapless on feat/lookup and is dropped when the two merge.
SELECT 1;
