-- rfdb schema, version 9: the observation rows `rfdb priors` and `rfdb report`
-- calibrate from, materialized at ingest (issue 12: answers in milliseconds
-- at 30 000 runs). One row per attempt with exactly what the estimator reads:
-- the attempt's class, regime, kernel and lever, its measured speedups, its
-- parity facts, its prediction snapshot with the predicting verdict's
-- dispatch_bound flag, and its run's date (as_of, --since, time decay) and
-- GPU. Which rows are observations depends on the command's options (as_of,
-- --since, weights), so every attempt has a row; the estimator judges them.
--
-- Maintained in the run's ingest transaction by the run writer
-- (queries/observation_insert.sql, the same SELECT as the back-fill below):
-- re-deriving a run deletes these rows (queries/run_clear_observations.sql;
-- deleting an attempt also cascades to its row) and writes them again. Retraction does not touch them:
-- readers leave retracted runs out as they do for attempts.
CREATE TABLE observations (
  attempt_id         INTEGER PRIMARY KEY REFERENCES attempts(attempt_id) ON DELETE CASCADE,
  run_id             TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  run_date           TEXT,    -- runs.run_date, YYYY-MM-DD
  gfx                TEXT,    -- runs.gfx as stored (readers normalize)
  op_class           TEXT NOT NULL,
  regime             TEXT,
  round              TEXT,
  short_name         TEXT NOT NULL,
  lever              TEXT NOT NULL,
  isolated_speedup   REAL,    -- ×
  e2e_delta_pct      REAL,    -- percent
  roofline_pct       REAL,    -- attempts.pred_roofline_pct, fraction
  attainable_speedup REAL,    -- attempts.pred_attainable_speedup, ×
  pct_gpu_time       REAL,    -- attempts.pred_pct_gpu_time, percent
  headroom_class     TEXT,    -- attempts.pred_headroom_class
  confidence         TEXT,    -- attempts.pred_confidence
  suspect            INTEGER, -- attempts.pred_suspect
  dispatch_bound     INTEGER NOT NULL DEFAULT 0, -- the predicting verdict's flag (0 without one)
  post_efficiency    REAL,    -- fraction
  output_parity      TEXT,
  reject_reason      TEXT
) STRICT;
CREATE INDEX observations_run ON observations (run_id);

INSERT INTO observations (attempt_id, run_id, run_date, gfx, op_class, regime, round, short_name, lever,
                          isolated_speedup, e2e_delta_pct, roofline_pct, attainable_speedup, pct_gpu_time,
                          headroom_class, confidence, suspect, dispatch_bound, post_efficiency,
                          output_parity, reject_reason)
SELECT a.attempt_id, a.run_id, r.run_date, r.gfx, a.op_class, a.regime, a.round, a.short_name, a.lever,
       a.isolated_speedup, a.e2e_delta_pct, a.pred_roofline_pct, a.pred_attainable_speedup,
       a.pred_pct_gpu_time, a.pred_headroom_class, a.pred_confidence, a.pred_suspect,
       coalesce(v.dispatch_bound, 0), a.post_efficiency, a.output_parity, a.reject_reason
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
LEFT JOIN verdicts v ON v.verdict_id = a.pred_verdict_id
ORDER BY a.attempt_id;
