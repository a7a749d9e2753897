"""Model definitions for tools/capacity_validation.py: a small CIFAR-style ResNet and its variants.

Network: 3x3 stride-2 stem conv (1 -> W channels, BN, ReLU; the stride keeps CPU training cheap:
the blocks see 16x16, 8x8, 4x4 maps), three stages of `blocks` basic blocks at widths
W, 2W, 4W (stride 1, 2, 2 at each stage's first block; 1x1 conv + BN projection shortcut when the
shape changes), global average pooling and a linear layer to 10 classes. Input (N, 1, 32, 32).

A variant changes the two 3x3 convs of every basic block ("block convs"); the stem, the shortcuts
and the classifier never change. Each block is described by a BlockSpec:
  conv1, conv2  the kind of each block conv: ("dense",), ("group", G), ("depthwise",) (groups =
                input channels, channel multiplier cout / cin), ("seq2", U, G): the paper's Seq2 --
                the first cout / U output channels are a dense conv, the rest a group(G) conv,
                computed as two parallel convs whose outputs are concatenated on the channel axis;
                ("separable",): depthwise 3x3 followed by a dense 1x1 conv (no BN in between);
  bottleneck    B: conv1's output channels shrink from cout to cout / B, conv2's input follows.
No spatial-bottleneck variant (strided conv then nearest upsample): its Resize/Upsample node is not
among the ops nasc imports (ir/passes/SupportedOps.cpp).
"""
import math

import torch
import torch.nn as nn

DENSE = ("dense",)


class BlockSpec:
    """The neural transformation applied to one basic block (see the module docstring)."""

    def __init__(self, conv1=DENSE, conv2=DENSE, bottleneck=1):
        self.conv1, self.conv2, self.bottleneck = conv1, conv2, bottleneck


class Seq2Conv(nn.Module):
    """Seq2 (peel then group): cout // dense_fraction dense output channels, the rest group(G)."""

    def __init__(self, cin, cout, stride, dense_fraction, groups):
        super().__init__()
        peeled = cout // dense_fraction
        self.dense = nn.Conv2d(cin, peeled, 3, stride, 1, bias=False)
        self.grouped = nn.Conv2d(cin, cout - peeled, 3, stride, 1, groups=groups, bias=False)

    def forward(self, x):
        return torch.cat([self.dense(x), self.grouped(x)], dim=1)


def make_conv(kind, cin, cout, stride):
    """A 3x3 conv (padding 1, no bias) from `cin` to `cout` channels transformed by `kind`."""
    name = kind[0]
    if name == "dense":
        return nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
    if name == "group":
        return nn.Conv2d(cin, cout, 3, stride, 1, groups=kind[1], bias=False)
    if name == "depthwise":
        assert cout % cin == 0, f"depthwise needs cout ({cout}) to be a multiple of cin ({cin})"
        return nn.Conv2d(cin, cout, 3, stride, 1, groups=cin, bias=False)
    if name == "seq2":
        return Seq2Conv(cin, cout, stride, kind[1], kind[2])
    if name == "separable":
        return nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
                             nn.Conv2d(cin, cout, 1, 1, 0, bias=False))
    raise ValueError(f"unknown conv kind {kind}")


class BasicBlock(nn.Module):
    """ResNet basic block (He et al. 2016) whose two 3x3 convs are transformed by `spec`."""

    def __init__(self, cin, cout, stride, spec):
        super().__init__()
        mid = cout // spec.bottleneck
        self.conv1 = make_conv(spec.conv1, cin, mid, stride)
        self.bn1 = nn.BatchNorm2d(mid)
        self.conv2 = make_conv(spec.conv2, mid, cout, 1)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class SmallResNet(nn.Module):
    """CIFAR-style ResNet with 3 stages of `blocks` basic blocks at widths w, 2w, 4w; `specs` gives
    one BlockSpec per block (3 * blocks of them, in order)."""

    def __init__(self, specs, width=16, blocks=1, classes=10):
        super().__init__()
        assert len(specs) == 3 * blocks
        self.stem = nn.Sequential(nn.Conv2d(1, width, 3, 2, 1, bias=False), nn.BatchNorm2d(width),
                                  nn.ReLU())
        layers, cin = [], width
        for stage in range(3):
            cout = width << stage
            for b in range(blocks):
                stride = 2 if stage > 0 and b == 0 else 1
                layers.append(BasicBlock(cin, cout, stride, specs[stage * blocks + b]))
                cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        out = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(out, 1), 1))


def variant_specs(blocks):
    """{variant name: [BlockSpec per block]} for a network of 3 stages of `blocks` blocks."""
    n = 3 * blocks

    def every(**kw):
        return [BlockSpec(**kw) for _ in range(n)]

    def both(kind, bottleneck=1):
        return every(conv1=kind, conv2=kind, bottleneck=bottleneck)

    depthwise = ("depthwise",)
    return {
        "original": every(),
        "group2": both(("group", 2)),
        "group4": both(("group", 4)),
        "group8": both(("group", 8)),
        "depthwise": both(depthwise),
        "bottleneck2": every(bottleneck=2),
        "bottleneck4": every(bottleneck=4),
        "bottleneck8": every(bottleneck=8),
        "group2_bottleneck2": both(("group", 2), bottleneck=2),
        "group4_bottleneck4": both(("group", 4), bottleneck=4),
        "alternate_depthwise": [BlockSpec(depthwise, depthwise) if i % 2 else BlockSpec()
                                for i in range(n)],
        "seq2_quarter_group4": both(("seq2", 4, 4)),
        "seq2_half_group8": both(("seq2", 2, 8)),
        "separable": both(("separable",)),
    }


def build(specs, width, blocks, seed):
    """The variant's network with PyTorch's default initialisation under torch.manual_seed(seed)."""
    torch.manual_seed(seed)
    return SmallResNet(specs, width, blocks)


def count_macs(model, side=32):
    """Multiply-accumulates of one (1, 1, side, side) forward pass in Conv2d and Linear layers."""
    total = []

    def conv_hook(module, inputs, output):
        k = module.kernel_size[0] * module.kernel_size[1]
        total.append(output.numel() * (module.in_channels // module.groups) * k)

    def linear_hook(module, inputs, output):
        total.append(module.in_features * module.out_features)

    hooks = [m.register_forward_hook(conv_hook if isinstance(m, nn.Conv2d) else linear_hook)
             for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    was_training = model.training
    model.eval()
    with torch.no_grad():
        model(torch.zeros(1, 1, side, side))
    model.train(was_training)
    for h in hooks:
        h.remove()
    return int(math.fsum(total))


def count_params(model):
    """Trainable parameters (weights, biases, BatchNorm scales and shifts)."""
    return sum(p.numel() for p in model.parameters())
