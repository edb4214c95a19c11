#!/usr/bin/env python3
"""Reference ingester: what a straightforward Python tool does with the same eval dirs.

Usage: tools/bench/reference_ingest.py DB EVAL_DIR_OR_PARENT...

The yardstick of tracker issue 12 ("Fast at any size"): stdlib json + sqlite3, not optimized.
For each eval dir, in one transaction: read every *.json file (`//` comment lines dropped before
parsing, *.bak never matched), sha256 it and skip a (run, path, sha256) already stored, parse it,
and store
- runs:     one row per eval dir from env_report.json (model, gfx, backend, isl/osl/conc);
- sources:  one row per stored file version with its raw text;
- kernels:  one row per profile/round_<R>/profile_topN.json top_kernels entry;
- attempts: one row per overlay/*/integrate_result.json (isolated speedup, e2e delta, gate).
A re-run over the same dirs stores nothing new. Prints one line per run to stderr only on errors.
"""

import hashlib
import json
import os
import re
import sqlite3
import sys

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, model TEXT, gfx TEXT, backend TEXT,
  isl INTEGER, osl INTEGER, conc INTEGER, run_date TEXT);
CREATE TABLE IF NOT EXISTS sources (
  source_id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs(run_id),
  rel_path TEXT NOT NULL, sha256 TEXT NOT NULL, raw TEXT NOT NULL,
  UNIQUE (run_id, rel_path, sha256));
CREATE TABLE IF NOT EXISTS kernels (
  run_id TEXT NOT NULL REFERENCES runs(run_id), source_id INTEGER REFERENCES sources(source_id),
  round INTEGER, rank INTEGER, short_name TEXT, name TEXT, pct_gpu_time REAL,
  total_ms REAL, calls INTEGER, classification TEXT, editable INTEGER);
CREATE TABLE IF NOT EXISTS attempts (
  run_id TEXT NOT NULL REFERENCES runs(run_id), source_id INTEGER REFERENCES sources(source_id),
  candidate TEXT, short_name TEXT, isolated_speedup REAL, e2e_delta_pct REAL,
  pct_gpu_time REAL, gate TEXT, output_parity TEXT, reason TEXT);
"""

ROUND_RE = re.compile(r"^profile/round_(\d+)/profile_topN\.json$")
INTEGRATE_RE = re.compile(r"^overlay/([^/]+)/integrate_result\.json$")
EVAL_RE = re.compile(r"^e2e_.+_(\d{4})(\d{2})(\d{2})_\d{6}_")


def num(v):
    """Numbers may be stated as strings ("1.028", "+19.45")."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def parse(text):
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return json.loads("\n".join(lines))


def eval_dirs(args):
    for a in args:
        a = a.rstrip("/")
        if os.path.isfile(os.path.join(a, "env_report.json")) or EVAL_RE.match(os.path.basename(a)):
            yield a
        else:
            for name in sorted(os.listdir(a)):
                if os.path.isdir(os.path.join(a, name)):
                    yield os.path.join(a, name)


def json_files(run_dir):
    for root, _dirs, names in os.walk(run_dir):
        for n in names:
            if n.endswith(".json"):
                full = os.path.join(root, n)
                yield os.path.relpath(full, run_dir).replace(os.sep, "/"), full


def ingest_run(db, run_dir):
    run_id = os.path.basename(run_dir)
    parsed = {}
    for rel, full in sorted(json_files(run_dir)):
        with open(full, encoding="utf-8") as f:
            text = f.read()
        parsed[rel] = (hashlib.sha256(text.encode("utf-8")).hexdigest(), text, parse(text))
    env = parsed["env_report.json"][2]
    wl = env.get("workload") or parsed.get("workflow_return.json", (0, 0, {}))[2].get("workload") or {}
    m = EVAL_RE.match(run_id)
    date = f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else None
    added = 0
    with db:  # one transaction per run
        db.execute("INSERT OR IGNORE INTO runs VALUES (?,?,?,?,?,?,?,?)",
                   (run_id, env.get("model"), env.get("gfx"), env.get("backend"),
                    wl.get("isl"), wl.get("osl"), wl.get("conc"), date))
        for rel, (sha, text, doc) in parsed.items():
            if db.execute("SELECT 1 FROM sources WHERE run_id=? AND rel_path=? AND sha256=?",
                          (run_id, rel, sha)).fetchone():
                continue
            sid = db.execute("INSERT INTO sources (run_id, rel_path, sha256, raw) VALUES (?,?,?,?)",
                             (run_id, rel, sha, text)).lastrowid
            added += 1
            r = ROUND_RE.match(rel)
            if r and isinstance(doc, dict):
                for k in doc.get("top_kernels") or doc.get("kernels") or []:
                    db.execute("INSERT INTO kernels VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                               (run_id, sid, int(r.group(1)), k.get("rank"), k.get("short_name"),
                                k.get("name"), num(k.get("pct_gpu_time")), num(k.get("total_ms")),
                                k.get("calls"), k.get("classification"), int(bool(k.get("editable")))))
            c = INTEGRATE_RE.match(rel)
            if c and isinstance(doc, dict):
                db.execute("INSERT INTO attempts VALUES (?,?,?,?,?,?,?,?,?,?)",
                           (run_id, sid, c.group(1), doc.get("short_name"), num(doc.get("isolated_speedup")),
                            num(doc.get("e2e_delta_pct")), num(doc.get("pct_gpu_time")), doc.get("gate"),
                            doc.get("output_parity"), doc.get("reason")))
    return added


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    db = sqlite3.connect(sys.argv[1])
    db.execute("PRAGMA foreign_keys = ON")
    db.executescript(SCHEMA)
    for d in eval_dirs(sys.argv[2:]):
        ingest_run(db, d)
    db.close()


if __name__ == "__main__":
    main()
