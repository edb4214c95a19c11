#!/usr/bin/env python3
"""Build a benchmark corpus: N distinct eval dirs cloned from the realistic runs in tests/fixtures.

Usage: tools/bench/make_corpus.py OUT_DIR --runs N [--templates DIR ...] [--seed S]

Run i is a copy of template i mod T (T = the eval dirs under the template dirs, by default the four
GEAK dev runs in tests/fixtures/dev-runs), with:
- a new run id e2e_<model>_<YYYYmmdd_HHMMSS>_<i>_<tag>, dates spread evenly over the two years
  ending 2026-08-31, every mention of the old id rewritten (task_dir, accepted_overlay, ...);
- every isolated speedup scaled as s' = 1 + (s - 1) * f, 4 decimals, with one f in [0.6, 1.5] per
  copy, applied by value in every file that states it (integrate_result, opbench_result, ledger
  rows, accepted lists, kernel_journey), so the files of one run still agree with each other and
  `rfdb check` holds. The f of the copies of one template are distinct steps of 0.9 / K (K copies
  of that template, permuted so f does not follow the date), so two copies differ in some measured
  isolated speedup by more than rfdb's copy-check precision (1e-4) while K <= ~5000 per template;
- every measured e2e delta shifted by m * 0.001 percentage points, m the copy's index among the
  copies sharing its run identity (0, 1, 2, ...), by value in every file that states it
  (integrate_result, ledger rows, accepted lists, kernel_journey; 0, the orchestrator's "not
  measured", stays 0). rfdb refuses a run that shares any measured kernel attempt (same kernel,
  isolated speedup to 4 decimals and e2e delta to 3) with a stored run of its identity as a
  partial copy; a kernel whose s - 1 is small keeps one scaled speedup over many copies, so the
  distinct e2e delta of each copy is what keeps its attempts its own (up to +1 pp at 1000 copies
  per identity).

With --conc-variants K > 1, copy k of a template also gets the k mod K-th concurrency of
CONCS (64, 32, 128, 16, ...) in its workload (env_report.json, workflow_return.json): K run
identities (model, gfx, backend, isl, osl, conc) per template instead of one, so the copy check
compares each run against ~copies / K stored runs instead of all copies of its template.

Everything else is byte-for-byte the template: `//` comment lines, string-numbers ("1.028"),
non-JSON files (md, jsonl, txt, logs). `*.bak` files are skipped. Python 3 stdlib only.
"""

import argparse
import datetime as dt
import hashlib
import math
import os
import re
import sys

# Keys whose value is an isolated speedup, in any file of a run (number or numeric string).
SPEEDUP_RE = re.compile(
    r'("(?:isolated_speedup|isolated|micro_speedup)"\s*:\s*)(")?(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(")?')
# Keys whose value is a measured e2e delta in percent (number or numeric string, "+19.45" too).
E2E_RE = re.compile(r'("(?:e2e_delta_pct|e2e_gain_pct)"\s*:\s*)(")?([-+]?\d+(?:\.\d+)?)(")?')
DATE_RE = re.compile(r"^(e2e_.+?)_(\d{8})_(\d{6})_")
CONC_RE = re.compile(r'("conc"\s*:\s*)(\d+)')
CONCS = [64, 32, 128, 16, 256, 8, 512, 4, 1024, 2, 1, 48, 96, 192, 24, 384]
LAST_DAY = dt.date(2026, 8, 31)
SPAN_DAYS = 730


def find_templates(dirs):
    out = []
    for d in dirs:
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if os.path.isdir(path) and DATE_RE.match(name):
                out.append(path)
    if not out:
        sys.exit(f"make_corpus: no eval dirs (e2e_<model>_<date>_<time>_...) under {dirs}")
    return out


def load_template(path):
    """Return (basename, model prefix, [(rel_path, bytes)]) for one eval dir, *.bak skipped."""
    base = os.path.basename(path.rstrip("/"))
    prefix = DATE_RE.match(base).group(1)
    files = []
    for root, _dirs, names in os.walk(path):
        for n in names:
            if n.endswith(".bak"):
                continue
            full = os.path.join(root, n)
            with open(full, "rb") as f:
                files.append((os.path.relpath(full, path), f.read()))
    files.sort()
    return base, prefix, files


