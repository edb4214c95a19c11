-- rfdb schema, version 15: the noise a run measured and the limits it stated (issue 30).
--
-- bench_samples: the per-repetition throughputs of each bench summary
-- (bench_summary.json `all_throughput`, one value per timed round of
-- bench_runs.jsonl, tok/s aggregate), in the order the file lists them; the
-- summary's median and spread (throughput_spread_pct = (max − min) / median ×
-- 100) stay on bench_summaries. run_limitations: the run's env_report.json
-- `limitations`, verbatim, in file order ("box shared with other tenants:
-- cross-session drift up to 13%"). Both are derived rows of the run: a
-- re-ingest deletes and rewrites them like bench_summaries. The playbook's
-- e2e band of a run is the wider of the fixed k_e2e_noise_pct and the run's
-- measured spread (domain::run_e2e_band_pct; docs/playbook.md, "Noise").
-- Version 14 is the run's stack (another change); this one depends on none of it.
CREATE TABLE bench_samples (
  run_id           TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  source_id        INTEGER NOT NULL REFERENCES sources(source_id), -- the bench_summary.json
  sample_index     INTEGER NOT NULL CHECK (sample_index >= 0),     -- 0-based, file order
  throughput_tok_s REAL NOT NULL,
  PRIMARY KEY (run_id, source_id, sample_index)
) STRICT;
CREATE TABLE run_limitations (
  run_id           TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  limitation_index INTEGER NOT NULL CHECK (limitation_index >= 0), -- 0-based, file order
  limitation       TEXT NOT NULL,
  PRIMARY KEY (run_id, limitation_index)
) STRICT;
