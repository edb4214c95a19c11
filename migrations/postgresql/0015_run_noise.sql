-- rfdb schema, version 15 (PostgreSQL twin of migrations/0015_run_noise.sql): the noise a run measured and the limits it stated.
--
-- bench_samples: the per-repetition throughputs of each bench summary
-- (bench_summary.json `all_throughput`, tok/s aggregate), in file order.
-- run_limitations: the run's env_report.json `limitations`, verbatim, in
-- file order. Both are derived rows of the run (a re-ingest rewrites them).
CREATE TABLE bench_samples (
  run_id           TEXT COLLATE "C" NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  source_id        BIGINT NOT NULL REFERENCES sources(source_id),
  sample_index     BIGINT NOT NULL CHECK (sample_index >= 0),
  throughput_tok_s DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (run_id, source_id, sample_index)
);
CREATE TABLE run_limitations (
  run_id           TEXT COLLATE "C" NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  limitation_index BIGINT NOT NULL CHECK (limitation_index >= 0),
  limitation       TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (run_id, limitation_index)
);
