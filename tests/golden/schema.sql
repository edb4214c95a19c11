-- index attempt_sources_source
CREATE INDEX attempt_sources_source ON attempt_sources (source_id);
-- index attempts_measured
CREATE INDEX attempts_measured ON attempts (short_name, isolated_speedup)
  WHERE isolated_speedup IS NOT NULL OR e2e_delta_pct IS NOT NULL;
-- index attempts_pred_verdict
CREATE INDEX attempts_pred_verdict ON attempts (pred_verdict_id);
-- index bench_summaries_run
CREATE INDEX bench_summaries_run ON bench_summaries (run_id);
-- index kb_champions_current
CREATE UNIQUE INDEX kb_champions_current ON kb_champions (canonical_id) WHERE superseded = 0;
-- index kb_champions_session
CREATE INDEX kb_champions_session ON kb_champions (session_id);
-- index kb_records_current
CREATE UNIQUE INDEX kb_records_current ON kb_records (lane, record_key) WHERE superseded = 0;
-- index kb_records_signature
CREATE INDEX kb_records_signature ON kb_records (content_signature);
-- index kb_records_source
CREATE INDEX kb_records_source ON kb_records (source_id);
-- index kernel_samples_round
CREATE INDEX kernel_samples_round ON kernel_samples (round_id, short_name);
-- index learned_findings_identity
CREATE INDEX learned_findings_identity ON learned_findings (identity);
-- index learned_findings_source
CREATE INDEX learned_findings_source ON learned_findings (source_id);
-- index observations_run
CREATE INDEX observations_run ON observations (run_id);
-- index retraction_log_run
CREATE INDEX retraction_log_run ON retraction_log (run_id, event_id);
-- index roofline_docs_run
CREATE INDEX roofline_docs_run ON roofline_docs (run_id);
-- index run_stack_package
CREATE INDEX run_stack_package ON run_stack(package, run_id);
-- index run_tags_key
CREATE INDEX run_tags_key ON run_tags (key, value);
-- index runs_identity
CREATE INDEX runs_identity ON runs (model, gfx, backend, isl, osl, conc);
-- index sources_identity
CREATE UNIQUE INDEX sources_identity ON sources (run_id, rel_path, sha256);
-- index sources_knowledge
CREATE UNIQUE INDEX sources_knowledge ON sources (rel_path, sha256) WHERE run_id IS NULL;
-- index sources_sha256
CREATE INDEX sources_sha256 ON sources (sha256);
-- index sources_superseded_by
CREATE INDEX sources_superseded_by ON sources (superseded_by);
-- index tag_log_run
CREATE INDEX tag_log_run ON tag_log (run_id, event_id);
-- index verdicts_doc
CREATE INDEX verdicts_doc ON verdicts (doc_id);
-- index verdicts_run_current
CREATE INDEX verdicts_run_current ON verdicts (run_id, superseded);
-- index verdicts_run_kernel
CREATE INDEX verdicts_run_kernel ON verdicts (run_id, short_name);
-- table attempt_sources
CREATE TABLE attempt_sources (
  attempt_id   INTEGER NOT NULL REFERENCES attempts(attempt_id) ON DELETE CASCADE,
  source_id    INTEGER NOT NULL REFERENCES sources(source_id),
  json_pointer TEXT NOT NULL,
  PRIMARY KEY (attempt_id, source_id, json_pointer)
) STRICT;
-- table attempts
CREATE TABLE attempts (
  attempt_id            INTEGER PRIMARY KEY,
  run_id                TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  attempt_key           TEXT NOT NULL, -- short_name|backend-or-lever, the merge identity
  short_name            TEXT NOT NULL,
  candidate             TEXT,          -- overlay candidate / ledger direction / sweep trial id
  lever                 TEXT NOT NULL, -- human description of what was tried
  lever_kind            TEXT NOT NULL CHECK (lever_kind IN ('config', 'backend', 'tuning', 'authored', 'fusion', 'precision', 'other')),
  backend               TEXT,
  winner_kind           TEXT,
  op_class              TEXT NOT NULL DEFAULT 'unknown' CHECK (op_class IN ('gemm', 'moe', 'attn', 'elementwise', 'unknown')),
  regime                TEXT,
  isolated_speedup      REAL CHECK (isolated_speedup IS NULL OR isolated_speedup > 0),
  e2e_delta_pct         REAL,
  gate                  TEXT,          -- accepted | stack | rejected | incomplete | NULL
  verdict               TEXT NOT NULL CHECK (verdict IN ('confirmed', 'partial', 'dead_end', 'flagged', 'incomplete', 'unknown')),
  verdict_raw           TEXT,
  output_parity         TEXT,
  parity_kind           TEXT,
  reason                TEXT,
  round                 TEXT,          -- profile round the prediction came from
  -- prediction snapshot (NULL when no verdict existed for the kernel)
  pred_verdict_id       INTEGER REFERENCES verdicts(verdict_id),
  pred_source_kind      TEXT,
  pred_stage            TEXT,
  pred_roofline_pct     REAL,
  pred_target_eff       REAL,
  pred_attainable_speedup REAL,
  pred_expected_e2e_gain_pct REAL,
  pred_headroom_class   TEXT,
  pred_bound_type       TEXT,
  pred_confidence       TEXT,
  pred_suspect          INTEGER,
  pred_pct_gpu_time     REAL,
  -- measured post-optimization efficiency, fraction (roofline-v1 post), if any
  post_efficiency       REAL, kind TEXT NOT NULL DEFAULT 'kernel'
  CHECK (kind IN ('kernel', 'config')), candidate_short_name TEXT, task TEXT, measured INTEGER NOT NULL DEFAULT 0 CHECK (measured IN (0, 1)), deployed INTEGER NOT NULL DEFAULT 0 CHECK (deployed IN (0, 1)), post_measured INTEGER NOT NULL DEFAULT 0 CHECK (post_measured IN (0, 1)), reject_reason TEXT, validation_class TEXT NOT NULL DEFAULT 'unknown'
  CHECK (validation_class IN ('win', 'no_win', 'flagged', 'unknown')), validation_speedup REAL, pred_case_mix TEXT, profiler_hbm_undercount INTEGER NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1)), content_signature TEXT,
  UNIQUE (run_id, attempt_key)
) STRICT;
-- table bench_samples
CREATE TABLE bench_samples (
  run_id           TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  source_id        INTEGER NOT NULL REFERENCES sources(source_id), -- the bench_summary.json
  sample_index     INTEGER NOT NULL CHECK (sample_index >= 0),     -- 0-based, file order
  throughput_tok_s REAL NOT NULL,
  PRIMARY KEY (run_id, source_id, sample_index)
) STRICT;
-- table bench_summaries
CREATE TABLE bench_summaries (
  bench_id                 INTEGER PRIMARY KEY,
  run_id                   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  source_id                INTEGER NOT NULL REFERENCES sources(source_id),
  role                     TEXT NOT NULL, -- baseline | validation_base | validation_final | config | overlay_ref | overlay_cand | final | other
  label                    TEXT,          -- e.g. 'cfg2', 'cand_fused_moe_kernel'
  throughput_tok_s_median  REAL,
  throughput_spread_pct    REAL,
  ttft_ms_median           REAL,
  tpot_ms_median           REAL,
  runs_count               INTEGER,
  metric_basis             TEXT,
  measurement_mode         TEXT
) STRICT;
-- table kb_attestations
CREATE TABLE kb_attestations (
  record_id INTEGER NOT NULL REFERENCES kb_records(record_id) ON DELETE CASCADE,
  seq       INTEGER NOT NULL,
  at        TEXT,
  outcome   TEXT,
  actor     TEXT,
  evidence  TEXT,
  PRIMARY KEY (record_id, seq)
) STRICT;
-- table kb_champions
CREATE TABLE kb_champions (
  champion_id  INTEGER PRIMARY KEY,
  source_id    INTEGER NOT NULL REFERENCES sources(source_id),
  canonical_id TEXT NOT NULL,
  metric       TEXT,
  session_id   TEXT,
  value        REAL,
  superseded   INTEGER NOT NULL DEFAULT 0 CHECK (superseded IN (0, 1))
) STRICT;
-- table kb_records
CREATE TABLE kb_records (
  record_id         INTEGER PRIMARY KEY,
  source_id         INTEGER NOT NULL REFERENCES sources(source_id),
  lane              TEXT NOT NULL CHECK (lane IN ('kernel', 'e2e', 'experience')),
  record_key        TEXT NOT NULL CHECK (record_key <> ''),
  store_path        TEXT NOT NULL,  -- the record file's stored rel_path
  files_sha256      TEXT NOT NULL,
  canonical_id      TEXT,           -- most specific canonical id (kb store lanes)
  rung              INTEGER,        -- 0 = most specific
  rungs             INTEGER,        -- identity dirs holding this session
  id_order          TEXT,           -- current | old (GEAK-KB §11)
  gfx               TEXT,
  kernel_name       TEXT,
  kernel_class      TEXT,
  backend           TEXT,           -- kernel language (triton, hip, ck …)
  framework         TEXT,           -- rocm (kernel), serving stack (e2e)
  framework_version TEXT,
  model             TEXT,
  precision         TEXT,
  tp                INTEGER,
  ep                INTEGER,
  isl               INTEGER,
  osl               INTEGER,
  conc              INTEGER,
  workload_kind     TEXT,
  metric_name       TEXT,
  metric_value      REAL,
  speedup           REAL,
  throughput_tok_s  REAL,
  baseline_tok_s    REAL,
  metric_kind       TEXT,
  bench_key         TEXT,
  case_names        TEXT,
  direction         TEXT,
  techniques        TEXT,
  strategy          TEXT,
  verified_on       TEXT,
  verified_stack    TEXT,
  reproductions     INTEGER,
  lifecycle         TEXT,
  validated         INTEGER,
  retained          INTEGER,
  retired_reason    TEXT,
  retracted_at      TEXT,
  withdrawn_scores  TEXT,
  content_signature TEXT,
  signature_origin  TEXT CHECK (signature_origin IN ('stored', 'patch', 'artifact')),
  carrier           TEXT,
  apply_env         TEXT,
  apply_route       TEXT,
  recalls           INTEGER NOT NULL DEFAULT 0,
  validations       INTEGER NOT NULL DEFAULT 0,
  failures          INTEGER NOT NULL DEFAULT 0,
  not_reproduced    INTEGER NOT NULL DEFAULT 0,
  inapplicable      INTEGER NOT NULL DEFAULT 0,
  last_outcome      TEXT,
  last_at           TEXT,
  last_by           TEXT,
  retired           INTEGER NOT NULL CHECK (retired IN (0, 1)),
  retired_why       TEXT,
  extra             TEXT,           -- source_eval_dir, derived_from, apply_*, accepted_config … as JSON
  ingested_at       TEXT NOT NULL,
  superseded        INTEGER NOT NULL DEFAULT 0 CHECK (superseded IN (0, 1))
) STRICT;
-- table kernel_samples
CREATE TABLE kernel_samples (
  sample_id        INTEGER PRIMARY KEY,
  round_id         INTEGER NOT NULL REFERENCES profile_rounds(round_id) ON DELETE CASCADE,
  rank             INTEGER,
  name             TEXT NOT NULL,
  short_name       TEXT NOT NULL,
  pct_gpu_time     REAL NOT NULL CHECK (pct_gpu_time BETWEEN 0 AND 100),
  raw_pct_gpu_time REAL,
  total_ms         REAL,
  calls            INTEGER,
  avg_us           REAL,
  classification   TEXT,
  backend_guess    TEXT,
  editable         INTEGER CHECK (editable IN (0, 1)),
  phase            TEXT,
  base_latency_ms  TEXT,  -- JSON {phase: ms per launch}
  shapes           TEXT,  -- JSON
  dtypes           TEXT,  -- JSON
  json_pointer     TEXT NOT NULL) STRICT;
