#!/usr/bin/python3
"""Checks `nasc mutate` against PyTorch (a ctest, test/CMakeLists.txt: mutate_matches_pytorch).

1. Exports a small residual CNN (1x32x32 input, 10 classes, BatchNorm kept) to ONNX.
2. Runs `nasc mutate` with group, depthwise, bottleneck, seq1 and seq2 steps, and again with
   spatial_bottleneck and seq3 steps (fresh He weights).
3. The mutated ONNX must pass onnx.checker (full check) and strict shape inference.
4. PyTorch builds the architecture the steps describe (nn.Conv2d(groups=G), narrower channels,
   parts joined by torch.cat, strided convs followed by nn.Upsample, strips of the padded input
   convolved by their own weights),
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
    nn.Conv2d, or for several parts a SplitConv (the shape of nasc's seq1 / seq2); or
    ("strips", P, channels, groups), a StripConv (nasc's seq3)."""
    if parts[0] == "strips":
        return StripConv(cin, *parts[1:])
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


class StripConv(nn.Module):
    """A 3x3, stride-1, padding-1 conv whose output rows are computed in P strips, each by its
    own weights from the rows of the zero-padded input it needs (the shape of nasc's seq3)."""

    def __init__(self, cin, strips, cout, groups):
        super().__init__()
        self.strips = nn.ModuleList(nn.Conv2d(cin, cout, 3, padding=(0, 1), groups=groups,
                                              bias=False) for _ in range(strips))

    def forward(self, x):
        rows = x.shape[2] // len(self.strips)
        padded = nn.functional.pad(x, (0, 0, 1, 1))
        return torch.cat([s(padded[:, :, i * rows:(i + 1) * rows + 2])
                          for i, s in enumerate(self.strips)], 2)


def stage(cin, cout, parts, stride, expand):
    """conv bn relu; with expand S > 1 the conv's stride is multiplied by S and an upsampling by
    S (nearest) follows (the shape of nasc's spatial_bottleneck)."""
    layers = [conv(cin, parts, stride * expand), nn.BatchNorm2d(cout), nn.ReLU()]
    if expand > 1:
        layers.append(nn.Upsample(scale_factor=expand, mode="nearest"))
    return nn.Sequential(*layers)


class Block(nn.Module):
    """conv1 (width -> inner) bn relu conv2 (inner -> width) bn + x relu."""

    def __init__(self, width, conv1, conv2):
        super().__init__()
        self.conv1 = conv(width, conv1)
        inner = conv1[2] if conv1[0] == "strips" else sum(c for c, _ in conv1)
        self.bn1 = nn.BatchNorm2d(inner)
        self.conv2 = conv(inner, conv2)
        self.bn2 = nn.BatchNorm2d(width)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class Net(nn.Module):
    """stem (1 -> 16), block1 (16), down (16 -> 32, stride 2), block2 (32), pool, fc (32 -> 10).
    `arch` gives the output parts of block1's and block2's convs and of down, and the spatial
    bottleneck factors of stem and down (1: none)."""

    def __init__(self, arch):
        super().__init__()
        self.stem = stage(1, 16, [(16, 1)], 1, arch.get("stem_expand", 1))
        self.block1 = Block(16, *arch["block1"])
        self.down = stage(16, 32, arch["down"], 2, arch.get("down_expand", 1))
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
# The spatial transformations, and seq3 of a grouped conv.
SPATIAL = {"stem_expand": 2, "block1": (("strips", 4, 16, 2), [(16, 1)]), "down": [(32, 1)],
           "down_expand": 2, "block2": ([(32, 1)], ("strips", 2, 32, 1))}
SPATIAL_STEPS = ["/stem/stem.0/Conv:spatial_bottleneck(2)", "/block1/conv1/Conv:group(2)",
                 "/block1/conv1/Conv:seq3(4)", "/down/down.0/Conv:spatial_bottleneck(2)",
                 "/block2/conv2/Conv:seq3(2)"]


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
    """The initializer nasc gives a parameter: "x.parts.1.weight" is seq's "x.weight_part1",
    "x.strips.1.weight" seq3's "x.weight_strip1"."""
    return re.sub(r"\.(part|strip)s\.([0-9]+)\.(weight|bias)$", r".\3_\1\2", name)


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


def check_mutation(args, original, name, steps, arch):
    """Steps 2-5 of the module docstring for one list of steps and the architecture it gives."""
    mutated = os.path.join(args.out, name + ".onnx")
    apply = [a for step in steps for a in ("--apply", step)]
    print(nasc(args.nasc, "mutate", original, *apply, "-o", mutated, "--seed", "3"), end="")

    proto = onnx.load(mutated)
    onnx.checker.check_model(proto, full_check=True)
    onnx.shape_inference.infer_shapes(proto, strict_mode=True)

    model = Net(arch).eval()
    load_weights(model, mutated)
    x = np.random.default_rng(1).standard_normal((BATCH, 1, 32, 32)).astype(np.float32)
    np.save(os.path.join(args.out, "x.npy"), x)
    y_path = os.path.join(args.out, name + "_y.npy")
    nasc(args.nasc, "run", mutated, "--input", os.path.join(args.out, "x.npy"), "--output",
         y_path)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    error = np.abs(np.load(y_path) - expected).max() / np.abs(expected).max()
    if not error < 1e-4:
        raise SystemExit(f"nasc run of {name}.onnx differs from PyTorch: {error:.3e}")
    print(f"nasc run of {name}.onnx vs PyTorch: max relative error {error:.2e}")
    check_cost(args.nasc, mutated, model)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nasc", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    original = os.path.join(args.out, "original.onnx")
    export(Net(ORIGINAL), original)
    check_cost(args.nasc, original, Net(ORIGINAL))
    check_mutation(args, original, "mutated", STEPS, MUTATED)
    check_mutation(args, original, "spatial", SPATIAL_STEPS, SPATIAL)

    refused = nasc(args.nasc, "mutate", original, "--apply", "/block1/conv2/Conv:bottleneck(2)",
                   "-o", os.path.join(args.out, "refused.onnx"), expect=1)
    if "/block1/Add" not in refused:
        raise SystemExit(f"the refusal does not name the residual Add:\n{refused}")
    print("bottleneck before a residual Add refused:", refused.strip())


if __name__ == "__main__":
    main()
