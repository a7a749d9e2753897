#!/usr/bin/env python3
"""Writes a nasc JSON model spec (docs/model-spec.md) of a ResNet, structure only, every weight a
seeded initializer:
  resnet18        (default, models/resnet18.json): torchvision's ResNet-18 (ImageNet,
                  1x3x224x224 -> 1x1000);
  cifar_resnet34  (models/cifar_resnet34.json): the CIFAR ResNet-34 of Turner et al. 2021 and of
                  the BlockSwap code (1x3x32x32 -> 1x10): a 3x3 stride-1 stem conv with 64 channels,
                  no maxpool, BasicBlocks [3, 4, 6, 3] of widths 64, 128, 256, 512, 21.3 M params;
  cifar_resnet18  (models/cifar_resnet18.json): the same CIFAR form with BasicBlocks [2, 2, 2, 2]
                  (kuangliu/pytorch-cifar's ResNet18), 11.2 M params.

Topology and parameter names follow torchvision.models.resnet (conv1/bn1/relu/maxpool,
layer1..layer4 of BasicBlocks, 1x1 stride-2 downsample conv + BN on the first block of
layers 2-4, avgpool, fc). Convs have no bias; BN is inference BatchNormalization (epsilon 1e-5,
momentum 0.9, as torch.onnx exports it); the classifier is Flatten + Gemm(transB=1).
Weights: conv and fc weights he_normal with distinct seeds, BN scale ones, BN bias / mean
zeros, BN var ones, fc bias zeros. Plain python3, no third-party modules.

The builder (SpecBuilder) and the writer (dump, write_spec) are shared with
tools/make_cifar_spec.py (ResNeXt-29, DenseNet).

Usage: python3 tools/make_resnet_spec.py [resnet18|cifar_resnet34|cifar_resnet18] [output.json]
       (default: resnet18 to models/<name>.json)
"""
import json
import os
import sys


