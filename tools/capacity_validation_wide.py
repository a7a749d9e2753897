#!/usr/bin/python3
"""Validates the per-layer synflow gate of `nasc search` on a network of real width (issue #13
item 0, docs/capacity.md "Validation at full width").

tools/capacity_validation.py validated the gate on a width-16 ResNet-8 whose variants are PyTorch
modules. This script judges what the search judges: variants of a nasc model (default the full-width
CIFAR ResNet-18, models/cifar_resnet18.json, 11.2 M parameters) written by `nasc mutate` from the
steps in VARIANTS, the step kinds and places that `nasc search --strategy layerwise` chose on CIFAR
ResNet-34 (docs/search.md). For each variant it

- measures ln synflow(new) - ln synflow(original) with `nasc capacity ORIGINAL NEW --policy synflow
  --policy-only --json --tolerance 0.75n` (batch 128, 3 seeds: the gate's defaults; n the Convs
  the steps change), the decision `nasc search --tolerance-per-layer 0.75` takes: the total against
  -0.75n, every layer's share of it against the share rule and every layer's weights against the
  weight floor (docs/capacity.md);
- trains the network from fresh He-normal weights with tools/train_eval.py (docs/accuracy.md's
  short recipe by default: the first 2560 Fashion-MNIST training images, 2 epochs, lr 0.02, batch
  128, tested on the first 2000 test images) for each seed, --jobs trainings at a time, one thread
  each.

Results go to --results (JSON, rewritten after each training; a rerun skips what it holds with the
same settings; --rejudge measures every gate decision again, e.g. after a gate rule changed) and
a markdown table to stdout: accuracy per seed, mean, difference to the original, the ln synflow
ratio, per changed Conv, and the gate's decision. Run with Debian's /usr/bin/python3 (torch 1.13)
from the repository root:

  tools/capacity_validation_wide.py --out /tmp/wide --nasc build/tools/nasc
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys

# Stages and blocks of the CIFAR ResNet-18 (BasicBlock [2, 2, 2, 2]).
BLOCKS = [(stage, block) for stage in (1, 2, 3, 4) for block in (0, 1)]


def convs(which, stages=(1, 2, 3, 4)):
    """The names of conv `which` (1 or 2) of every block of `stages`."""
    return [f"layer{s}.{b}.conv{which}" for s, b in BLOCKS if s in stages]


def steps(names, step):
    return [f"{name}:{step}" for name in names]


# The 1x1 shortcut projections, grouped as the 2.68x run of docs/search.md grouped them.
GROUPED_DOWNSAMPLES = ["layer2.0.downsample.0:group(8)", "layer3.0.downsample.0:group(64)",
                       "layer4.0.downsample.0:group(128)"]
SEARCHED = (steps(convs(1, (1,)), "bottleneck(2)") + steps(convs(2, (1,)), "group(2)") +
            steps(convs(1, (2, 3, 4)), "bottleneck(4)") + steps(convs(2, (2, 3, 4)), "seq1(2,4)"))

# name -> the --apply steps of `nasc mutate`. "searched" is the 4.70x choice of docs/search.md
# ("groups by place") on ResNet-18's blocks; "searched_ds" adds the 2.68x run's grouped
# downsamples; "bottleneck4_group2" is the 5.21x run's choice (docs/search.md, "With the synflow
# share rule") without its grouped projections; "bottleneck2_group2" stacks the same kinds with
# each block's second conv at a quarter of its weights (the weight floor); the others take one
# step kind alone.
VARIANTS = {
    "original": ["conv1:group(1)"],
    "searched": SEARCHED,
    "searched_ds": SEARCHED + GROUPED_DOWNSAMPLES,
    "bottleneck4_group2": steps(convs(1), "bottleneck(4)") + steps(convs(2), "group(2)"),
    "bottleneck2_group2": steps(convs(1), "bottleneck(2)") + steps(convs(2), "group(2)"),
    "group2_all": steps(convs(1) + convs(2), "group(2)"),
    "group4_all": steps(convs(1) + convs(2), "group(4)"),
    "bottleneck4_conv1": steps(convs(1), "bottleneck(4)"),
    "seq1_2_4_conv2": steps(convs(2, (2, 3, 4)), "seq1(2,4)"),
    "downsamples_grouped": GROUPED_DOWNSAMPLES,
}
PER_LAYER_TOLERANCE = 0.75  # nasc search's default --tolerance-per-layer


def changed_convs(variant):
    if variant == "original":
        return 0
    return len({step.split(":")[0] for step in VARIANTS[variant]})


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(cmd)}: exit {result.returncode}\n{result.stderr}")
    return result.stdout


def write_variant(args, variant):
    """Writes DIR/<variant>.onnx with `nasc mutate`; returns its path, MFLOP and parameters."""
    path = os.path.join(args.out, f"{variant}.onnx")
    cmd = [args.nasc, "mutate", args.model, "-o", path]
    for step in VARIANTS[variant]:
        cmd += ["--apply", step]
    costs = re.findall(r"([0-9.]+) MFLOP +([0-9]+) parameters", run(cmd))
    return path, float(costs[-1][0]), int(costs[-1][1])


def judge(args, original, path, convs):
    """`nasc capacity` with the synflow policy as `nasc search` runs it on a candidate changing
    `convs` Convs (tolerance PER_LAYER_TOLERANCE per Conv, the share rule, the weight floor): the
    ln synflow ratio, the decision and its reason."""
    report = json.loads(run([args.nasc, "capacity", original, path, "--policy", "synflow",
                             "--policy-only", "--json", "--tolerance",
                             str(PER_LAYER_TOLERANCE * convs)]))
    values = report["proxies"]["synflow"]  # ln synflow, so the ln ratio is a difference
    return (values["new"] - values["original"], report["legal"], report["reason"])


def train(args, path, seed):
    out = run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "train_eval.py"), path,
               "--reinit", "--seed", str(seed), "--train-subset", str(args.train_subset),
               "--epochs", str(args.epochs), "--test-subset", str(args.test_subset),
               "--lr", str(args.lr), "--threads", "1"])
    return json.loads(out.strip().splitlines()[-1])


def settings_of(args):
    return {"model": args.model, "train_subset": args.train_subset, "epochs": args.epochs,
            "test_subset": args.test_subset, "lr": args.lr}


def load_results(args):
    if os.path.exists(args.results):
        with open(args.results) as f:
            results = json.load(f)
        if results.get("settings") == settings_of(args):
            return results
    return {"settings": settings_of(args), "variants": {}}


def save(args, results):
    tmp = args.results + ".tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    os.replace(tmp, args.results)


def gate_text(row):
    """"admits", "refuses (total)", "refuses (share of L: ln F)" or "refuses (weights of L: F)"
    from the gate's record."""
    if row["gate_legal"]:
        return "admits"
    share = re.search(r"share of layer '([^']*)' in it fell by ln ([0-9.]+)", row["gate_reason"])
    if share:
        return f"refuses (share of {share[1]}: ln {float(share[2]):.2f})"
    floor = re.search(r"layer '([^']*)' keeps ([0-9.e-]+) of its weights", row["gate_reason"])
    if floor:
        return f"refuses (weights of {floor[1]}: {float(floor[2]):.3g})"
    return "refuses (total)"