-- table learned_findings
CREATE TABLE learned_findings (
  finding_id      INTEGER PRIMARY KEY,
  source_id       INTEGER NOT NULL REFERENCES sources(source_id),
  origin          TEXT NOT NULL CHECK (origin IN ('card', 'playbook', 'proposal')),
  identity        TEXT NOT NULL,   -- card file name, or playbook line identity
  name            TEXT,
  key_raw         TEXT,
  kernel_class_raw TEXT,
  op_class        TEXT NOT NULL CHECK (op_class IN ('gemm', 'moe', 'attn', 'elementwise', 'method', 'unknown')),
  gfx             TEXT,
  regime          TEXT NOT NULL CHECK (regime IN ('decode', 'prefill', 'both', 'unknown')),
  regime_raw      TEXT,
  model           TEXT,
  model_class     TEXT,
  type            TEXT,
  stars           INTEGER CHECK (stars IS NULL OR stars BETWEEN 1 AND 3),
  lever           TEXT,
  apply           TEXT,
  verify          TEXT,
  cautions        TEXT,  -- JSON array
  sources_cited   TEXT,  -- JSON array of `- source:` values
  effect          TEXT,
  iso_min         REAL,
  iso_max         REAL,
  e2e_min_pct     REAL,
  e2e_max_pct     REAL,
  confirms        INTEGER,
  confirms_cited  INTEGER,
  confirms_blind  INTEGER,
  losses          INTEGER,
  attempts        INTEGER,
  lifecycle       TEXT NOT NULL DEFAULT 'active',
  last_seen       TEXT,
  text            TEXT,
  fields          TEXT,  -- JSON object of every front-matter key as read
  superseded      INTEGER NOT NULL DEFAULT 0 CHECK (superseded IN (0, 1))
, classification TEXT
  CHECK (classification IS NULL OR classification IN ('positive_measured', 'in_noise', 'negative', 'method',
                                                       'seam_fact', 'routing_note', 'archived')), classification_reason TEXT) STRICT;