class SpecBuilder:
    """Accumulates nodes and initializers of a JSON model spec."""

    def __init__(self):
        self.nodes = []
        self.initializers = []
        self.next_seed = 1

    def he_normal(self, name, shape):
        self.initializers.append({"name": name, "shape": shape, "init": "he_normal",
                                  "seed": self.next_seed})
        self.next_seed += 1
        return name

    def constant(self, name, shape, init):
        self.initializers.append({"name": name, "shape": shape, "init": init})
        return name

    def node(self, name, op_type, inputs, attributes=None):
        entry = {"name": name, "op_type": op_type, "inputs": inputs, "outputs": [name]}
        if attributes:
            entry["attributes"] = attributes
        self.nodes.append(entry)
        return name

    def conv(self, name, x, in_channels, out_channels, kernel, stride, pad, group=1):
        weight = self.he_normal(name + ".weight",
                                [out_channels, in_channels // group, kernel, kernel])
        return self.node(name, "Conv", [x, weight], {
            "kernel_shape": [kernel, kernel], "strides": [stride, stride],
            "pads": [pad, pad, pad, pad], "dilations": [1, 1], "group": group})

    def batch_norm(self, name, x, channels):
        params = [self.constant(name + ".weight", [channels], "ones"),
                  self.constant(name + ".bias", [channels], "zeros"),
                  self.constant(name + ".running_mean", [channels], "zeros"),
                  self.constant(name + ".running_var", [channels], "ones")]
        return self.node(name, "BatchNormalization", [x] + params,
                         {"epsilon": 1e-5, "momentum": 0.9})

    def relu(self, name, x):
        return self.node(name, "Relu", [x])

    def linear(self, name, x, in_features, out_features, output):
        """nn.Linear as Gemm(transB=1): weight [out, in] he_normal, bias zeros; writes `output`."""
        weight = self.he_normal(name + ".weight", [out_features, in_features])
        bias = self.constant(name + ".bias", [out_features], "zeros")
        self.nodes.append({"name": name, "op_type": "Gemm", "inputs": [x, weight, bias],
                           "outputs": [output],
                           "attributes": {"alpha": 1.0, "beta": 1.0, "transB": 1}})
        return output

    def classifier(self, x, in_features, classes, name="fc"):
        """GlobalAveragePool, Flatten(axis 1) and the Linear `name`, writing "logits"."""
        x = self.node("avgpool", "GlobalAveragePool", [x])
        x = self.node("flatten", "Flatten", [x], {"axis": 1})
        return self.linear(name, x, in_features, classes, "logits")

    def spec(self, name, doc, side, output):
        """The spec of the nodes and initializers so far, input "input" 1x3x`side`x`side`."""
        return {"name": name, "opset": 13, "doc_string": doc,
                "inputs": [{"name": "input", "shape": [1, 3, side, side]}],
                "outputs": [output], "nodes": self.nodes, "initializers": self.initializers}


def basic_block(b, prefix, x, in_channels, channels, stride):
    """torchvision BasicBlock: conv3x3-BN-ReLU-conv3x3-BN, + identity or downsample, ReLU."""
    y = b.conv(prefix + ".conv1", x, in_channels, channels, 3, stride, 1)
    y = b.relu(prefix + ".relu1", b.batch_norm(prefix + ".bn1", y, channels))
    y = b.conv(prefix + ".conv2", y, channels, channels, 3, 1, 1)
    y = b.batch_norm(prefix + ".bn2", y, channels)
    shortcut = x
    if stride != 1 or in_channels != channels:
        shortcut = b.conv(prefix + ".downsample.0", x, in_channels, channels, 1, stride, 0)
        shortcut = b.batch_norm(prefix + ".downsample.1", shortcut, channels)
    return b.relu(prefix + ".relu2", b.node(prefix + ".add", "Add", [y, shortcut]))


def resnet_spec(name, doc, side, classes, blocks, imagenet_stem):
    """A torchvision-style ResNet of BasicBlocks, `blocks` per stage (widths 64, 128, 256, 512),
    on a 1x3x`side`x`side` input: the 7x7 stride-2 stem conv and 3x3 stride-2 maxpool with
    `imagenet_stem`, a 3x3 stride-1 stem conv otherwise."""
    b = SpecBuilder()
    if imagenet_stem:
        x = b.conv("conv1", "input", 3, 64, 7, 2, 3)
    else:
        x = b.conv("conv1", "input", 3, 64, 3, 1, 1)
    x = b.relu("relu", b.batch_norm("bn1", x, 64))
    if imagenet_stem:
        x = b.node("maxpool", "MaxPool", [x], {"kernel_shape": [3, 3], "strides": [2, 2],
                                              "pads": [1, 1, 1, 1]})
    in_channels = 64
    stages = zip([(64, 1), (128, 2), (256, 2), (512, 2)], blocks)
    for layer, ((channels, stride), count) in enumerate(stages, 1):
        for block in range(count):
            x = basic_block(b, "layer%d.%d" % (layer, block), x, in_channels, channels,
                            stride if block == 0 else 1)
            in_channels = channels
    return b.spec(name, doc, side, b.classifier(x, 512, classes))


SPECS = {
    "resnet18": lambda: resnet_spec(
        "resnet18", "torchvision ResNet-18 topology, seeded He-normal weights; "
        "generated by tools/make_resnet_spec.py", 224, 1000, [2, 2, 2, 2], True),
    "cifar_resnet34": lambda: resnet_spec(
        "cifar_resnet34", "CIFAR ResNet-34 (3x3 stem, no maxpool, 10 classes), seeded He-normal "
        "weights; generated by tools/make_resnet_spec.py cifar_resnet34", 32, 10, [3, 4, 6, 3],
        False),
    "cifar_resnet18": lambda: resnet_spec(
        "cifar_resnet18", "CIFAR ResNet-18 (3x3 stem, no maxpool, 10 classes), seeded He-normal "
        "weights; generated by tools/make_resnet_spec.py cifar_resnet18", 32, 10, [2, 2, 2, 2],
        False),
}


def dump(spec):
    """JSON text with one node / initializer per line: small and diff-friendly."""
    lines = ["{"]
    for key in ["name", "opset", "doc_string", "inputs", "outputs"]:
        lines.append("  %s: %s," % (json.dumps(key), json.dumps(spec[key])))
    for key in ["nodes", "initializers"]:
        entries = [json.dumps(entry, separators=(",", ":")) for entry in spec[key]]
        lines.append('  "%s": [\n    %s\n  ]%s' % (key, ",\n    ".join(entries),
                                                  "," if key == "nodes" else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_spec(specs, default, argv):
    """The command line of the generators: argv [NAME [OUTPUT]] writes specs[NAME] (`default`
    when omitted) to OUTPUT, by default models/NAME.json."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = os.path.basename(argv[0])
    name = argv[1] if len(argv) > 1 else default
    if name not in specs:
        sys.exit("%s: unknown model '%s' (known: %s)" % (script, name, ", ".join(specs)))
    out = argv[2] if len(argv) > 2 else os.path.join(root, "models", name + ".json")
    with open(out, "w") as f:
        f.write(dump(specs[name]()))


if __name__ == "__main__":
    write_spec(SPECS, "resnet18", sys.argv)
