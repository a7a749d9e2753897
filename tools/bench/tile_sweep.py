#!/usr/bin/env python3
"""Times register tiles of one blocked convolution kernel (docs/performance.md, "Tile shapes").

For node NODE of MODEL, takes the layout steps of the default trace (pad_input, subsample_input, block_channels:
`nasc inspect --stage schedule`), reads the blocked conv statement's iterators (`--stage
kernel`), and writes, per tile j x r, the trace: layout steps; `split` K (k0, or k'0 of a
grouped conv) by j and J (ow) by r; `interchange` to (outer outputs, reductions, K1, J1, the
vector loop); `unroll` K1 and J1; with --chunks, the first reduction loop (c0) split too
and its outer part moved right after (n, k0), so a chunk of the weights stays in cache across
the output rows. Each trace and the default one are timed with
`nasc bench MODEL --schedule S --repeat R --threads 1`, the candidates interleaved over
--rounds rounds; it prints the kernel's median GFLOP/s per tile and round.

Usage: python3 tools/bench/tile_sweep.py MODEL NODE [--nasc build/tools/nasc] [--jams 1,2,3,4]
       [--widths 1,2,4,7,8,14] [--max-accumulators 16] [--chunks 0,4] [--repeat 20]
       [--rounds 2] [--statement S1]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile


def run(nasc, *args):
    return subprocess.run([nasc, *args], check=True, capture_output=True, text=True).stdout


def layout_steps(nasc, model, node):
    schedule = json.loads(run(nasc, "inspect", model, "--stage", "schedule", "--node", node))
    for name, steps in schedule["kernels"].items():
        return name, [s for s in steps if s["primitive"] in ("pad_input", "subsample_input", "block_channels")]
    raise SystemExit("no kernel for node " + node)


def iterators(nasc, model, kernel, path, statement):
    """(name, extent, is_reduction) of the kernel's statement's iterators after the layout steps."""
    text = run(nasc, "inspect", model, "--stage", "kernel", "--schedule", path, "--node", kernel)
    match = re.search(r"^\s+%s\[([^\]]*)\]" % statement, text, re.M)
    result = []
    for part in match.group(1).split(","):
        name, extent = part.strip().split(" < ")
        result.append((name.rstrip("*"), int(extent), name.endswith("*")))
    return result


def tile_steps(its, statement, jam, width, chunk=0):
    names = [n for n, _, _ in its]
    extent = {n: e for n, e, _ in its}
    reduction = {n for n, _, r in its if r}
    outputs = [n for n in names if n not in reduction]
    vector, columns = outputs[-1], "ow"
    rows = "kg0" if "kg0" in names else "k0"
    members, steps, inner, chunked = list(names), [], [], []
    channels = [n for n in names if n in reduction][0]
    if chunk and chunk < extent[channels]:
        at = members.index(channels)
        members.insert(at + 1, channels + "'")
        steps.append({"primitive": "split", "statement": statement, "member": at,
                      "factor": chunk, "band": 0})
        chunked = [channels]
        reduction = reduction | {channels + "'"}
    for it, count in ((rows, jam), (columns, width)):
        if count > 1 and count < extent[it]:
            at = members.index(it)
            members.insert(at + 1, it + "'")
            steps.append({"primitive": "split", "statement": statement, "member": at,
                          "factor": count, "band": 0})
            inner.append(it + "'")
        elif count > 1:
            inner.append(it)
    inner.append(vector)
    outer = [m for m in members if m not in inner and m.rstrip("'") not in reduction]
    order = outer[:2] + chunked + outer[2:]
    order += [m for m in members if m in reduction and m not in chunked]
    order += inner
    steps.append({"primitive": "interchange", "statement": statement,
                  "order": [members.index(m) for m in order]})
    counts = [c for c in (jam, width) if c > 1]
    for i, count in enumerate(counts):
        steps.append({"primitive": "unroll", "statement": statement,
                      "member": len(order) - len(inner) + i, "factor": count, "band": 0})
    return steps


def gflops(nasc, model, schedule, kernel, repeat):
    args = ["bench", model, "--repeat", str(repeat), "--threads", "1"]
    if schedule:
        args += ["--schedule", schedule]
    for line in run(nasc, *args).splitlines():
        fields = line.split()
        if fields and fields[0] == kernel.replace(".", "_").replace("/", "_"):
            return float(fields[-2])
    return float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("node")
    parser.add_argument("--nasc", default="build/tools/nasc")
    parser.add_argument("--statement", default="S1")
    parser.add_argument("--jams", default="1,2,3,4")
    parser.add_argument("--widths", default="1,2,4,7,8,14")
    parser.add_argument("--max-accumulators", type=int, default=16)
    parser.add_argument("--chunks", default="0",
                        help="input channel blocks per reduction chunk (c0 split, its outer "
                             "loop moved outside oh; 0: no chunk)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    kernel, layout = layout_steps(args.nasc, args.model, args.node)
    tmp = tempfile.mkdtemp(prefix="nasc-tiles-")
    layout_path = os.path.join(tmp, "layout.json")
    with open(layout_path, "w") as f:
        json.dump({"nasc_schedule": 1, "kernels": {kernel: layout}}, f)
    its = iterators(args.nasc, args.model, kernel, layout_path, args.statement)
    extent = {n: e for n, e, _ in its}
    rows = "kg0" if "kg0" in extent else "k0"
    candidates = {"default": None}
    for chunk in map(int, args.chunks.split(",")):
        for jam in map(int, args.jams.split(",")):
            for width in map(int, args.widths.split(",")):
                if extent.get(rows, 1) % jam or extent["ow"] % width or \
                        jam * width > args.max_accumulators:
                    continue
                name = "j=%d r=%d" % (jam, width) + (" c=%d" % chunk if chunk else "")
                path = os.path.join(tmp, name.replace(" ", "_").replace("=", "") + ".json")
                steps = layout + tile_steps(its, args.statement, jam, width, chunk)
                with open(path, "w") as f:
                    json.dump({"nasc_schedule": 1, "kernels": {kernel: steps}}, f)
                candidates[name] = path
    results = {name: [] for name in candidates}
    for _ in range(args.rounds):
        for name, path in candidates.items():
            results[name].append(gflops(args.nasc, args.model, path, kernel, args.repeat))
    print("%s %s (%s)" % (args.model, args.node, ", ".join("%s < %d" % (n, e) for n, e, _ in its)))
    for name, values in results.items():
        print("  %-16s %s GFLOP/s" % (name, " ".join("%7.1f" % v for v in values)))


if __name__ == "__main__":
    main()
