#!/usr/bin/python3
"""Validates nasc's capacity gate against trained accuracy (issue #4, docs/capacity.md).

Phase 1 (--train) trains the original small ResNet and its neural-transformation variants
(tools/capacity_variants.py) on a subset of Fashion-MNIST for each seed, measures test accuracy on
the full 10,000-image test set, and caches per-variant accuracies (per seed and mean), MAC and
parameter counts and the training settings in a JSON file. It also exports every variant (fresh,
untrained: nasc measures its proxies at initialisation) to DIR/<variant>.onnx. The accuracy file is
rewritten after each variant; a rerun with the same settings skips the variants already in it
(delete the file to retrain everything).
Phase 2 (--evaluate) runs `nasc capacity DIR/original.onnx DIR/<variant>.onnx --json` for every
variant and reports, per proxy, Kendall tau-b between the proxy's value for the new network and the
mean test accuracy (train_loss: tau of -loss; all variants including the original), and per gate
policy how many "keeps accuracy within 1 point of the original" decisions it gets right (variants
other than the original; ground truth: mean accuracy over seeds >= original's mean - 1). It prints
a markdown table and writes the evaluation JSON. When the nasc binary has no `capacity` command
yet, the proxies come from `nasc fisher MODEL --proxy P --json` (total) and policies are skipped.
nasc reports synflow as its natural log (ln synflow, in "measured" of the evaluation JSON too);
Kendall tau depends only on the order, which the logarithm keeps.

Data and preprocessing as nasc (FashionMnist.cpp): Debian's dataset-fashion-mnist
(/usr/share/datasets/fashion-mnist), pixel/255, normalised with mean 0.2860 and std 0.3530,
zero-padded centred to 32x32. Training: the first --train-images training images, SGD with
Nesterov momentum 0.9, weight decay 5e-4, batch 128, one-cycle learning rate (peak --lr), --epochs
epochs; torch.manual_seed(seed) before building the network (init) and a generator seeded with
seed for the data order. torch.set_num_threads(2). Run with Debian's /usr/bin/python3 (torch 1.13).

Usage (from the repository root):
  tools/capacity_validation.py --train --out /tmp/capacity      # phase 1, see below for time
  tools/capacity_validation.py --evaluate --out /tmp/capacity --nasc build/tools/nasc
Phase 1 with the defaults (63 trainings of 240 steps): one training takes 5-30 s on 2 idle
cores (up to 5 min next to concurrent builds), so about 15 min on a quiet machine. Phase 2 takes
20 s to 3 min per variant. Options: --accuracy FILE (default
test/data/capacity/validation_accuracy.json), --evaluation FILE (default
test/data/capacity/validation_evaluation.json), --seeds 0 1 2,
--variants NAME ..., --train-images, --epochs, --lr, --width, --blocks.
"""
import argparse
import gzip
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capacity_variants as cv  # noqa: E402

FASHION_DIR = "/usr/share/datasets/fashion-mnist"
PROXIES = ["fisher", "synflow", "jacob_cov", "snip", "grad_norm", "train_loss", "params", "flops"]
FISHER_PROXIES = ["fisher", "synflow", "jacob_cov", "snip", "grad_norm"]
LOWER_IS_BETTER = {"train_loss"}


def load_fashion(split, count=None):
    """Images (N, 1, 32, 32) float32 and int64 labels of a Fashion-MNIST split ("train"/"t10k"),
    preprocessed as nasc's FashionMnist.cpp: p/255, (x - 0.2860) / 0.3530, zero pad to 32x32."""
    paths = [f"{FASHION_DIR}/{split}-{kind}-idx{dims}-ubyte.gz"
             for kind, dims in (("images", 3), ("labels", 1))]
    for path in paths:
        if not os.path.exists(path):
            raise SystemExit(f"{path}: not found (apt-get install dataset-fashion-mnist)")
    with gzip.open(paths[0], "rb") as f:
        pixels = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(paths[1], "rb") as f:
        labels = np.frombuffer(f.read(), dtype=np.uint8, offset=8).astype(np.int64)
    if count is not None:
        pixels, labels = pixels[:count], labels[:count]
    raw = torch.from_numpy(pixels.astype(np.float32))
    normalised = (raw / np.float32(255.0) - np.float32(0.2860)) / np.float32(0.3530)
    return F.pad(normalised, (2, 2, 2, 2)).unsqueeze(1).contiguous(), torch.from_numpy(labels)


