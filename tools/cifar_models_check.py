#!/usr/bin/python3
"""Checks the built-in CIFAR model specs against PyTorch (a ctest, test/CMakeLists.txt:
cifar_models_match_pytorch).

For each model (models/cifar_resnet18.json, resnext29_2x64d.json, densenet121.json,
densenet161.json):
1. PyTorch builds the network from the reference definitions (torchvision's BasicBlock with the
   CIFAR stem; kuangliu/pytorch-cifar's ResNeXt Block and DenseNet Bottleneck / Transition), not
   from the JSON. Its state_dict (less num_batches_tracked) must have the spec's initializer
   names and shapes, and the sum of numel of its parameters must equal the parameter count of
   `nasc inspect MODEL --stage cost`.
2. Every tensor of the state_dict gets seeded random values (He-normal conv and linear weights,
   BN scale and running variance in [0.5, 1.5], BN bias, running mean and linear bias small
   normals, so that a misplaced BN parameter shows), written as float32 to MODEL.bin; a copy of
   the spec whose initializers read that file ("file" initializers) is written as MODEL.json.
3. `nasc run` on the copy and the PyTorch forward in eval mode (float64) on a seeded random
   1x3x32x32 input must agree to 1e-4 relative to the output's largest magnitude.
The `nasc run` jobs (JIT compilation dominates) run --jobs at a time.

Usage: tools/cifar_models_check.py --nasc build/tools/nasc --out /tmp/cifar [--models a,b]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 7


def conv_bn(cin, cout, kernel, stride=1, groups=1):
    return nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False), \
        nn.BatchNorm2d(cout)


class BasicBlock(nn.Module):
    """torchvision's BasicBlock (expansion 1)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(cin, cout, 3, stride)
        self.conv2, self.bn2 = conv_bn(cout, cout, 3)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(*conv_bn(cin, cout, 1, stride))

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(y + (x if self.downsample is None else self.downsample(x)))


class CifarResNet(nn.Module):
    """ResNet of BasicBlocks with a 3x3 stride-1 stem and no maxpool (widths 64..512)."""

    def __init__(self, blocks, classes=10):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(3, 64, 3)
        cin = 64
        for i, (count, cout) in enumerate(zip(blocks, [64, 128, 256, 512]), 1):
            layers = []
            for j in range(count):
                layers.append(BasicBlock(cin, cout, 2 if i > 1 and j == 0 else 1))
                cin = cout
            setattr(self, "layer%d" % i, nn.Sequential(*layers))
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class ResNeXtBlock(nn.Module):
    """kuangliu/pytorch-cifar models/resnext.py Block (expansion 2)."""

    def __init__(self, cin, cardinality, width, stride):
        super().__init__()
        group_width = cardinality * width
        self.conv1, self.bn1 = conv_bn(cin, group_width, 1)
        self.conv2, self.bn2 = conv_bn(group_width, group_width, 3, stride, cardinality)
        self.conv3, self.bn3 = conv_bn(group_width, 2 * group_width, 1)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != 2 * group_width:
            self.shortcut = nn.Sequential(*conv_bn(cin, 2 * group_width, 1, stride))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        return F.relu(self.bn3(self.conv3(y)) + self.shortcut(x))


class ResNeXt29(nn.Module):
    """kuangliu's ResNeXt([3, 3, 3], cardinality, width), with Xie et al.'s 3x3 stem conv."""

    def __init__(self, cardinality, width, classes=10):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(3, 64, 3)
        cin = 64
        for i, stride in enumerate([1, 2, 2], 1):
            layers = []
            for j in range(3):
                layers.append(ResNeXtBlock(cin, cardinality, width, stride if j == 0 else 1))
                cin = 2 * cardinality * width
            setattr(self, "layer%d" % i, nn.Sequential(*layers))
            width *= 2
        self.linear = nn.Linear(cin, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.linear(F.avg_pool2d(x, 8).flatten(1))


class DenseLayer(nn.Module):
    """kuangliu/pytorch-cifar models/densenet.py Bottleneck."""

    def __init__(self, cin, growth):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, 4 * growth, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(4 * growth)
        self.conv2 = nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)

    def forward(self, x):
        y = self.conv2(F.relu(self.bn2(self.conv1(F.relu(self.bn1(x))))))
        return torch.cat([y, x], 1)


