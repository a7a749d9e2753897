"""Model definitions for tools/capacity_validation.py: a small CIFAR-style ResNet and its variants.

Network: 3x3 stride-2 stem conv (1 -> W channels, BN, ReLU; the stride keeps CPU training cheap:
the blocks see 16x16, 8x8, 4x4 maps), three stages of `blocks` basic blocks at widths
W, 2W, 4W (stride 1, 2, 2 at each stage's first block; 1x1 conv + BN projection shortcut when the
shape changes), global average pooling and a linear layer to 10 classes. Input (N, 1, 32, 32).

A variant changes the two 3x3 convs of every basic block ("block convs") and may spatially
bottleneck the stem; the shortcuts and the classifier never change. Each block is described by a
BlockSpec:
  conv1, conv2  the kind of each block conv: ("dense",), ("group", G), ("depthwise",) (groups =
                input channels, channel multiplier cout / cin), ("seq2", U, G): the paper's Seq2 --
                the first cout / U output channels are a dense conv, the rest a group(G) conv,
                computed as two parallel convs whose outputs are concatenated on the channel axis;
                ("separable",): depthwise 3x3 followed by a dense 1x1 conv (no BN in between);
                ("seq3", P): nasc's seq3(P) -- the output rows split into P strips, each its own
                conv with its own weights reading the input rows it needs (StripConv);
  bottleneck    B: conv1's output channels shrink from cout to cout / B, conv2's input follows;
  spatial       S: nasc's spatial_bottleneck(S) of conv1 -- its stride times S, then nearest
                upsampling by S after bn1 and ReLU. S must divide conv1's output extents: 16, 8
                and 4 rows and columns in the three stages, so S = 2 and 4 apply to every stage;
  spatial2      the same for conv2, its upsampling after bn2 (before the shortcut's Add: nasc
                places the Resize past the BN and unary ops that read the conv).
A Variant is the BlockSpecs of every block plus the stem's spatial_bottleneck factor (its Resize
after the stem's BN and ReLU; 1 = unchanged).
Exported as ONNX opset 13, spatial_bottleneck's upsampling is a Resize (nearest, asymmetric, floor)
and a seq3 strip is a Slice of the input rows, then a Conv with the rows' zero padding in its pads.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

DENSE = ("dense",)


class BlockSpec:
    """The neural transformation applied to one basic block (see the module docstring)."""

    def __init__(self, conv1=DENSE, conv2=DENSE, bottleneck=1, spatial=1, spatial2=1):
        self.conv1, self.conv2, self.bottleneck = conv1, conv2, bottleneck
        self.spatial, self.spatial2 = spatial, spatial2


class Variant:
    """A network variant: one BlockSpec per basic block and the stem's spatial_bottleneck factor."""

    def __init__(self, blocks, stem_spatial=1):
        self.blocks, self.stem_spatial = blocks, stem_spatial


def expansion(factor):
    """Nearest upsampling by `factor` (spatial_bottleneck's Resize), or nothing when it is 1."""
    return nn.Upsample(scale_factor=factor, mode="nearest") if factor > 1 else nn.Identity()


class Seq2Conv(nn.Module):
    """Seq2 (peel then group): cout // dense_fraction dense output channels, the rest group(G)."""

    def __init__(self, cin, cout, stride, dense_fraction, groups):
        super().__init__()
        peeled = cout // dense_fraction
        self.dense = nn.Conv2d(cin, peeled, 3, stride, 1, bias=False)
        self.grouped = nn.Conv2d(cin, cout - peeled, 3, stride, 1, groups=groups, bias=False)

    def forward(self, x):
        return torch.cat([self.dense(x), self.grouped(x)], dim=1)


class _RowPaddedConv(torch.autograd.Function):
    """conv2d(x zero-padded by `top` / `bottom` rows, 3x3 `weight`, `stride`, column padding 1),
    exported as one ONNX Conv with pads [top, 1, bottom, 1]: nasc imports no Pad op."""

    @staticmethod
    def forward(ctx, x, weight, stride, top, bottom):
        return F.conv2d(F.pad(x, (0, 0, top, bottom)), weight, stride=stride, padding=(0, 1))

    @staticmethod
    def symbolic(g, x, weight, stride, top, bottom):
        return g.op("Conv", x, weight, kernel_shape_i=[3, 3], strides_i=[stride, stride],
                    pads_i=[top, 1, bottom, 1], dilations_i=[1, 1], group_i=1)