def table(results):
    rows = results["variants"]
    base = rows["original"]
    base_mean = sum(base["accuracy"].values()) / len(base["accuracy"])
    print("| variant | Convs changed | MFLOP | params | accuracy per seed | mean | Δ | "
          "ln synflow ratio | per changed Conv | "
          "search's gate (0.75 per Conv, share rule, weight floor) |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---|")
    for name in [v for v in VARIANTS if v in rows]:
        row = rows[name]
        accs = [row["accuracy"][s] for s in sorted(row["accuracy"])]
        if not accs:
            continue
        mean = sum(accs) / len(accs)
        n = changed_convs(name)
        ratio = row.get("ln_synflow_ratio", 0.0)
        per = f"{ratio / n:.2f}" if n else ""
        admit = "" if not n else gate_text(row)
        delta = "" if name == "original" else f"{mean - base_mean:+.2f}"
        print(f"| {name} | {n} | {row['mflop']:.0f} | {row['params']:,.0f} | "
              f"{' / '.join(f'{a:.2f}' for a in accs)} | {mean:.2f} | {delta} | "
              f"{ratio:.2f} | {per} | {admit} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nasc", default="build/tools/nasc")
    parser.add_argument("--model", default="models/cifar_resnet18.json")
    parser.add_argument("--out", required=True, help="directory of the variants' ONNX files")
    parser.add_argument("--results", default="test/data/capacity/validation_wide.json")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--jobs", type=int, default=2, help="trainings at a time")
    parser.add_argument("--train-subset", type=int, default=2560)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--test-subset", type=int, default=2000)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--table-only", action="store_true", help="print the table of --results")
    parser.add_argument("--rejudge", action="store_true",
                        help="measure the gate's decision of every variant again")
    args = parser.parse_args()
    results = load_results(args)
    if args.table_only:
        table(results)
        return
    os.makedirs(args.out, exist_ok=True)
    variants = ["original"] + [v for v in args.variants if v != "original"]
    original = write_variant(args, "original")[0]
    for name in variants:
        path, mflop, params = write_variant(args, name)
        row = results["variants"].setdefault(name, {"accuracy": {}})
        if name != "original" and ("gate_reason" not in row or args.rejudge):
            ratio, legal, reason = judge(args, original, path, changed_convs(name))
            row.update(ln_synflow_ratio=ratio, gate_legal=legal, gate_reason=reason)
            print(f"{name}: {reason}", file=sys.stderr, flush=True)
        row.update(mflop=mflop, params=params, steps=VARIANTS[name])
        save(args, results)
    todo = [(name, seed) for seed in args.seeds for name in variants
            if str(seed) not in results["variants"][name]["accuracy"]]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(train, args, os.path.join(args.out, f"{name}.onnx"), seed):
                   (name, seed) for name, seed in todo}
        for future in concurrent.futures.as_completed(futures):
            name, seed = futures[future]
            report = future.result()
            results["variants"][name]["accuracy"][str(seed)] = report["test_accuracy"]
            save(args, results)
            print(f"{name} seed {seed}: {report['test_accuracy']:.2f}% in "
                  f"{report['seconds']:.0f} s", file=sys.stderr, flush=True)
    table(results)


if __name__ == "__main__":
    main()
