-- rfdb schema, version 9 (PostgreSQL): the observation rows `rfdb priors` and
-- `rfdb report` calibrate from, materialized at ingest. The twin of the
-- SQLite migration (migrations/0009_observations.sql after renumbering; see
-- its comments): one row per attempt, maintained in the run's ingest
-- transaction, deleted with its attempt (ON DELETE CASCADE).
CREATE TABLE observations (
  attempt_id         BIGINT PRIMARY KEY REFERENCES attempts(attempt_id) ON DELETE CASCADE,
  run_id             TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  run_date           TEXT,
  gfx                TEXT,
  op_class           TEXT NOT NULL,
  regime             TEXT,
  round              TEXT,
  short_name         TEXT NOT NULL,
  lever              TEXT NOT NULL,
  isolated_speedup   DOUBLE PRECISION,
  e2e_delta_pct      DOUBLE PRECISION,
  roofline_pct       DOUBLE PRECISION,
  attainable_speedup DOUBLE PRECISION,
  pct_gpu_time       DOUBLE PRECISION,
  headroom_class     TEXT,
  confidence         TEXT,
  suspect            BIGINT,
  dispatch_bound     BIGINT NOT NULL DEFAULT 0,
  post_efficiency    DOUBLE PRECISION,
  output_parity      TEXT,
  reject_reason      TEXT
);
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
