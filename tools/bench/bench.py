#!/usr/bin/env python3
"""Issue 12 benchmark ("Fast at any size"): every figure of the targets, measured in one run.

Usage (from the repository root, after `cmake --preset release && cmake --build --preset release`):
  tools/bench/bench.py                                  # 1000 / 4000 runs ingested, 10k / 30k cloned
  tools/bench/bench.py --runs 1000 --rss-runs 4000 --big 10000,30000 --work /tmp/rfdb_bench
  tools/bench/bench.py --smoke                          # seconds; what CI runs (no figure judged)
  tools/bench/bench.py --base-db DB --big 10000,30000   # step 4 only, cloned from an ingested DB

Steps (tools/bench/README.md has the details):
 1. corpora of N and M eval dirs (make_corpus.py), reused when WORK/corpus_<N> is complete;
 2. at N runs, `--repeat` rounds of, interleaved: the `cat` floor
    (find DIR -type f -name '*.json' -exec cat {} + > /dev/null), reference_ingest.py into a fresh
    DB, and `rfdb ingest DIR` into a fresh DB; medians of wall and child CPU (user + sys, wait4);
    then `rfdb ingest` of the same DIR again (re-ingest, nothing new), DB size / JSON size,
    `rfdb check`;
 3. `rfdb ingest` of the M-run corpus into a fresh DB: peak RSS (child ru_maxrss) vs N runs;
 4. for each big size: the N-run database CLONED in SQL (clone_db.py, k copies of every run
    with new run ids) to ~size runs, then `rfdb priors --by class`, `--by class,gfx,regime`
    and `rfdb report -o FILE`: wall and peak RSS (median of `--repeat`).
Prints a table with each ratio next to its target (PASS / MISS). Exit 0 when the benchmark ran
(a missed target is not an error), 1 when a step failed (an ingest that did not add every run,
`rfdb check` not ok), 2 on usage errors.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in tools/bench
import clone_db  # noqa: E402  (tools/bench/clone_db.py)


class Measured:
    def __init__(self, wall, cpu, rss_kb, rc):
        self.wall, self.cpu, self.rss_kb, self.rc = wall, cpu, rss_kb, rc


def measure(argv, out_path=None, env=None):
    """Run argv; wall (monotonic), CPU (user+sys) and maxrss of the child (and what it waited for).

    The child is started by posix_spawn (glibc: a vfork-style clone), not
    fork: a forked child is charged for copying this process before its exec,
    and its maxrss is this process's until then. After the ingest section this
    script had grown to 54 MiB (see _COUNT_STATUSES): fork added ~0.08 s of
    CPU to a 0.33 s report and every command showed 54 MiB. With posix_spawn
    the child still records this process's high-water RSS at its exec, so
    keep this process small.
    """
    out = os.open(out_path if out_path else os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        t0 = time.monotonic()
        pid = os.posix_spawnp(argv[0], argv, os.environ if env is None else env,
                              file_actions=[(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, out, 2)])
        _pid, status, ru = os.wait4(pid, 0)
        wall = time.monotonic() - t0
    finally:
        os.close(out)
    return Measured(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status))


def median_of(ms):
    return Measured(statistics.median(m.wall for m in ms), statistics.median(m.cpu for m in ms),
                    max(m.rss_kb for m in ms), max(m.rc for m in ms))


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def fail(msg, path=None):
    if path and os.path.exists(path):
        with open(path, errors="replace") as f:
            tail = f.read()[-2000:]
        msg += f"\n--- {path} (tail) ---\n{tail}"
    log("error: " + msg)
    sys.exit(1)


def rm(path):
    for p in (path, path + "-wal", path + "-shm", path + "-journal"):
        if os.path.exists(p):
            os.remove(p)


def db_bytes(path):
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def json_bytes(corpus):
    n = size = 0
    for root, _d, names in os.walk(corpus):
        for name in names:
            if name.endswith(".json"):
                n += 1
                size += os.path.getsize(os.path.join(root, name))
    return n, size


def corpus(args, runs):
    """CORPUS_DIR/corpus_<runs>_s<seed>, reused when complete and built by this make_corpus.py."""
    name = f"corpus_{runs}_s{args.seed}" + (f"_c{args.conc_variants}" if args.conc_variants > 1 else "")
    path = os.path.join(args.corpus_dir, name)
    done = os.path.join(args.corpus_dir, f".{name}.done")
    with open(os.path.join(HERE, "make_corpus.py"), "rb") as f:
        stamp = hashlib.sha256(f.read()).hexdigest()  # a changed builder invalidates old corpora
    if os.path.isdir(path) and os.path.exists(done) and open(done).read() == stamp:
        log(f"reusing {path}")
        return path
    if os.path.exists(path):
        shutil.rmtree(path)
    log(f"building {runs}-run corpus in {path}")
    subprocess.run([sys.executable, os.path.join(HERE, "make_corpus.py"), path, "--runs", str(runs),
                    "--seed", str(args.seed), "--conc-variants", str(args.conc_variants)], check=True)
    with open(done, "w") as f:
        f.write(stamp)
    return path


def rfdb(args, db, *cmd):
    return [args.rfdb, "--db", db, *cmd]


# ingest_statuses' parse, run in a child: at 4000 runs the JSON's objects
# take ~35 MiB, and this process's high-water RSS is what every command
# started later reports as its own peak at least (the exec of a spawned child
# records the memory it shared).
_COUNT_STATUSES = r"""
import json, sys
with open(sys.argv[1], errors="replace") as f:
    text = "".join(line for line in f if not line.startswith("rfdb: "))
