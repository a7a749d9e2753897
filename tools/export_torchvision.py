#!/usr/bin/python3
"""Exports torchvision CNNs with seeded random weights to ONNX, with an input and PyTorch's output.

For each model and input shape it writes, under --out:
  <model>_<shape>.onnx         opset 13, do_constant_folding=False; BatchNormalization stays a
                               separate node (TrainingMode.PRESERVE on the eval-mode model skips
                               the exporter's Conv+BN fusion, so nasc's own BN folding is tested)
  <model>_<shape>_input.npy    the float32 input, uniform in [-1, 1)
  <model>_<shape>_output.npy   PyTorch's float32 output (model in eval mode)
Weights are torchvision's initialisation under torch.manual_seed(seed); every BatchNorm's
weight, bias, running_mean and running_var are then randomised from the same seed so that BN
folding is tested with non-trivial statistics. Run with Debian's /usr/bin/python3 (torch 1.13).

Example: tools/export_torchvision.py --models resnet18 --shape 1x3x224x224 --out /tmp/tv
"""
import argparse
import os

import numpy as np
import torch
import torchvision

MODELS = ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
          "resnext101_32x8d", "wide_resnet50_2", "mobilenet_v2", "cifar_resnet18",
          "cifar_resnet34")

# CIFAR forms (Turner et al. 2021, the BlockSwap code; models/cifar_resnet34.json): the
# torchvision ResNet of the same depth with a 3x3 stride-1 stem conv of 64 channels, no maxpool
# and 10 classes; run at 1x3x32x32.
CIFAR_PREFIX = "cifar_"


def parse_shape(text):
    """'2x3x224x224' -> (2, 3, 224, 224); argparse error on anything else."""
    try:
        dims = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"shape '{text}' is not like 1x3x224x224")
    if len(dims) != 4 or min(dims) <= 0:
        raise argparse.ArgumentTypeError(f"shape '{text}' must be 4 positive sizes NxCxHxW")
    return dims


def randomize_batchnorm(model, generator):
    """Random BN affine parameters and running statistics (variance kept in [0.5, 1.5))."""
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            channels = module.num_features
            with torch.no_grad():
                module.weight.copy_(torch.rand(channels, generator=generator) + 0.5)
                module.bias.copy_(torch.rand(channels, generator=generator) - 0.5)
                module.running_mean.copy_(0.2 * (torch.rand(channels, generator=generator) - 0.5))
                module.running_var.copy_(torch.rand(channels, generator=generator) + 0.5)


def build_model(name, seed):
    """torchvision model `name` (or its CIFAR form) with seeded random weights, in eval mode."""
    torch.manual_seed(seed)
    if name.startswith(CIFAR_PREFIX):
        model = getattr(torchvision.models, name[len(CIFAR_PREFIX):])(weights=None, num_classes=10)
        model.conv1 = torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        model.maxpool = torch.nn.Identity()
    else:
        model = getattr(torchvision.models, name)(weights=None)
    randomize_batchnorm(model, torch.Generator().manual_seed(seed))
    return model.eval()


def export(name, shape, out_dir, seed):
    """Writes the .onnx, input and output files of one model at one input shape."""
    model = build_model(name, seed)
    generator = torch.Generator().manual_seed(seed)
    x = torch.rand(shape, generator=generator, dtype=torch.float32) * 2 - 1
    with torch.no_grad():
        y = model(x)
    stem = os.path.join(out_dir, f"{name}_{'x'.join(map(str, shape))}")
    torch.onnx.export(model, x, stem + ".onnx", opset_version=13, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["input"], output_names=["output"])
    np.save(stem + "_input.npy", x.numpy().astype(np.float32))
    np.save(stem + "_output.npy", y.numpy().astype(np.float32))
    print(f"wrote {stem}.onnx, {stem}_input.npy, {stem}_output.npy")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated subset of " + ", ".join(MODELS))
    parser.add_argument("--shape", action="append", type=parse_shape,
                        help="input shape NxCxHxW (repeatable; default 1x3x224x224)")
    parser.add_argument("--out", required=True, help="output directory (created if missing)")
    parser.add_argument("--seed", type=int, default=0, help="seed of weights and input")
    args = parser.parse_args()
    models = [m for m in args.models.split(",") if m]
    for m in models:
        if m not in MODELS:
            parser.error(f"unknown model '{m}' (choose from {', '.join(MODELS)})")
    os.makedirs(args.out, exist_ok=True)
    for m in models:
        for shape in args.shape or [(1, 3, 224, 224)]:
            export(m, shape, args.out, args.seed)


if __name__ == "__main__":
    main()
