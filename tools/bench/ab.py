#!/usr/bin/env python3
"""Interleaved A/B timing of rfdb binaries on one command.

On a shared or virtual machine the speed drifts by tens of percent within
minutes, so two builds are only comparable when their runs alternate: this
runs each binary in turn (A, B, A, B, …) for --rounds rounds and prints, per
binary, the medians of wall seconds, CPU seconds (user + system) and peak RSS
(MiB), from the child's rusage.

Usage (from the repository root):
  tools/bench/ab.py OLD_RFDB build/release/rfdb -- report --db DB -o /tmp/ab.md
  tools/bench/ab.py OLD_RFDB NEW_RFDB --rounds 11 -- priors --db DB --by class

The command after `--` is given to every binary unchanged; its output goes to
/dev/null unless it names a file itself.
Exit 1 when a run fails (its stderr is shown), 2 on bad usage.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

def run_once(binary, command):
    """One run: (wall s, CPU s, peak RSS MiB); exits 1 when the run fails.

    Wall time by the monotonic clock around the child, CPU time and peak RSS
    from its rusage (wait4): microseconds, where GNU time prints hundredths.
    """
    with tempfile.TemporaryFile(mode="w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([binary, *command], stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"ab.py: {binary} {' '.join(command)} failed (exit {proc.returncode}):\n{err.read()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser(
        usage="%(prog)s [-h] [--rounds N] BINARY BINARY... -- RFDB_ARGS...",
        description="Interleaved A/B timing of rfdb binaries on one command (medians).",
        epilog="example: tools/bench/ab.py /tmp/rfdb-old build/release/rfdb -- report --db DB -o /tmp/ab.md",
    )
    parser.add_argument("binaries", nargs="+", help="two or more rfdb binaries, run in turn")
    parser.add_argument("--rounds", type=int, default=7, help="runs of each binary (default 7)")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]
    if len(args.binaries) < 2 or not command or args.rounds < 1:
        parser.error("give two or more binaries, --rounds >= 1 and the rfdb arguments after --")
    runs = {b: [] for b in args.binaries}
    for _ in range(args.rounds):
        for b in args.binaries:
            runs[b].append(run_once(b, command))
    print(f"{' '.join(command)}: medians of {args.rounds} interleaved runs")
    for b, samples in runs.items():
        wall, cpu, rss = (statistics.median(s[i] for s in samples) for i in range(3))
        print(f"  {b}: wall {wall:.3f} s, CPU {cpu:.3f} s, peak RSS {rss:.1f} MiB")


if __name__ == "__main__":
    main()