class Transition(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.bn = nn.BatchNorm2d(cin)
        self.conv = nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        return F.avg_pool2d(self.conv(F.relu(self.bn(x))), 2)


class DenseNet(nn.Module):
    """kuangliu's DenseNet(Bottleneck, blocks, growth, reduction 0.5)."""

    def __init__(self, blocks, growth, classes=10):
        super().__init__()
        planes = 2 * growth
        self.conv1 = nn.Conv2d(3, planes, 3, padding=1, bias=False)
        for i, count in enumerate(blocks, 1):
            layers = []
            for _ in range(count):
                layers.append(DenseLayer(planes, growth))
                planes += growth
            setattr(self, "dense%d" % i, nn.Sequential(*layers))
            if i < len(blocks):
                setattr(self, "trans%d" % i, Transition(planes, planes // 2))
                planes //= 2
        self.bn = nn.BatchNorm2d(planes)
        self.linear = nn.Linear(planes, classes)

    def forward(self, x):
        x = self.conv1(x)
        x = self.trans1(self.dense1(x))
        x = self.trans2(self.dense2(x))
        x = self.trans3(self.dense3(x))
        x = F.avg_pool2d(F.relu(self.bn(self.dense4(x))), 4)
        return self.linear(x.flatten(1))


MODELS = {
    "cifar_resnet18": lambda: CifarResNet([2, 2, 2, 2]),
    "resnext29_2x64d": lambda: ResNeXt29(2, 64),
    "densenet121": lambda: DenseNet([6, 12, 24, 16], 32),
    "densenet161": lambda: DenseNet([6, 12, 36, 24], 48),
}


def randomize(net, generator):
    """Seeded values for every state_dict tensor (see the module comment)."""
    for name, t in net.state_dict().items():
        if name.endswith("num_batches_tracked"):
            continue
        if t.dim() > 1:
            value = torch.randn(t.shape, generator=generator) * (2.0 / t[0].numel()) ** 0.5
        elif name.endswith("running_var") or (name.endswith("weight") and t.dim() == 1):
            value = 0.5 + torch.rand(t.shape, generator=generator)
        else:
            value = 0.1 * torch.randn(t.shape, generator=generator)
        t.copy_(value)


def with_file_weights(spec, net, out, name):
    """Writes the state_dict to OUT/NAME.bin and the spec reading it to OUT/NAME.json."""
    state = net.state_dict()
    offset, initializers = 0, []
    with open(os.path.join(out, name + ".bin"), "wb") as f:
        for entry in spec["initializers"]:
            data = state[entry["name"]].numpy().astype("<f4")
            f.write(data.tobytes())
            initializers.append({"name": entry["name"], "shape": entry["shape"],
                                 "file": name + ".bin", "offset": offset})
            offset += data.nbytes
    path = os.path.join(out, name + ".json")
    with open(path, "w") as f:
        json.dump(dict(spec, initializers=initializers), f)
    return path


def check_names(spec, net):
    """The spec's initializers are the state_dict's tensors, by name and shape."""
    want = {k: list(v.shape) for k, v in net.state_dict().items()
            if not k.endswith("num_batches_tracked")}
    got = {e["name"]: e["shape"] for e in spec["initializers"]}
    if got != want:
        missing, extra = sorted(set(want) - set(got)), sorted(set(got) - set(want))
        shapes = sorted(k for k in set(got) & set(want) if got[k] != want[k])
        raise SystemExit("initializers differ from PyTorch's state_dict: missing %s, extra %s, "
                         "shapes %s" % (missing[:5], extra[:5], shapes[:5]))


def nasc_params(nasc, model):
    text = subprocess.run([nasc, "inspect", model, "--stage", "cost"], check=True,
                          capture_output=True, text=True).stdout
    return int(re.search(r"^total .* (\d+) parameters$", text, re.M).group(1))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser()
    parser.add_argument("--nasc", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(SEED)
    x = torch.randn(1, 3, 32, 32, generator=generator)
    np.save(os.path.join(args.out, "input.npy"), x.numpy())
    nets, runs, failures = {}, {}, []
    for name in args.models.split(","):
        model = os.path.join(root, "models", name + ".json")
        with open(model) as f:
            spec = json.load(f)
        net = MODELS[name]().eval()
        check_names(spec, net)
        params, got = sum(p.numel() for p in net.parameters()), nasc_params(args.nasc, model)
        print("%s: %d parameters (nasc inspect), %d (PyTorch)" % (name, got, params))
        if got != params:
            failures.append("%s: parameter count %d, PyTorch %d" % (name, got, params))
        randomize(net, generator)
        nets[name] = net
        runs[name] = [args.nasc, "run", with_file_weights(spec, net, args.out, name),
                      "-i", "input=" + os.path.join(args.out, "input.npy"),
                      "-o", "logits=" + os.path.join(args.out, name + ".out.npy")]
    slowest_first = sorted(runs, key=lambda n: -os.path.getsize(os.path.join(root, "models",
                                                                            n + ".json")))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        done = {n: pool.submit(subprocess.run, runs[n], capture_output=True, text=True)
                for n in slowest_first}
    for name, net in nets.items():
        result = done[name].result()
        if result.returncode != 0:
            failures.append("%s: nasc run failed: %s" % (name, result.stderr.strip()))
            continue
        with torch.no_grad():
            want = net.double()(x.double()).numpy()
        got = np.load(os.path.join(args.out, name + ".out.npy"))
        error = float(np.abs(got - want).max() / np.abs(want).max())
        print("%s: nasc run vs PyTorch eval forward: max |difference| / max |output| = %.2e "
              "(max |output| %.3g)" % (name, error, np.abs(want).max()))
        if got.shape != want.shape or error > 1e-4:
            failures.append("%s: output differs from PyTorch (%.2e relative)" % (name, error))
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
