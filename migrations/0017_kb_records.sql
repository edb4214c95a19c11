-- rfdb schema, version 17: GEAK kb records (issue 31, docs/kb.md).
--
-- kb_records: one row per GEAK kb record read by `rfdb ingest` from a kb
-- store root (a kernel or e2e session, its most specific rung) or a
-- kb_artifacts tree (an experience). `lane` is kernel | e2e | experience;
-- `record_key` the session id or exp id. A record is read from its file
-- version `source_id` (knowledge.json, meta.yaml or meta.json, stored in
-- `sources` like a knowledge file); `files_sha256` is the SHA-256 over the
-- record's files (path and sha256 of each), so a re-ingest of the same files
-- changes nothing and a rewritten session supersedes its previous row
-- (`superseded` = 1; one current row per lane and key). Identity columns are
-- as GEAK folded them; metric: `metric_name` (speedup | throughput_tok_s),
-- `metric_value` (× or tokens/s), `speedup` (isolated × for the kernel
-- lanes, throughput ratio for e2e), throughput and baseline in tokens/s.
-- JSON columns (`techniques`, `verified_stack`, `case_names`,
-- `withdrawn_scores`, `extra`) are text. Ledger counters read defensively
-- (non-integers read 0); `retired` / `retired_why` is the record's own
-- retirement (`retained` false or a retired_reason) or the ledger's
-- (domain/kb_ledger.hpp, GEAK-KB §4.3).
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
CREATE UNIQUE INDEX kb_records_current ON kb_records (lane, record_key) WHERE superseded = 0;
CREATE INDEX kb_records_signature ON kb_records (content_signature);
CREATE INDEX kb_records_source ON kb_records (source_id);

-- kb_attestations: the record's attestation history, oldest first (`seq`
-- from 0); `evidence` the entry's other keys as JSON.
CREATE TABLE kb_attestations (
  record_id INTEGER NOT NULL REFERENCES kb_records(record_id) ON DELETE CASCADE,
  seq       INTEGER NOT NULL,
  at        TEXT,
  outcome   TEXT,
  actor     TEXT,
  evidence  TEXT,
  PRIMARY KEY (record_id, seq)
) STRICT;

-- kb_champions: each identity dir's champion.json (its canonical id, the
-- metric, the session id and the score at promotion); a rewritten file
-- supersedes its previous row.
CREATE TABLE kb_champions (
  champion_id  INTEGER PRIMARY KEY,
  source_id    INTEGER NOT NULL REFERENCES sources(source_id),
  canonical_id TEXT NOT NULL,
  metric       TEXT,
  session_id   TEXT,
  value        REAL,
  superseded   INTEGER NOT NULL DEFAULT 0 CHECK (superseded IN (0, 1))
) STRICT;
CREATE UNIQUE INDEX kb_champions_current ON kb_champions (canonical_id) WHERE superseded = 0;
CREATE INDEX kb_champions_session ON kb_champions (session_id);
