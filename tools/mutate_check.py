#!/usr/bin/python3
"""Checks `nasc mutate` against PyTorch (a ctest, test/CMakeLists.txt: mutate_matches_pytorch).

1. Exports a small residual CNN (1x32x32 input, 10 classes, BatchNorm kept) to ONNX.
2. Runs `nasc mutate` with group, depthwise, bottleneck, seq1 and seq2 steps (fresh He weights).
3. The mutated ONNX must pass onnx.checker (full check) and strict shape inference.
4. PyTorch builds the architecture the steps describe (nn.Conv2d(groups=G), narrower channels,
   parts joined by torch.cat),
   loads the mutated model's weights by name, and its eval-mode output on a random batch must
   match `nasc run` on the mutated model (1e-4 relative to the output's max magnitude).
5. `nasc inspect --stage cost` must report PyTorch's parameter count and the FLOP of the convs and
   the linear layer counted with forward hooks (2 per multiply-accumulate).
6. A bottleneck of a conv that feeds a residual Add must be refused (exit 1, naming the Add).

Usage: tools/mutate_check.py --nasc build/tools/nasc --out /tmp/mutate
"""
import argparse
import os
import re
import subprocess

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn

BATCH = 2


def conv(cin, parts, stride=1):
    """A 3x3 conv (no bias) with cin inputs and output `parts` [(channels, groups), ...]: one
    nn.Conv2d, or for several parts a SplitConv (the shape of nasc's seq1 / seq2)."""
    if len(parts) == 1:
        return nn.Conv2d(cin, parts[0][0], 3, stride=stride, padding=1, groups=parts[0][1],
                         bias=False)
    return SplitConv(cin, parts, stride)


class SplitConv(nn.Module):
    """Convs over the same input, outputs concatenated on the channel axis."""

    def __init__(self, cin, parts, stride):
        super().__init__()
        self.parts = nn.ModuleList(conv(cin, [p], stride) for p in parts)

    def forward(self, x):
        return torch.cat([p(x) for p in self.parts], 1)


class Block(nn.Module):
    """conv1 (width -> inner) bn relu conv2 (inner -> width) bn + x relu."""

    def __init__(self, width, conv1, conv2):
        super().__init__()
        self.conv1 = conv(width, conv1)
        inner = sum(c for c, _ in conv1)
        self.bn1 = nn.BatchNorm2d(inner)
        self.conv2 = conv(inner, conv2)
        self.bn2 = nn.BatchNorm2d(width)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class Net(nn.Module):
    """stem (1 -> 16), block1 (16), down (16 -> 32, stride 2), block2 (32), pool, fc (32 -> 10).
    `arch` gives the output parts of block1's and block2's convs and of down."""

    def __init__(self, arch):
        super().__init__()
        self.stem = nn.Sequential(conv(1, [(16, 1)]), nn.BatchNorm2d(16), nn.ReLU())
        self.block1 = Block(16, *arch["block1"])
        self.down = nn.Sequential(conv(16, arch["down"], 2), nn.BatchNorm2d(32), nn.ReLU())
        self.block2 = Block(32, *arch["block2"])
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.block2(self.down(self.block1(self.stem(x))))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


ORIGINAL = {"block1": ([(16, 1)], [(16, 1)]), "down": [(32, 1)],
            "block2": ([(32, 1)], [(32, 1)])}
# The architecture the STEPS describe.
MUTATED = {"block1": ([(16, 4)], [(16, 16)]), "down": [(16, 1), (16, 2)],
           "block2": ([(16, 2)], [(8, 1), (24, 4)])}
STEPS = ["/block1/conv1/Conv:group(4)", "/block1/conv2/Conv:depthwise",
         "/down/down.0/Conv:seq1(1, 2)", "/block2/conv1/Conv:bottleneck(2)",
         "/block2/conv1/Conv:group(2)", "/block2/conv2/Conv:seq2(8, 4)"]


def export(model, path):
    model.eval()
    torch.onnx.export(model, torch.zeros(BATCH, 1, 32, 32), path, opset_version=13,
                      do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["x"], output_names=["logits"])


def nasc(binary, *args, expect=0):
    run = subprocess.run([binary, *args], capture_output=True, text=True)
    if run.returncode != expect:
        raise SystemExit(f"nasc {' '.join(args)}: exit {run.returncode}, expected {expect}\n"
                         f"{run.stdout}{run.stderr}")
    return run.stdout + run.stderr


