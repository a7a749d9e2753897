#!/usr/bin/env python3
"""Writes a nasc JSON model spec (docs/model-spec.md) of a CIFAR network other than a ResNet,
structure only, every weight a seeded initializer, input 1x3x32x32, output "logits" 1x10:
  resnext29_2x64d (models/resnext29_2x64d.json): the CIFAR ResNeXt-29 of Xie et al. 2017 with
                  cardinality 2 and bottleneck width 64, in kuangliu/pytorch-cifar's form
                  (models/resnext.py) with the paper's 3x3 stem: a 3x3 stride-1 conv of 64
                  channels + BN + ReLU; 3 stages of 3 bottleneck blocks (stage strides 1, 2, 2,
                  group widths 128, 256, 512, block outputs twice that: 256, 512, 1024);
                  a block is conv1x1-BN-ReLU, grouped conv3x3 (group 2, the block's stride)-BN-ReLU,
                  conv1x1-BN, + identity or a 1x1 projection conv + BN where the shape changes,
                  ReLU; global average pool, linear. 9.1 M params.
  densenet121     (models/densenet121.json): kuangliu/pytorch-cifar's DenseNet121
                  (models/densenet.py): growth 32, dense blocks [6, 12, 24, 16];
  densenet161     (models/densenet161.json): its DenseNet161, growth 48, blocks [6, 12, 36, 24].
                  Both: a 3x3 stride-1 stem conv of 2*growth channels (no BN, no maxpool); a
                  dense layer is BN-ReLU-conv1x1 (4*growth)-BN-ReLU-conv3x3 (growth), its output
                  concatenated before its input (torch.cat([out, x], 1)); a transition is
                  BN-ReLU-conv1x1 (floor(channels / 2))-AveragePool 2x2 stride 2; the head is
                  BN-ReLU-global average pool (the 4x4 avg_pool2d of the reference)-linear.

Parameter names follow the reference modules' state_dict (conv1, layer1.0.conv2,
layer1.0.shortcut.0, dense1.0.bn1, trans1.conv, linear, ...). Convs have no bias; BN, Gemm and
the weights are as in tools/make_resnet_spec.py, whose SpecBuilder this script uses.

Usage: python3 tools/make_cifar_spec.py [resnext29_2x64d|densenet121|densenet161] [output.json]
       (default: resnext29_2x64d to models/<name>.json)
"""
import sys

from make_resnet_spec import SpecBuilder, write_spec


def resnext_block(b, prefix, x, in_channels, group_width, cardinality, stride):
    """kuangliu's ResNeXt Block; returns (output, its channels = 2 * group_width)."""
    out_channels = 2 * group_width
    y = b.conv(prefix + ".conv1", x, in_channels, group_width, 1, 1, 0)
    y = b.relu(prefix + ".relu1", b.batch_norm(prefix + ".bn1", y, group_width))
    y = b.conv(prefix + ".conv2", y, group_width, group_width, 3, stride, 1, cardinality)
    y = b.relu(prefix + ".relu2", b.batch_norm(prefix + ".bn2", y, group_width))
    y = b.conv(prefix + ".conv3", y, group_width, out_channels, 1, 1, 0)
    y = b.batch_norm(prefix + ".bn3", y, out_channels)
    shortcut = x
    if stride != 1 or in_channels != out_channels:
        shortcut = b.conv(prefix + ".shortcut.0", x, in_channels, out_channels, 1, stride, 0)
        shortcut = b.batch_norm(prefix + ".shortcut.1", shortcut, out_channels)
    y = b.relu(prefix + ".relu3", b.node(prefix + ".add", "Add", [y, shortcut]))
    return y, out_channels


def resnext29_spec(name, cardinality, bottleneck_width, classes=10):
    """CIFAR ResNeXt-29 (3 stages of 3 blocks), the bottleneck width doubling per stage."""
    b = SpecBuilder()
    x = b.conv("conv1", "input", 3, 64, 3, 1, 1)
    x = b.relu("relu", b.batch_norm("bn1", x, 64))
    channels = 64
    for layer, stride in enumerate([1, 2, 2], 1):
        group_width = cardinality * bottleneck_width * 2 ** (layer - 1)
        for block in range(3):
            x, channels = resnext_block(b, "layer%d.%d" % (layer, block), x, channels,
                                        group_width, cardinality, stride if block == 0 else 1)
    doc = ("CIFAR ResNeXt-29 %dx%dd (3x3 stem, 10 classes), seeded He-normal weights; generated "
           "by tools/make_cifar_spec.py %s" % (cardinality, bottleneck_width, name))
    return b.spec(name, doc, 32, b.classifier(x, channels, classes, "linear"))


def bn_relu_conv(b, prefix, x, channels, bn, conv, out_channels, kernel):
    """BN `bn`, ReLU, then the stride-1 'same' conv `conv` (both named under `prefix`)."""
    y = b.relu(prefix + "." + bn + "_relu", b.batch_norm(prefix + "." + bn, x, channels))
    return b.conv(prefix + "." + conv, y, channels, out_channels, kernel, 1, kernel // 2)


def dense_layer(b, prefix, x, channels, growth):
    """kuangliu's DenseNet Bottleneck: `growth` new channels concatenated before `x`."""
    y = bn_relu_conv(b, prefix, x, channels, "bn1", "conv1", 4 * growth, 1)
    y = bn_relu_conv(b, prefix, y, 4 * growth, "bn2", "conv2", growth, 3)
    return b.node(prefix + ".cat", "Concat", [y, x], {"axis": 1})


def transition(b, prefix, x, channels, out_channels):
    """BN-ReLU-conv1x1 to `out_channels`, then 2x2 average pooling of stride 2."""
    y = bn_relu_conv(b, prefix, x, channels, "bn", "conv", out_channels, 1)
    return b.node(prefix + ".pool", "AveragePool", [y], {"kernel_shape": [2, 2],
                                                         "strides": [2, 2]})


def densenet_spec(name, blocks, growth, classes=10):
    """kuangliu's CIFAR DenseNet with `blocks` dense layers per dense block, reduction 0.5."""
    b = SpecBuilder()
    channels = 2 * growth
    x = b.conv("conv1", "input", 3, channels, 3, 1, 1)
    for stage, count in enumerate(blocks, 1):
        for layer in range(count):
            x = dense_layer(b, "dense%d.%d" % (stage, layer), x, channels, growth)
            channels += growth
        if stage < len(blocks):
            x = transition(b, "trans%d" % stage, x, channels, channels // 2)
            channels //= 2
    x = b.relu("relu", b.batch_norm("bn", x, channels))
    doc = ("CIFAR DenseNet (kuangliu/pytorch-cifar %s: growth %d, blocks %s, 10 classes), seeded "
           "He-normal weights; generated by tools/make_cifar_spec.py %s"
           % (name.replace("densenet", "DenseNet"), growth, blocks, name))
    return b.spec(name, doc, 32, b.classifier(x, channels, classes, "linear"))


SPECS = {
    "resnext29_2x64d": lambda: resnext29_spec("resnext29_2x64d", 2, 64),
    "densenet121": lambda: densenet_spec("densenet121", [6, 12, 24, 16], 32),
    "densenet161": lambda: densenet_spec("densenet161", [6, 12, 36, 24], 48),
}

if __name__ == "__main__":
    write_spec(SPECS, "resnext29_2x64d", sys.argv)