try:
    doc = json.loads(text)
except ValueError:
    doc = {}
counts = {}
for path in doc.get("paths", []):
    counts[path.get("status")] = counts.get(path.get("status"), 0) + 1
print(json.dumps(counts))
"""


def ingest_statuses(out_path):
    """Per-status run counts of an `rfdb ingest --format json` (stderr lines interleaved)."""
    out = subprocess.run([sys.executable, "-c", _COUNT_STATUSES, out_path], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def check_db(args, db, label):
    out = os.path.join(args.work, f"check_{label}.txt")
    m = measure(rfdb(args, db, "check"), out)
    if m.rc != 0:
        fail(f"rfdb check of the {label} database failed (exit {m.rc})", out)
    return m


def ingest_round(args, corp, label):
    """One fresh `rfdb ingest` of the whole corpus; every run must be added."""
    db = os.path.join(args.work, f"rfdb_{label}.sqlite")
    rm(db)
    out = os.path.join(args.work, f"ingest_{label}.txt")
    m = measure(rfdb(args, db, "ingest", "-q", "--format", "json", corp), out)
    st = ingest_statuses(out)
    if m.rc != 0 or st.get("added", 0) != args_runs(corp):
        fail(f"rfdb ingest {corp}: exit {m.rc}, statuses {st}", out)
    return db, m


def args_runs(corp):
    return sum(1 for n in os.listdir(corp) if n.startswith("e2e_"))


def ingest_section(args, rows):
    corp = corpus(args, args.runs)
    n_json, size_json = json_bytes(corp)
    log(f"{args.runs} runs: {n_json} JSON files, {size_json / 1e6:.1f} MB")
    cats, pys, rfs, floors = [], [], [], []
    py_db = os.path.join(args.work, "reference.sqlite")
    for r in range(args.repeat):
        log(f"round {r + 1}/{args.repeat}: cat floor, reference_ingest.py, rfdb ingest, rfdb_floor")
        cats.append(measure(["find", corp, "-type", "f", "-name", "*.json", "-exec", "cat", "{}", "+"]))
        rm(py_db)
        pys.append(measure([sys.executable, os.path.join(HERE, "reference_ingest.py"), py_db, corp],
                           os.path.join(args.work, "reference_ingest.txt")))
        if pys[-1].rc != 0:
            fail("reference_ingest.py failed", os.path.join(args.work, "reference_ingest.txt"))
        db, m = ingest_round(args, corp, f"{args.runs}")
        rfs.append(m)
        floor = floor_cpu(args, corp)
        if floor is not None:
            floors.append(floor)
    cat, py, rf = median_of(cats), median_of(pys), median_of(rfs)
    out = os.path.join(args.work, "reingest.txt")
    re_m = measure(rfdb(args, db, "ingest", "-q", "--format", "json", corp), out)
    st = ingest_statuses(out)
    if re_m.rc != 0 or st.get("unchanged", 0) != args.runs:
        fail(f"re-ingest: exit {re_m.rc}, statuses {st}", out)
    check_db(args, db, f"{args.runs}")
    size_db = db_bytes(db)
    n = args.runs
    rows.append(("corpus", f"{n} runs, {n_json} JSON files, {size_json / 1e6:.1f} MB, "
                 f"{args.conc_variants} identity(ies) per template", "", ""))
    rows.append(("cat floor (find … -exec cat {} +)", f"wall {cat.wall:.2f} s, CPU {cat.cpu:.2f} s", "", ""))
    rows.append(("reference_ingest.py", f"wall {py.wall:.2f} s, CPU {py.cpu:.2f} s, RSS {py.rss_kb / 1024:.0f} MiB",
                 "", ""))
    rows.append(("rfdb ingest", f"wall {rf.wall:.2f} s, CPU {rf.cpu:.2f} s, RSS {rf.rss_kb / 1024:.1f} MiB", "", ""))
    floor = sorted(floors)[len(floors) // 2] if floors else None
    if floor:
        rows.append(("CPU floor: read + sha256 + parse + zstd (rfdb_floor)",
                     f"{floor:.2f} s = {floor / py.cpu:.3f} x Python CPU, no database written", "", ""))
    rows.append(judge("rfdb CPU / Python CPU", rf.cpu / py.cpu, 1 / 3, "x"))
    rows.append(judge("rfdb wall / cat wall", rf.wall / cat.wall, 3.0, "x"))
    rows.append(judge(f"re-ingest wall per 1000 runs ({re_m.wall:.2f} s, CPU {re_m.cpu:.2f} s)",
                      re_m.wall * 1000 / n, 0.3, "s"))
    rows.append(judge(f"DB size / JSON ({size_db / 1e6:.1f} MB / {size_json / 1e6:.1f} MB)",
                      size_db / size_json, 0.5, "x"))
    return db, rf


def floor_cpu(args, corp):
    """The CPU seconds of rfdb_floor's full pass over the corpus (read, sha256, parse and zstd of every
    *.json, no database); None when rfdb_floor is not built beside the rfdb binary."""
    exe = os.path.join(os.path.dirname(os.path.abspath(args.rfdb)), "rfdb_floor")
    if not os.access(exe, os.X_OK):
        return None
    out = subprocess.run([exe, corp], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"rfdb_floor failed: {out.stderr.strip()}")
    return float(dict(line.split() for line in out.stdout.splitlines())["+zstd"])


def rss_section(args, rows, rf_small):
    corp = corpus(args, args.rss_runs)
    log(f"rfdb ingest of {args.rss_runs} runs (peak RSS)")
    db, m = ingest_round(args, corp, f"{args.rss_runs}")
    rows.append((f"rfdb ingest, {args.rss_runs} runs",
                 f"wall {m.wall:.2f} s, CPU {m.cpu:.2f} s ({m.cpu * 1000 / args.rss_runs:.2f} s per 1000 runs)", "", ""))
    rows.append(judge(f"peak RSS {args.rss_runs} / {args.runs} runs ({m.rss_kb / 1024:.1f} / "
                      f"{rf_small.rss_kb / 1024:.1f} MiB)", m.rss_kb / rf_small.rss_kb, 1.10, "x"))
    rm(db)


def query_section(args, rows, base_db):
    for size in args.big:
        db = os.path.join(args.work, f"cloned_{size}.sqlite")
        rm(db)
        log(f"cloning {base_db} to ~{size} runs in SQL")
        t0 = time.monotonic()
        runs = clone_db.clone(base_db, db, size, check=args.smoke)
        rows.append((f"{runs} runs, CLONED in SQL", f"{db_bytes(db) / 1e6:.0f} MB, built in "
                     f"{time.monotonic() - t0:.1f} s from the {args.runs}-run DB", "", ""))
        if args.smoke:
            check_db(args, db, f"cloned_{size}")
        limit = 0.2 if size <= 10000 else 0.6
        for label, cmd in (("priors --by class", ["priors", "--by", "class", "--format", "json"]),
                           ("priors --by class,gfx,regime", ["priors", "--by", "class,gfx,regime", "--format", "json"]),
                           ("report", ["report", "-o", os.path.join(args.work, f"playbook_{size}.md")])):
            out = os.path.join(args.work, f"{label.split()[0]}_{size}.txt")
            ms = [measure(rfdb(args, db, *cmd), out) for _ in range(args.repeat)]
            m = median_of(ms)
            if m.rc != 0:
                fail(f"rfdb {label} on {runs} runs: exit {m.rc}", out)
            rows.append(judge(f"{label} @ {runs} runs: wall (CPU {m.cpu:.2f} s)", m.wall, limit, "s"))
            rows.append(judge(f"{label} @ {runs} runs: peak RSS", m.rss_kb / 1024, 100, "MiB"))
        if not args.keep:
            rm(db)


def judge(label, value, target, unit):
    return (label, f"{value:.3f} {unit}" if unit != "MiB" else f"{value:.1f} {unit}",
            f"<= {target:.3g} {unit}", "PASS" if value <= target else "MISS")


def machine():
    model = ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next((ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")), "")
    except OSError:
        pass
    mem = ""
    with open("/proc/meminfo") as f:
        kb = int(f.readline().split()[1])
        mem = f"{kb / 1024 / 1024:.1f} GiB RAM"
    return f"{os.cpu_count()} CPUs ({model}), {mem}, {platform.system()} {platform.release()}, " \
           f"load {os.getloadavg()[0]:.1f}"


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--rfdb", default=os.path.join(ROOT, "build", "release", "rfdb"), help="the rfdb binary")
    ap.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "rfdb_bench"),
                    help="databases and outputs (default $TMPDIR/rfdb_bench)")
    ap.add_argument("--corpus-dir", help="where corpora are built and reused (default WORK; tmpfs is faster to clean)")
    ap.add_argument("--runs", type=int, default=1000, help="the ingest comparison size (default 1000)")
    ap.add_argument("--rss-runs", type=int, default=4000, help="second ingest size for peak RSS (default 4000)")
    ap.add_argument("--big", default="10000,30000", help="cloned database sizes for priors/report")
    ap.add_argument("--repeat", type=int, default=3, help="rounds at --runs and per query; medians (default 3)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--conc-variants", type=int, default=1,
                    help="run identities per template (make_corpus.py; default 1: every copy of a template "
                         "has its identity, the copy check's worst case)")
    ap.add_argument("--keep", action="store_true", help="keep the cloned databases")
    ap.add_argument("--base-db", help="only the priors/report section, cloned from this ingested database "
                                      "(eval-dir runs only, current schema) instead of a fresh --runs ingest")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny sizes (8 / 16 runs, 64 / 96 cloned, 1 round) for CI; also runs rfdb check on clones")
    args = ap.parse_args()
    if args.smoke:
        args.runs, args.rss_runs, args.big, args.repeat = 8, 16, "64,96", 1
    args.big = [int(x) for x in args.big.split(",") if x]
    if min([args.runs, args.rss_runs, args.repeat] + args.big) < 1:
        ap.error("sizes and --repeat must be >= 1")
    if not os.access(args.rfdb, os.X_OK):
        ap.error(f"no rfdb binary at {args.rfdb} (build it, or pass --rfdb)")
    args.corpus_dir = args.corpus_dir or args.work
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.corpus_dir, exist_ok=True)
    return args


def main():
    args = parse_args()
    t0 = time.monotonic()
    rows = []
    if args.base_db:
        base_db = args.base_db
        args.runs = clone_db.sqlite3.connect(base_db).execute("SELECT count(*) FROM runs").fetchone()[0]
    else:
        base_db, rf = ingest_section(args, rows)
        rss_section(args, rows, rf)
    query_section(args, rows, base_db)
    ver = subprocess.run([args.rfdb, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"rfdb benchmark (tracker issue 12){' --smoke: sizes too small to judge' if args.smoke else ''}")
    print(f"machine: {machine()}")
    print(f"binary:  {args.rfdb} ({ver}); work {args.work}, corpora {args.corpus_dir}; "
          f"medians of {args.repeat}; total {time.monotonic() - t0:.0f} s")
    w = max(len(r[0]) for r in rows)
    v = max([len(r[1]) for r in rows if r[3]] or [0])
    for label, value, target, verdict in rows:
        verdict = "-" if args.smoke and verdict else verdict
        print(f"  {label:<{w}}  {value:<{v}}  {target:<12} {verdict}".rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