def onnx_name(name):
    """The initializer nasc gives a parameter: "x.parts.1.weight" is seq's "x.weight_part1"."""
    return re.sub(r"\.parts\.([0-9]+)\.(weight|bias)$", r".\2_part\1", name)


def load_weights(model, path):
    """Loads every parameter and BN statistic of `model` from the ONNX initializers by name."""
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    state = model.state_dict()
    for name in state:
        if name.endswith("num_batches_tracked"):
            continue
        source = onnx_name(name)
        if source not in inits:
            raise SystemExit(f"{path}: no initializer '{source}' for PyTorch's '{name}'")
        if tuple(inits[source].shape) != tuple(state[name].shape):
            raise SystemExit(f"{path}: '{source}' has shape {inits[source].shape}, PyTorch "
                             f"{tuple(state[name].shape)}")
        state[name] = torch.from_numpy(inits[source].copy())
    model.load_state_dict(state)


def hooked_flops(model):
    """2 x multiply-accumulates of the convs and linear layers, by forward hooks."""
    total = [0]

    def conv(module, _, out):
        k = module.kernel_size[0] * module.kernel_size[1]
        total[0] += 2 * out.numel() * (module.in_channels // module.groups) * k

    def linear(module, _, out):
        total[0] += 2 * out.numel() * module.in_features

    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            m.register_forward_hook(conv)
        elif isinstance(m, nn.Linear):
            m.register_forward_hook(linear)
    model(torch.zeros(BATCH, 1, 32, 32))
    return total[0]


def check_cost(binary, path, model):
    out = nasc(binary, "inspect", path, "--stage", "cost")
    match = re.search(r"^total\s+([0-9.]+)\s+MFLOP\s+([0-9]+)\s+parameters", out, re.M)
    if not match:
        raise SystemExit(f"nasc inspect --stage cost: no total line in\n{out}")
    flops, params = float(match.group(1)) * 1e6, int(match.group(2))
    expected_params = sum(p.numel() for p in model.parameters())
    expected_flops = hooked_flops(model)
    if params != expected_params or abs(flops - expected_flops) > 0.5e-4 * 1e6:
        raise SystemExit(f"cost of {path}: nasc {flops} FLOP / {params} params, PyTorch "
                         f"{expected_flops} / {expected_params}")
    print(f"cost {os.path.basename(path)}: {flops:.0f} FLOP, {params} parameters (= PyTorch)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nasc", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    original = os.path.join(args.out, "original.onnx")
    export(Net(ORIGINAL), original)
    mutated = os.path.join(args.out, "mutated.onnx")
    apply = [a for step in STEPS for a in ("--apply", step)]
    print(nasc(args.nasc, "mutate", original, *apply, "-o", mutated, "--seed", "3"), end="")

    proto = onnx.load(mutated)
    onnx.checker.check_model(proto, full_check=True)
    onnx.shape_inference.infer_shapes(proto, strict_mode=True)

    model = Net(MUTATED).eval()
    load_weights(model, mutated)
    x = np.random.default_rng(1).standard_normal((BATCH, 1, 32, 32)).astype(np.float32)
    np.save(os.path.join(args.out, "x.npy"), x)
    y_path = os.path.join(args.out, "y.npy")
    nasc(args.nasc, "run", mutated, "--input", os.path.join(args.out, "x.npy"), "--output",
         y_path)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    error = np.abs(np.load(y_path) - expected).max() / np.abs(expected).max()
    if not error < 1e-4:
        raise SystemExit(f"nasc run of the mutated model differs from PyTorch: {error:.3e}")
    print(f"nasc run vs PyTorch Conv2d(groups=...): max relative error {error:.2e}")
    check_cost(args.nasc, original, Net(ORIGINAL))
    check_cost(args.nasc, mutated, model)

    refused = nasc(args.nasc, "mutate", original, "--apply", "/block1/conv2/Conv:bottleneck(2)",
                   "-o", os.path.join(args.out, "refused.onnx"), expect=1)
    if "/block1/Add" not in refused:
        raise SystemExit(f"the refusal does not name the residual Add:\n{refused}")
    print("bottleneck before a residual Add refused:", refused.strip())


if __name__ == "__main__":
    main()