-- table observations
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
, profiler_hbm_undercount INTEGER NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1))) STRICT;
-- table profile_rounds
CREATE TABLE profile_rounds (
  round_id             INTEGER PRIMARY KEY,
  run_id               TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  round                TEXT NOT NULL,  -- '0' | 'config' | 'head' | '1' | …
  round_order          INTEGER NOT NULL, -- sort key: 0 < config < head < fusion_capture < 1 < 2 …
  source_id            INTEGER NOT NULL REFERENCES sources(source_id),
  parser_source        TEXT,           -- raw `source`: torch-trace | rocprofv3 | merged | tracelens…
  total_gpu_time_ms    REAL,
  num_kernel_launches  INTEGER,
  num_distinct_kernels INTEGER,
  UNIQUE (run_id, round)
) STRICT;
-- table retraction_log
CREATE TABLE retraction_log (
  event_id INTEGER PRIMARY KEY,
  run_id   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  action   TEXT NOT NULL CHECK (action IN ('retract', 'restore')),
  reason   TEXT,           -- retract: why; restore: NULL
  at       TEXT NOT NULL   -- ISO-8601 UTC timestamp
) STRICT;
-- table retractions
CREATE TABLE retractions (
  run_id       TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  reason       TEXT NOT NULL,
  retracted_at TEXT NOT NULL
) STRICT;
-- table roofline_docs
CREATE TABLE roofline_docs (
  doc_id                   INTEGER PRIMARY KEY,
  run_id                   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  source_id                INTEGER NOT NULL REFERENCES sources(source_id),
  source_kind              TEXT NOT NULL CHECK (source_kind IN ('analytic', 'measured')),
  round                    TEXT,      -- analytic: profile round; measured: NULL
  stage                    TEXT NOT NULL CHECK (stage IN ('A', 'B', 'C')),
  phase                    TEXT,      -- measured: baseline | post
  task                     TEXT,      -- measured: path component before roofline/
  gfx                      TEXT,
  peaks                    TEXT,      -- JSON
  ranking_by_pct           TEXT,      -- JSON array of names
  ranking_by_expected_gain TEXT,      -- JSON array of names
  degraded                 TEXT,      -- JSON
  skill_errors             TEXT,      -- JSON
  superseded               INTEGER NOT NULL DEFAULT 0 CHECK (superseded IN (0, 1))
) STRICT;
-- table run_limitations
CREATE TABLE run_limitations (
  run_id           TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  limitation_index INTEGER NOT NULL CHECK (limitation_index >= 0), -- 0-based, file order
  limitation       TEXT NOT NULL,
  PRIMARY KEY (run_id, limitation_index)
) STRICT;
-- table run_stack
CREATE TABLE run_stack (
  run_id   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  package  TEXT NOT NULL CHECK (package <> ''),
  raw      TEXT NOT NULL,
  release  TEXT,
  source   TEXT NOT NULL,
  via      TEXT,
  PRIMARY KEY (run_id, package)
);
-- table run_tags
CREATE TABLE run_tags (
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) STRICT;
-- table runs
CREATE TABLE runs (
  run_id                    TEXT PRIMARY KEY,
  run_date                  TEXT,            -- YYYY-MM-DD, from the dir name or artifacts
  model                     TEXT,
  model_arch_class          TEXT,
  model_dtype               TEXT,
  gfx                       TEXT,
  device_name               TEXT,
  backend                   TEXT,            -- serving stack: vllm | sglang | …
  backend_version           TEXT,
  tp                        INTEGER,
  isl                       INTEGER,
  osl                       INTEGER,
  conc                      INTEGER,
  available_backends        TEXT,            -- JSON array
  baseline_throughput_tok_s REAL,
  final_throughput_tok_s    REAL,
  throughput_speedup        REAL,            -- × final over baseline
  validation_status         TEXT,            -- producer's raw string
  validation_class          TEXT NOT NULL DEFAULT 'unknown'
    CHECK (validation_class IN ('win', 'no_win', 'flagged', 'unknown')),
  output_parity             TEXT,
  eval_dir                  TEXT,            -- path given to ingest (informational)
  first_ingested_at         TEXT NOT NULL,
  last_ingested_at          TEXT NOT NULL
, derived_by INTEGER NOT NULL DEFAULT 0) STRICT;
-- table sources
CREATE TABLE sources (
  source_id     INTEGER PRIMARY KEY,
  run_id        TEXT REFERENCES runs(run_id) ON DELETE CASCADE, -- NULL for knowledge files
  rel_path      TEXT NOT NULL,     -- relative to the eval dir (or knowledge dir)
  kind          TEXT NOT NULL,     -- env_report | bench_summary | profile_topn | profile_roofline |
                                   -- measured_roofline | integrate_result | opbench_result |
                                   -- sweep_results | director_validation | workflow_return |
                                   -- learned_card | legacy_playbook | kb_proposal
  variant       TEXT,              -- producer variant, e.g. topN 'A' | 'B' | 'tracelens'
  bytes         INTEGER NOT NULL,
  ingested_at   TEXT NOT NULL,
  superseded_by INTEGER REFERENCES sources(source_id)
, mtime_ns INTEGER, raw_zst BLOB NOT NULL DEFAULT x'', sha256 BLOB NOT NULL DEFAULT x'') STRICT;
-- table tag_log
CREATE TABLE tag_log (
  event_id INTEGER PRIMARY KEY,
  run_id   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  action   TEXT NOT NULL CHECK (action IN ('tag', 'untag')),
  key      TEXT NOT NULL,
  value    TEXT NOT NULL, -- tag: the new value; untag: the value removed
  at       TEXT NOT NULL  -- ISO-8601 UTC timestamp
) STRICT;
-- table verdicts
CREATE TABLE verdicts (
  verdict_id            INTEGER PRIMARY KEY,
  doc_id                INTEGER NOT NULL REFERENCES roofline_docs(doc_id) ON DELETE CASCADE,
  run_id                TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  round                 TEXT,
  round_order           INTEGER,
  short_name            TEXT NOT NULL,
  name                  TEXT,
  op_class              TEXT NOT NULL CHECK (op_class IN ('gemm', 'moe', 'attn', 'elementwise', 'unknown')),
  op_class_raw          TEXT,
  regime                TEXT,
  pct_gpu_time          REAL CHECK (pct_gpu_time IS NULL OR pct_gpu_time BETWEEN 0 AND 100),
  t_ms                  REAL,
  launches_per_step     REAL,
  bytes_est             REAL,
  flops_est             REAL,
  hbm_util              REAL,
  compute_util          REAL,
  arithmetic_intensity  REAL,
  ridge_point           REAL,
  bound_type            TEXT NOT NULL CHECK (bound_type IN ('memory', 'compute', 'latency', 'unknown')),
  bound_type_raw        TEXT,
  roofline_pct          REAL,
  roofline_pct_raw      REAL,
  target_eff            REAL,
  attainable_speedup    REAL,
  expected_e2e_gain_pct REAL,
  headroom_class        TEXT NOT NULL CHECK (headroom_class IN ('underperforming', 'moderate', 'saturated', 'unknown')),
  headroom_class_raw    TEXT,
  stage                 TEXT NOT NULL CHECK (stage IN ('A', 'B', 'C')),
  source_kind           TEXT NOT NULL CHECK (source_kind IN ('analytic', 'measured')),
  confidence            TEXT NOT NULL CHECK (confidence IN ('low', 'medium', 'high')),
  suspect               INTEGER NOT NULL DEFAULT 0 CHECK (suspect IN (0, 1)),
  dispatch_bound        INTEGER NOT NULL DEFAULT 0 CHECK (dispatch_bound IN (0, 1)),
  modeled               INTEGER CHECK (modeled IN (0, 1)),
  phase                 TEXT,   -- measured: baseline | post
  case_id               TEXT,   -- measured: dominant case
  observed_limit        TEXT,   -- measured: roofline-v1 classification.observed_limit
  headroom_ratio        REAL,   -- measured: × ceiling / performance
  roofline_efficiency_pct REAL, -- measured: percent 0–100+
  byte_reduction_levers TEXT,   -- JSON array
  superseded            INTEGER NOT NULL DEFAULT 0 CHECK (superseded IN (0, 1)),
  json_pointer          TEXT NOT NULL, guidance TEXT, disputed INTEGER NOT NULL DEFAULT 0 CHECK (disputed IN (0, 1)), case_mix TEXT, profiler_version TEXT, profiler_hbm_undercount INTEGER NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1))) STRICT;
-- table zstd_dicts
CREATE TABLE zstd_dicts (
  dict_id       INTEGER PRIMARY KEY, -- zstd's dictionary id, as frames record it (≥ 32768)
  dict          BLOB NOT NULL,
  trained_files INTEGER NOT NULL,    -- stored files (max source_id) when it was trained
  samples       INTEGER NOT NULL,    -- stored files it was trained on
  trained_at    TEXT NOT NULL       -- ISO-8601 UTC
) STRICT;
-- view active_runs
CREATE VIEW active_runs AS
SELECT r.*
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions);
-- view attempt_outcomes
CREATE VIEW attempt_outcomes AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, a.*
FROM attempts a
JOIN active_runs r ON r.run_id = a.run_id;
-- view current_verdicts
CREATE VIEW current_verdicts AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, v.*
FROM verdicts v
JOIN active_runs r ON r.run_id = v.run_id
WHERE v.superseded = 0;
