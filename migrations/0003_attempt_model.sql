-- The attempt model (docs/attempt-model.md): one attempt per physically
-- measured candidate, references attached by kernel and agreeing numbers.
-- Rows written before this migration keep the defaults until their run is
-- re-derived (`rfdb ingest` of a changed file, or a fresh database).
ALTER TABLE attempts ADD COLUMN kind TEXT NOT NULL DEFAULT 'kernel'
  CHECK (kind IN ('kernel', 'config'));
-- The candidate's own short_name when it is not the profiled kernel's
-- (resolved through integrate_result.task_dir), and that task dir's name.
ALTER TABLE attempts ADD COLUMN candidate_short_name TEXT;
ALTER TABLE attempts ADD COLUMN task TEXT;
-- 1 when an isolated speedup or an e2e delta was measured; 0 for a ledger
-- row that recorded 0 / 0 ("not measured": flagged, dead end).
ALTER TABLE attempts ADD COLUMN measured INTEGER NOT NULL DEFAULT 0 CHECK (measured IN (0, 1));
-- 1 when the final overlay carries the candidate (integrate accepted_overlay
-- set, or an accepted_heads / accepted_kernels row cites it).
ALTER TABLE attempts ADD COLUMN deployed INTEGER NOT NULL DEFAULT 0 CHECK (deployed IN (0, 1));
-- 1 when a post roofline measured this attempt (post_efficiency is its).
ALTER TABLE attempts ADD COLUMN post_measured INTEGER NOT NULL DEFAULT 0 CHECK (post_measured IN (0, 1));
-- The integrate reason's reject vocabulary word: no_engagement,
-- parity_regression, accuracy_regression, output_corruption,
-- implausible_speedup, no_rebind_seam, cuda_graph_capture_unsafe,
-- mem_footprint_starves_kv, needs_accuracy_gate.
ALTER TABLE attempts ADD COLUMN reject_reason TEXT;
-- The run's Director validation, as of the attempt's derivation.
ALTER TABLE attempts ADD COLUMN validation_class TEXT NOT NULL DEFAULT 'unknown'
  CHECK (validation_class IN ('win', 'no_win', 'flagged', 'unknown'));
ALTER TABLE attempts ADD COLUMN validation_speedup REAL; -- × the run's throughput_speedup