def train(model, images, labels, settings, seed):
    """Trains `model` in place (SGD, one-cycle schedule) with a data order seeded by `seed`."""
    batch, epochs = settings["batch"], settings["epochs"]
    steps_per_epoch = math.ceil(len(images) / batch)
    optimizer = torch.optim.SGD(model.parameters(), lr=settings["lr"], momentum=0.9,
                                nesterov=True, weight_decay=settings["weight_decay"])
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, settings["lr"],
                                                   total_steps=epochs * steps_per_epoch)
    order = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(epochs):
        permutation = torch.randperm(len(images), generator=order)
        for step in range(steps_per_epoch):
            index = permutation[step * batch:(step + 1) * batch]
            optimizer.zero_grad()
            F.cross_entropy(model(images[index]), labels[index]).backward()
            optimizer.step()
            schedule.step()


def accuracy(model, images, labels):
    """Top-1 accuracy in percent of `model` (eval mode) on the given images."""
    model.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, len(images), 1000):
            logits = model(images[start:start + 1000])
            correct += int((logits.argmax(1) == labels[start:start + 1000]).sum())
    return 100.0 * correct / len(images)


def export_onnx(model, path):
    """Writes `model` (eval mode) as ONNX opset 13 with its BatchNormalization nodes kept."""
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, 32, 32), path, opset_version=13,
                      do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["input"], output_names=["logits"])


def export_all(names, specs, settings, out_dir):
    """DIR/<variant>.onnx for every variant (initialisation of seed 0)."""
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        export_onnx(cv.build(specs[name], settings["width"], settings["blocks"], 0),
                    os.path.join(out_dir, name + ".onnx"))


def load_cached(path, settings):
    """The variants already in the accuracy file `path` when it was trained with `settings`."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        cached = json.load(f)
    return cached["variants"] if cached["settings"] == settings else {}


def write_json(path, document):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")


def phase_train(args, settings):
    """Trains every variant not yet in --accuracy (same settings), rewriting it after each one."""
    specs = cv.variant_specs(settings["blocks"])
    names = args.variants or list(specs)
    export_all(names, specs, settings, args.out)
    train_x, train_y = load_fashion("train", settings["train_images"])
    test_x, test_y = load_fashion("t10k")
    results, start = load_cached(args.accuracy, settings), time.time()
    for name in (n for n in names if n not in results):
        model = cv.build(specs[name], settings["width"], settings["blocks"], 0)
        entry = {"macs": cv.count_macs(model), "params": cv.count_params(model),
                 "accuracy": {}, "seconds": {}}
        for seed in settings["seeds"]:
            began = time.time()
            model = cv.build(specs[name], settings["width"], settings["blocks"], seed)
            train(model, train_x, train_y, settings, seed)
            entry["accuracy"][str(seed)] = accuracy(model, test_x, test_y)
            entry["seconds"][str(seed)] = round(time.time() - began, 1)
            print(f"{name:22s} seed {seed}: {entry['accuracy'][str(seed)]:6.2f}%  "
                  f"{entry['seconds'][str(seed)]:6.1f} s  (total {time.time() - start:6.0f} s)",
                  flush=True)
        values = list(entry["accuracy"].values())
        entry["mean_accuracy"] = sum(values) / len(values)
        entry["seed_spread"] = max(values) - min(values)
        results[name] = entry
        wall = sum(sum(e["seconds"].values()) for e in results.values())
        write_json(args.accuracy, {"settings": settings, "train_seconds": round(wall, 1),
                                   "variants": results})
    print(f"wrote {args.accuracy}")


def kendall_tau_b(x, y):
    """Kendall's tau-b of two equal-length sequences (ties in either count in the denominator)."""
    def sign(v):
        return (v > 0) - (v < 0)
    num = dx = dy = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            sx, sy = sign(x[i] - x[j]), sign(y[i] - y[j])
            num, dx, dy = num + sx * sy, dx + sx * sx, dy + sy * sy
    return num / math.sqrt(dx * dy) if dx and dy else float("nan")