def copy_factor(k, copies):
    """f for copy k of a template with `copies` copies: distinct steps over [0.6, 1.5], permuted."""
    if copies <= 1:
        return 1.0
    # A multiplier coprime to `copies` near copies/phi spreads consecutive copies over the range.
    step = max(1, int(copies / 1.618033988749895))
    while math.gcd(step, copies) != 1:
        step += 1
    j = (k * step) % copies
    return 0.6 + 0.9 * j / (copies - 1)


def scale_speedups(text, f):
    def repl(m):
        s = float(m.group(3))
        if s <= 0.0 or s == 1.0 or f == 1.0:  # 0 / 0 ledger rows: not measured
            return m.group(0)
        v = f"{1.0 + (s - 1.0) * f:.4f}"
        q1, q2 = m.group(2) or "", m.group(4) or ""
        return f"{m.group(1)}{q1}{v}{q2}"

    return SPEEDUP_RE.sub(repl, text)


def shift_e2e(text, m):
    """Every measured e2e delta + m * 0.001 pp (at least 3 decimals); 0 (not measured) kept."""
    def repl(match):
        raw = match.group(3)
        v = float(raw)
        if v == 0.0 or m == 0:
            return match.group(0)
        decimals = max(3, len(raw.split(".")[1]) if "." in raw else 0)
        out = f"{v + m * 0.001:.{decimals}f}"
        if raw.startswith("+") and not out.startswith("-"):
            out = "+" + out
        q1, q2 = match.group(2) or "", match.group(4) or ""
        return f"{match.group(1)}{q1}{out}{q2}"

    return E2E_RE.sub(repl, text)


def run_name(prefix, i, total, seed):
    offset = 0 if total <= 1 else i * SPAN_DAYS // (total - 1)
    day = LAST_DAY - dt.timedelta(days=SPAN_DAYS - offset)
    h = int.from_bytes(hashlib.sha256(f"{seed}:{i}".encode()).digest()[:8], "big")
    secs = h % 86400
    tag = format(h >> 20, "x")[:4]
    return f"{prefix}_{day:%Y%m%d}_{secs // 3600:02d}{secs // 60 % 60:02d}{secs % 60:02d}_{i}_{tag}"


def build(out_dir, runs, template_dirs, seed, conc_variants=1):
    templates = [load_template(p) for p in find_templates(template_dirs)]
    t_count = len(templates)
    os.makedirs(out_dir, exist_ok=True)
    n_files = n_bytes = 0
    for i in range(runs):
        base, prefix, files = templates[i % t_count]
        copies = (runs - (i % t_count) + t_count - 1) // t_count
        f = copy_factor(i // t_count, copies)
        name = run_name(prefix, i, runs, seed)
        old, new = base.encode(), name.encode()
        conc = CONCS[(i // t_count) % conc_variants] if conc_variants > 1 else None
        m = (i // t_count) // conc_variants  # index among the copies sharing this run identity
        for rel, data in files:
            data = data.replace(old, new)
            if rel.endswith(".json"):
                text = shift_e2e(scale_speedups(data.decode("utf-8"), f), m)
                if conc is not None and rel in ("env_report.json", "workflow_return.json"):
                    text = CONC_RE.sub(lambda m: f"{m.group(1)}{conc}", text)
                data = text.encode("utf-8")
            dest = os.path.join(out_dir, name, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as fh:
                fh.write(data)
            if rel.endswith(".json"):
                n_files += 1
                n_bytes += len(data)
    return n_files, n_bytes


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("-n", "--runs", type=int, default=100)
    ap.add_argument("--templates", action="append",
                    help="a dir holding template eval dirs (repeatable; default tests/fixtures/dev-runs)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--conc-variants", type=int, default=1, choices=range(1, len(CONCS) + 1), metavar="K",
                    help=f"run identities per template, by concurrency (1..{len(CONCS)}; default 1)")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    if os.path.exists(args.out_dir) and os.listdir(args.out_dir):
        ap.error(f"{args.out_dir} exists and is not empty")
    dirs = args.templates or [os.path.join(root, "tests", "fixtures", "dev-runs")]
    n_files, n_bytes = build(args.out_dir, args.runs, dirs, args.seed, args.conc_variants)
    print(f"make_corpus: {args.runs} eval dirs, {n_files} JSON files, {n_bytes / 1e6:.1f} MB JSON in {args.out_dir}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