class StripConv(nn.Module):
    """seq3(P) of a 3x3, padding-1 conv of stride s (the shape of nasc's seq3, as StripConv in
    tools/mutate_check.py with a stride): output rows [a, b) of strip i = [i, i + 1) * OH / P are
    computed by the strip's own conv from rows [a*s, (b-1)*s + 3) of the input zero-padded by one
    row on top and bottom. Those rows are sliced from the unpadded input (clipped to it) and the
    clipped part becomes the strip conv's row padding. OH must be a multiple of P."""

    def __init__(self, cin, cout, stride, strips):
        super().__init__()
        self.stride = stride
        self.strips = nn.ModuleList(nn.Conv2d(cin, cout, 3, stride, (0, 1), bias=False)
                                    for _ in range(strips))

    def forward(self, x):
        height = int(x.shape[2])
        out_rows = (height - 1) // self.stride + 1
        assert out_rows % len(self.strips) == 0, f"{len(self.strips)} strips, {out_rows} rows"
        rows, outputs = out_rows // len(self.strips), []
        for i, strip in enumerate(self.strips):
            first, end = i * rows * self.stride - 1, ((i + 1) * rows - 1) * self.stride + 2
            lo, hi = max(0, first), min(height, end)
            if torch.onnx.is_in_onnx_export():
                outputs.append(_RowPaddedConv.apply(x[:, :, lo:hi], strip.weight, self.stride,
                                                    lo - first, end - hi))
            else:
                outputs.append(strip(F.pad(x[:, :, lo:hi], (0, 0, lo - first, end - hi))))
        return torch.cat(outputs, 2)


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
    if name == "seq3":
        return StripConv(cin, cout, stride, kind[1])
    raise ValueError(f"unknown conv kind {kind}")


class BasicBlock(nn.Module):
    """ResNet basic block (He et al. 2016) whose two 3x3 convs are transformed by `spec`; `size`
    is the side of its (square) input."""

    def __init__(self, cin, cout, stride, spec, size):
        super().__init__()
        mid = cout // spec.bottleneck
        out_size = (size - 1) // stride + 1
        for factor in (spec.spatial, spec.spatial2):
            assert out_size % factor == 0, f"spatial {factor} vs {out_size} output rows"
        self.conv1 = make_conv(spec.conv1, cin, mid, stride * spec.spatial)
        self.bn1 = nn.BatchNorm2d(mid)
        self.expand = expansion(spec.spatial)
        self.conv2 = make_conv(spec.conv2, mid, cout, spec.spatial2)
        self.bn2 = nn.BatchNorm2d(cout)
        self.expand2 = expansion(spec.spatial2)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.expand(torch.relu(self.bn1(self.conv1(x))))
        out = self.expand2(self.bn2(self.conv2(out)))
        return torch.relu(out + self.shortcut(x))


class SmallResNet(nn.Module):
    """CIFAR-style ResNet with 3 stages of `blocks` basic blocks at widths w, 2w, 4w; `variant`
    gives one BlockSpec per block (3 * blocks of them, in order) and the stem's spatial factor."""

    def __init__(self, variant, width=16, blocks=1, classes=10):
        super().__init__()
        specs, stem = variant.blocks, variant.stem_spatial
        assert len(specs) == 3 * blocks and 16 % stem == 0
        self.stem = nn.Sequential(nn.Conv2d(1, width, 3, 2 * stem, 1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU(), expansion(stem))
        layers, cin, size = [], width, 16
        for stage in range(3):
            cout = width << stage
            for b in range(blocks):
                stride = 2 if stage > 0 and b == 0 else 1
                layers.append(BasicBlock(cin, cout, stride, specs[stage * blocks + b], size))
                cin, size = cout, (size - 1) // stride + 1
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        out = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(out, 1), 1))


def variant_specs(blocks):
    """{variant name: Variant} for a network of 3 stages of `blocks` blocks."""
    n = 3 * blocks

    def every(**kw):
        return [BlockSpec(**kw) for _ in range(n)]

    def both(kind, bottleneck=1):
        return every(conv1=kind, conv2=kind, bottleneck=bottleneck)

    depthwise = ("depthwise",)
    block_variants = {
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
        "spatial2": every(spatial=2),
        "seq3_2": every(conv1=("seq3", 2)),
        "spatial4": every(spatial=4),
        "spatial2_both": every(spatial=2, spatial2=2),
        "spatial4_both": every(spatial=4, spatial2=4),
    }
    variants = {name: Variant(specs) for name, specs in block_variants.items()}
    variants["stem_spatial2"] = Variant(every(), stem_spatial=2)
    variants["stem_spatial4"] = Variant(every(), stem_spatial=4)
    return variants


def build(variant, width, blocks, seed):
    """The variant's network with PyTorch's default initialisation under torch.manual_seed(seed)."""
    torch.manual_seed(seed)
    return SmallResNet(variant, width, blocks)


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