def run_json(command):
    """stdout of `command` parsed as JSON (exit status 0 or 3 -- nasc capacity's "not legal")."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def has_capacity(nasc):
    """Whether `nasc --help` lists a `capacity` subcommand."""
    usage = subprocess.run([nasc, "--help"], capture_output=True, text=True).stdout
    return any(line.split()[:1] == ["capacity"] for line in usage.splitlines())


def measure(nasc, out_dir, names, cached, capacity):
    """{variant: {"proxies": {name: new value}, "decisions": {policy: bool}}} from nasc."""
    original = os.path.join(out_dir, "original.onnx")
    measured = {}
    for name in names:
        path = os.path.join(out_dir, name + ".onnx")
        if capacity:
            reply = run_json([nasc, "capacity", original, path, "--json"])
            measured[name] = {"proxies": {p: v["new"] for p, v in reply["proxies"].items()},
                              "decisions": reply["decisions"], "legal": reply["legal"],
                              "policy": reply["policy"], "reason": reply["reason"]}
        else:
            proxies = {p: run_json([nasc, "fisher", path, "--proxy", p, "--json"])["total"]
                       for p in FISHER_PROXIES}
            proxies.update(params=cached[name]["params"], flops=2 * cached[name]["macs"])
            measured[name] = {"proxies": proxies, "decisions": {}}
        print(f"measured {name}", flush=True)
    return measured


def phase_evaluate(args):
    with open(args.accuracy) as f:
        cached = json.load(f)
    settings, variants = cached["settings"], cached["variants"]
    names = list(variants)
    specs = cv.variant_specs(settings["blocks"])
    missing = [n for n in names if not os.path.exists(os.path.join(args.out, n + ".onnx"))]
    export_all(missing, specs, settings, args.out)
    capacity = has_capacity(args.nasc)
    if not capacity:
        print(f"{args.nasc} has no 'capacity' command: proxies from 'nasc fisher', no policies",
              flush=True)
    measured = measure(args.nasc, args.out, names, variants, capacity)
    acc = {n: variants[n]["mean_accuracy"] for n in names}
    threshold = acc["original"] - 1.0

    taus = {}
    for proxy in sorted({p for m in measured.values() for p in m["proxies"]},
                        key=lambda p: PROXIES.index(p) if p in PROXIES else len(PROXIES)):
        sign = -1.0 if proxy in LOWER_IS_BETTER else 1.0
        values = [sign * measured[n]["proxies"][proxy] for n in names]
        taus[proxy] = kendall_tau_b(values, [acc[n] for n in names])

    candidates = [n for n in names if n != "original"]
    keeps = {n: acc[n] >= threshold for n in candidates}
    policies = {}
    for policy in sorted({p for m in measured.values() for p in m["decisions"]}):
        admits = {n: measured[n]["decisions"][policy] for n in candidates}
        policies[policy] = {
            "correct": sum(admits[n] == keeps[n] for n in candidates), "total": len(candidates),
            "false_admits": sorted(n for n in candidates if admits[n] and not keeps[n]),
            "false_refusals": sorted(n for n in candidates if keeps[n] and not admits[n])}

    print(f"\nKendall tau-b of each proxy (new network) vs mean test accuracy, {len(names)} "
          f"networks; keep = mean accuracy >= {threshold:.2f}% (original - 1)\n")
    print("| proxy | τ |\n|---|---|")
    for proxy, tau in taus.items():
        print(f"| {proxy}{' (−)' if proxy in LOWER_IS_BETTER else ''} | {tau:+.2f} |")
    if policies:
        print("\n| policy | correct | false admits | false refusals |\n|---|---|---|---|")
        for policy, r in policies.items():
            print(f"| {policy} | {r['correct']}/{r['total']} "
                  f"({100.0 * r['correct'] / r['total']:.0f}%) | "
                  f"{', '.join(r['false_admits']) or '-'} | "
                  f"{', '.join(r['false_refusals']) or '-'} |")
    document = {"nasc_command": "capacity" if capacity else "fisher --proxy",
                "keep_threshold": threshold, "mean_accuracy": acc, "keeps": keeps,
                "measured": measured, "kendall_tau_b": taus, "policies": policies}
    write_json(args.evaluation, document)
    print(f"\nwrote {args.evaluation}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", action="store_true", help="phase 1: train, write --accuracy")
    parser.add_argument("--evaluate", action="store_true", help="phase 2: run nasc capacity")
    parser.add_argument("--out", default="/tmp/capacity", help="directory of the ONNX variants")
    parser.add_argument("--accuracy", default="test/data/capacity/validation_accuracy.json")
    parser.add_argument("--evaluation", default="test/data/capacity/validation_evaluation.json")
    parser.add_argument("--nasc", default=os.environ.get("NASC", "build/tools/nasc"))
    parser.add_argument("--variants", nargs="*", help="subset of variants (default: all)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--train-images", type=int, default=10240)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--blocks", type=int, default=1, help="basic blocks per stage")
    args = parser.parse_args()
    if not (args.train or args.evaluate):
        parser.error("give --train and/or --evaluate")
    torch.set_num_threads(2)
    settings = {"width": args.width, "blocks": args.blocks, "seeds": args.seeds,
                "train_images": args.train_images, "test_images": 10000, "epochs": args.epochs,
                "batch": 128, "lr": args.lr, "weight_decay": 5e-4, "momentum": 0.9,
                "nesterov": True, "schedule": "OneCycleLR", "torch": torch.__version__,
                "threads": torch.get_num_threads()}
    if args.train:
        phase_train(args, settings)
    if args.evaluate:
        phase_evaluate(args)


if __name__ == "__main__":
    main()
