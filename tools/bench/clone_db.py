#!/usr/bin/env python3
"""Grow an ingested rfdb database to ~N runs by cloning its runs in SQL (for priors/report timing).

Usage: tools/bench/clone_db.py BASE_DB OUT_DB N

Ingesting 30 000 eval dirs takes far too long for a benchmark, and priors/report only read rows,
so OUT_DB is BASE_DB (copied with the SQLite backup API) plus k - 1 clones of every run,
k = ceil(N / runs in BASE_DB). Clone c (1 … k-1) is one INSERT … SELECT per table from the
attached base:
- run-scoped tables are found from the schema, not hard-coded: a table with a `run_id` column,
  or one with a foreign key into a run-scoped table (kernel_samples → profile_rounds,
  attempt_sources → attempts, …), so a migration that adds a table or column keeps working;
- every `run_id` becomes `run_id || 'x<c>'` (still e2e_<model>_<date>_<time>_<n>_<tag>: the tag
  grows), every INTEGER PRIMARY KEY becomes `id + c × max(id)` and every foreign key into such a
  key is shifted by the same offset (sources.superseded_by, verdicts.doc_id,
  attempts.pred_verdict_id, …), so foreign keys stay consistent; a key that is itself a foreign
  key (observations.attempt_id) takes its parent's offset;
- everything else is copied as is: run dates, raw text, attempts, verdicts. A cloned run is an
  exact copy (the copy check is ingest's, not the store's), so priors see k × the observations of
  the base with the same dates.
BASE_DB must hold eval-dir runs only (knowledge files have no run and are not cloned).
`--check` runs PRAGMA foreign_key_check afterwards. Prints the number of runs.
"""

import math
import os
import sqlite3
import sys


def qi(name):
    return '"' + name.replace('"', '""') + '"'


def scoped_tables(db):
    tables = [r[0] for r in db.execute(
        "SELECT name FROM b.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]
    cols = {t: db.execute(f"PRAGMA b.table_info({qi(t)})").fetchall() for t in tables}
    fks = {t: db.execute(f"PRAGMA b.foreign_key_list({qi(t)})").fetchall() for t in tables}
    scoped = {t for t in tables if any(c[1] == "run_id" for c in cols[t])}
    grew = True
    while grew:
        grew = False
        for t in tables:
            if t not in scoped and any(fk[2] in scoped for fk in fks[t]):
                scoped.add(t)
                grew = True
    return [t for t in tables if t in scoped], cols, fks


def int_pk(cols):
    pks = [c for c in cols if c[5] > 0]
    if len(pks) == 1 and pks[0][2].upper() == "INTEGER":
        return pks[0][1]
    return None


def clone(base_path, out_path, n_runs, check=False):
    src = sqlite3.connect(base_path)
    if src.execute("SELECT count(*) FROM sources WHERE run_id IS NULL").fetchone()[0]:
        sys.exit(f"clone_db: {base_path} holds knowledge files; clone a database of eval-dir runs only")
    dst = sqlite3.connect(out_path)
    src.backup(dst)
    src.close()
    dst.isolation_level = None
    dst.execute("PRAGMA foreign_keys = OFF")  # rows of one clone arrive table by table
    dst.execute("ATTACH DATABASE ? AS b", (base_path,))
    base_runs = dst.execute("SELECT count(*) FROM b.runs").fetchone()[0]
    copies = max(1, math.ceil(n_runs / base_runs))
    tables, cols, fks = scoped_tables(dst)
    offset = {}
    for t in tables:
        pk = int_pk(cols[t])
        if pk:
            offset[t] = dst.execute(f"SELECT ifnull(max({qi(pk)}), 0) FROM b.{qi(t)}").fetchone()[0]
    for c in range(1, copies):
        dst.execute("BEGIN")
        for t in tables:
            fk_of = {fk[3]: fk[2] for fk in fks[t]}  # from column -> parent table
            names, exprs = [], []
            for col in cols[t]:
                name = col[1]
                names.append(qi(name))
                if name == "run_id":
                    exprs.append(f"{qi(name)} || 'x{c}'")
                elif fk_of.get(name) in offset:  # also a key that is its parent's (observations.attempt_id)
                    exprs.append(f"{qi(name)} + {c * offset[fk_of[name]]}")
                elif name == int_pk(cols[t]):
                    exprs.append(f"{qi(name)} + {c * offset[t]}")
                else:
                    exprs.append(qi(name))
            where = " WHERE run_id IS NOT NULL" if any(col[1] == "run_id" for col in cols[t]) else ""
            dst.execute(f"INSERT INTO main.{qi(t)} ({', '.join(names)}) "
                        f"SELECT {', '.join(exprs)} FROM b.{qi(t)}{where}")
        dst.execute("COMMIT")
    dst.execute("DETACH DATABASE b")
    if check:
        bad = dst.execute("PRAGMA foreign_key_check").fetchmany(5)
        if bad:
            sys.exit(f"clone_db: foreign key violations in {out_path}: {bad}")
    dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    runs = dst.execute("SELECT count(*) FROM runs").fetchone()[0]
    dst.close()
    return runs


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if len(args) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    base, out, n = args
    if os.path.exists(out):
        sys.exit(f"clone_db: {out} exists")
    print(clone(base, out, int(n), check="--check" in sys.argv))


if __name__ == "__main__":
    main()
