#!/usr/bin/env python3
"""Times the kernels whose default schedules differ between two nasc binaries, in one process.

On a noisy machine whole-process A/B runs decide nothing (the same network's latency moves 1.5x
between processes). This script takes each binary's default traces (`nasc inspect MODEL --stage
schedule`), finds the kernels whose traces differ, and gives alternate ones the old and the new
trace in one schedule file, timed by the NEW binary's `nasc bench MODEL --schedule FILE --threads
1`; then the other way round, for --rounds rounds. Each kernel is thus timed with both traces in
the same processes as its neighbours. It prints, per kernel, the fastest time with each trace and
their ratio, and every time measured (milliseconds).

Usage: python3 tools/bench/schedule_ab.py OLD_NASC NEW_NASC MODEL [--rounds 3] [--repeat 30]
The NEW binary must parse the old traces (a new primitive added, none removed).
"""
import argparse
import collections
import json
import os
import subprocess
import tempfile


def default_traces(nasc, model):
    out = subprocess.run([nasc, "inspect", model, "--stage", "schedule"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["kernels"]


def bench_row_name(node):
    """The kernel name `nasc bench` prints for a kernel node (dots and slashes as underscores)."""
    return node.replace(".", "_").replace("/", "_")


def kernel_times(nasc, model, schedule, repeat):
    """{bench row name: ms} of one `nasc bench` run of `model` with `schedule`."""
    out = subprocess.run([nasc, "bench", model, "--schedule", schedule, "--repeat", str(repeat),
                          "--threads", "1"], check=True, capture_output=True, text=True).stdout
    times = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[-1].endswith("%"):
            times[fields[0]] = float(fields[-3])
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("model")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    old = default_traces(args.old, args.model)
    new = default_traces(args.new, args.model)
    changed = [k for k in new if k in old and old[k] != new[k]]
    if not changed:
        print("no kernel's default trace differs")
        return
    times = collections.defaultdict(lambda: {"old": [], "new": []})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mixed.json")
        for _ in range(args.rounds):
            for flip in (0, 1):
                which = {k: "new" if (i + flip) % 2 else "old" for i, k in enumerate(changed)}
                kernels = {k: (new if w == "new" else old)[k] for k, w in which.items()}
                with open(path, "w") as f:
                    json.dump({"nasc_schedule": 1, "kernels": kernels}, f)
                measured = kernel_times(args.new, args.model, path, args.repeat)
                for k, w in which.items():
                    if bench_row_name(k) in measured:
                        times[k][w].append(measured[bench_row_name(k)])
    for k in changed:
        t = times[k]
        if not t["old"] or not t["new"]:
            print(f"{k}: not found in nasc bench's rows")
            continue
        o, n = min(t["old"]), min(t["new"])
        print(f"{k:55s} old {o:.3f} new {n:.3f} new/old {n / o:.2f}  "
              f"(old {t['old']}, new {t['new']} ms)")


if __name__ == "__main__":
    main()
