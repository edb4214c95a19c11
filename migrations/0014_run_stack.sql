-- rfdb schema, version 14: the stack of a run (issue 30).
--
-- run_stack: one row per (run, package) for the versions a run's files
-- state: the backend under its own name (vllm, sglang …, from
-- env_report.json backend_version), torch, aiter, triton, flydsl and any
-- other `<package> <version>` line of env_info.txt, rocm (from torch's or the
-- backend's local version, `+rocm7.1.2` / `.rocm712`, else a rocprof-compute
-- install path `/opt/rocm-X.Y.Z/…`; `via` says which), and rocprof-compute
-- (a roofline-v1 document's tool_version, else the tool's path). `raw` is
-- the string as recorded; `release` its PEP 440 release part ("0.26.1",
-- domain/version.hpp), NULL when raw is not a version (a path); `source`
-- the file's rel_path. A package no file states has no row. Derived rows:
-- re-ingest replaces them with the run's other derived rows.
CREATE TABLE run_stack (
  run_id   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  package  TEXT NOT NULL CHECK (package <> ''),
  raw      TEXT NOT NULL,
  release  TEXT,
  source   TEXT NOT NULL,
  via      TEXT,
  PRIMARY KEY (run_id, package)
);
CREATE INDEX run_stack_package ON run_stack(package, run_id);
