#!/usr/bin/env python3
"""Times grouped, depthwise and pointwise variants against their dense originals in one run and
prints, per variant and per changed kernel, time(variant) / time(original) next to
FLOP(variant) / FLOP(original) (issue #11: the first may exceed the second by at most 1.5x).

Models and traces come from tools/bench/conv_variants.py (written to --dir). Every model is
benchmarked --rounds times, all of them once per round, with
`NASC bench MODEL [--schedule S] --repeat R --threads 1`; each time (end to end and per
kernel) is the fastest median over the rounds (the least disturbed on a shared machine).

Usage: python3 tools/bench/variant_ratios.py [--nasc build/tools/nasc] [--rounds 3]
       [--repeat 20] [--dir /tmp/nasc-variants]
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conv_variants  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESNET18 = os.path.join(ROOT, "models", "resnet18.json")


def bench(nasc, model, schedule, repeat):
    """{kernel: (MFLOP, ms)} and the end-to-end (GFLOP, ms) of one `nasc bench` run."""
    args = [nasc, "bench", model, "--repeat", str(repeat), "--threads", "1"]
    if schedule:
        args += ["--schedule", schedule]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    kernels, total = {}, None
    for line in out.splitlines():
        fields = line.split()
        if line.startswith("median latency:"):
            total = (float(fields[7]), float(fields[2]))
        elif len(fields) >= 6 and fields[0] != "kernel":
            kernels[fields[0]] = (float(fields[2]), float(fields[3]))
    return kernels, total


def fastest(runs):
    """Per kernel and end to end, the run with the smallest time."""
    kernels = {}
    for run, _ in runs:
        for name, (flop, ms) in run.items():
            if name not in kernels or ms < kernels[name][1]:
                kernels[name] = (flop, ms)
    return kernels, min((total for _, total in runs), key=lambda t: t[1])


def ratio_row(name, variant, original):
    (vf, vt), (of, ot) = variant, original
    flop, time = vf / of, vt / ot
    return "| %s | %.3f | %.3f | %.3f | %.3f | %.2f |" % (name, ot, vt, flop, time, time / flop)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nasc", default=os.path.join(ROOT, "build", "tools", "nasc"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--dir", default="/tmp/nasc-variants")
    args = parser.parse_args()
    sys.argv = [sys.argv[0], args.dir]
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        conv_variants.main()
        sys.stdout = stdout
    runs = {"resnet18": (RESNET18, None)}
    for step in ("group2", "group4", "group8", "depthwise"):
        runs["resnet18 " + step] = (RESNET18,
                                    os.path.join(args.dir, "resnet18_%s.schedule.json" % step))
    for channels, _ in conv_variants.RESNEXT_STAGES:
        for group in (1, 32):
            runs["resnext g%d %d" % (group, channels)] = (
                os.path.join(args.dir, "resnext_g%d_%d.json" % (group, channels)), None)
    runs["mobilenet chain"] = (os.path.join(args.dir, "mobilenet_chain.json"), None)
    results = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, (model, schedule) in runs.items():
            results[name].append(bench(args.nasc, model, schedule, args.repeat))
    best = {name: fastest(r) for name, r in results.items()}
    print("| variant / kernel | original ms | variant ms | FLOP ratio | time ratio | time/FLOP |")
    print("|---|---:|---:|---:|---:|---:|")
    base_kernels, base_total = best["resnet18"]
    for step in ("group2", "group4", "group8", "depthwise"):
        kernels, total = best["resnet18 " + step]
        print(ratio_row("resnet18 %s, end to end" % step, total, base_total))
        for name, value in kernels.items():
            if name in base_kernels and value[0] != base_kernels[name][0]:
                print(ratio_row("  " + name, value, base_kernels[name]))
    for channels, _ in conv_variants.RESNEXT_STAGES:
        grouped = best["resnext g32 %d" % channels][0]["conv"]
        dense = best["resnext g1 %d" % channels][0]["conv"]
        print(ratio_row("resnext group 32, %d channels" % channels, grouped, dense))
    print()
    print("| kernel | MFLOP | ms | GFLOP/s |")
    print("|---|---:|---:|---:|")
    for name, (flop, ms) in best["mobilenet chain"][0].items():
        print("| %s | %.2f | %.3f | %.1f |" % (name, flop, ms, flop / ms))
    flop, ms = best["mobilenet chain"][1]
    print("| mobilenet chain, end to end | %.1f | %.3f | %.1f |" % (flop * 1e3, ms,
                                                                   flop / ms * 1e3))


if __name__ == "__main__":
    main()
