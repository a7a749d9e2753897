#!/usr/bin/python3
"""PyTorch reference values of the Fisher Potential for nasc's tests (test/nas, docs/capacity.md).

For each model it writes, under --out:
  <model>.onnx        the model with its weights (opset 13, do_constant_folding=False, exported
                      from eval mode with TrainingMode.PRESERVE so BatchNormalization nodes stay)
  <model>_input.npy   the float32 Fashion-MNIST batch it was evaluated on (N, C, H, W)
  <model>.json        {"total": X, "layers": {"<ONNX Conv output name>": value, ...}}
  <model>_proxies.json {"grad_norm"|"snip"|"synflow"|"jacob_cov": {"total": X, "layers": {...}}}
Models: cifar_resnet18 (CIFAR-style ResNet-18: 3x3 stem, no max-pool, 10 classes, base width
--cifar-width, input 16x3x32x32) and torchvision_resnet18 (torchvision's resnet18, 1000
classes, input 8x3x64x64). Weights: PyTorch's default initialisation under torch.manual_seed(seed),
then every BatchNorm's weight and bias drawn uniformly from [0.5, 1.5) and [-0.5, 0.5).

Fisher Potential (Theis et al. 2018; BlockSwap): model in train mode (BN uses batch statistics),
L = CrossEntropyLoss (mean) of the logits against the labels; for each Conv, a = the output of the
BatchNorm it feeds (or its own output), g = dL/da; Δ_c = 1/(2N) Σ_n (Σ_{h,w} a g)², layer = Σ_c Δ_c.
Other zero-cost proxies (Abdelfattah et al. 2021, github.com/SamsungLabs/zero-cost-nas, restricted
to Conv layers): grad_norm = ||dL/dW||_2 and snip = Σ|W ⊙ dL/dW| from the same training step;
synflow = Σ|W ⊙ dR/dW| with BatchNorms removed (the reference's bn=False copy), every parameter
replaced by its absolute value, float64, input all ones (1, C, H, W), R = Σ output (written
linear; nasc reports ln synflow, and its tests compare it with the ln of these values); jacob_cov is
NASWOT's hook_logdet (Mellor et al. 2021): c = (x > 0) of every ReLU application over the batch,
K = Σ c c^T + (1 - c)(1 - c)^T, score = log|det K| ("layers" empty).
Data: the first N Fashion-MNIST training images (Debian's dataset-fashion-mnist), p/255, normalised
with mean 0.2860 and std 0.3530, zero-padded centred to H x W (centre-cropped when smaller),
replicated over the C channels; labels modulo the class count.
Run with Debian's /usr/bin/python3 (torch 1.13).

Example: tools/fisher_reference.py --out /tmp/fisher
"""
import argparse
import copy
import gzip
import json
import os

import numpy as np
import onnx
import torch
import torch.nn as nn
import torchvision

FASHION_DIR = "/usr/share/datasets/fashion-mnist"
SIDE = 28


def read_idx(path, count, header_bytes):
    """The first `count` data bytes of a gzipped IDX file."""
    if not os.path.exists(path):
        raise SystemExit(f"{path}: not found (install Debian's dataset-fashion-mnist)")
    with gzip.open(path, "rb") as f:
        data = f.read(header_bytes + count)
    return np.frombuffer(data[header_bytes:], dtype=np.uint8)


def centre_offset(size):
    """Output index o reads source index o - offset (pad when size >= 28, else crop)."""
    return (size - SIDE) // 2 if size >= SIDE else -((SIDE - size) // 2)


def fashion_batch(shape, classes):
    """Images (N, C, H, W) float32 and int64 labels, preprocessed as nasc's FashionMnist.cpp."""
    n, c, h, w = shape
    pixels = read_idx(f"{FASHION_DIR}/train-images-idx3-ubyte.gz", n * SIDE * SIDE, 16)
    labels = read_idx(f"{FASHION_DIR}/train-labels-idx1-ubyte.gz", n, 8).astype(np.int64)
    raw = torch.from_numpy(pixels.reshape(n, SIDE, SIDE).astype(np.float32))
    normalised = (raw / np.float32(255.0) - np.float32(0.2860)) / np.float32(0.3530)
    images = torch.zeros((n, h, w), dtype=torch.float32)
    top, left = centre_offset(h), centre_offset(w)
    for y in range(h):
        for x in range(w):
            sy, sx = y - top, x - left
            if 0 <= sy < SIDE and 0 <= sx < SIDE:
                images[:, y, x] = normalised[:, sy, sx]
    return images.unsqueeze(1).repeat(1, c, 1, 1).contiguous(), torch.from_numpy(labels % classes)


class BasicBlock(nn.Module):
    """ResNet basic block (He et al. 2016) with a 1x1 projection shortcut when shapes change."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class CifarResNet18(nn.Module):
    """CIFAR-style ResNet-18: 3x3 stem, no max-pool, stages of 2 blocks at width w, 2w, 4w, 8w."""

    def __init__(self, channels, width, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, width, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        blocks, cin = [], width
        for stage, cout in enumerate([width, 2 * width, 4 * width, 8 * width]):
            for b in range(2):
                blocks.append(BasicBlock(cin, cout, 2 if stage > 0 and b == 0 else 1))
                cin = cout
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        out = self.layers(torch.relu(self.bn1(self.conv1(x))))
        out = nn.functional.adaptive_avg_pool2d(out, 1)
        return self.fc(torch.flatten(out, 1))


def randomize_batchnorm(model, generator):
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            with torch.no_grad():
                module.weight.copy_(torch.rand(module.num_features, generator=generator) + 0.5)
                module.bias.copy_(torch.rand(module.num_features, generator=generator) - 0.5)


def fisher_layers(model, images, labels):
    """Per-Conv Fisher Potential (in the order the Convs run) and the Conv modules in that order."""
    convs, activations, owner = [], [], {}

    def conv_hook(module, inputs, output):
        copy = output.clone()
        owner[id(copy)] = len(convs)
        convs.append(module)
        activations.append(output)
        keep.append(copy)
        return copy

    def bn_hook(module, inputs, output):
        index = owner.get(id(inputs[0]))
        if index is None:
            return None
        copy = output.clone()
        activations[index] = output
        keep.append(copy)
        return copy

    keep = []
    hooks = [m.register_forward_hook(conv_hook) for m in model.modules()
             if isinstance(m, nn.Conv2d)]
    hooks += [m.register_forward_hook(bn_hook) for m in model.modules()
              if isinstance(m, nn.BatchNorm2d)]
    codes = []
    hooks += [m.register_forward_hook(lambda m, i, o: codes.append(o.detach() > 0))
              for m in model.modules() if isinstance(m, nn.ReLU)]
    functional_relu = torch.relu
    torch.relu = lambda x: record_relu(functional_relu(x), codes)
    model.train()
    model.zero_grad()
    try:
        logits = model(images)
    finally:
        torch.relu = functional_relu
    for a in activations:
        a.retain_grad()
    nn.CrossEntropyLoss()(logits, labels).backward()
    for h in hooks:
        h.remove()
    values = []
    for a in activations:
        inner = (a.detach().double() * a.grad.double()).sum(dim=(2, 3))
        values.append(float((inner.pow(2).sum(dim=0) / (2 * a.shape[0])).sum()))
    gradients = {
        "grad_norm": [float(c.weight.grad.double().norm()) for c in convs],
        "snip": [float((c.weight.detach().double() * c.weight.grad.double()).abs().sum())
                 for c in convs],
    }
    return convs, values, gradients, naswot(codes)


def record_relu(output, codes):
    codes.append(output.detach() > 0)
    return output


def naswot(codes):
    """NASWOT hook_logdet: log|det K|, K = Σ over ReLU applications of c c^T + (1-c)(1-c)^T."""
    kernel = 0
    for c in codes:
        x = c.reshape(c.shape[0], -1).double()
        kernel = kernel + x @ x.t() + (1 - x) @ (1 - x).t()
    return float(torch.linalg.slogdet(kernel)[1])


def synflow(model, shape):
    """Per-Conv Σ|W ⊙ dR/dW| of a float64, BN-free, |parameter| copy on an all-ones input."""
    net = copy.deepcopy(model)
    for parent in list(net.modules()):
        for child_name, child in parent.named_children():
            if isinstance(child, nn.BatchNorm2d):
                setattr(parent, child_name, nn.Identity())
    with torch.no_grad():
        for param in net.parameters():
            param.abs_()
    net.double().zero_grad()
    convs = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    order = []
    hooks = [m.register_forward_hook(lambda m, i, o: order.append(m)) for m in convs]
    torch.sum(net(torch.ones([1] + list(shape[1:]), dtype=torch.float64))).backward()
    for h in hooks:
        h.remove()
    return [float((c.weight.detach() * c.weight.grad).abs().sum()) for c in order]


def onnx_conv_outputs(path, convs):
    """Output names of the ONNX Conv nodes, checked against the PyTorch Convs' weight shapes."""
    graph = onnx.load(path).graph
    weights = {t.name: tuple(t.dims) for t in graph.initializer}
    nodes = [n for n in graph.node if n.op_type == "Conv"]
    if len(nodes) != len(convs):
        raise SystemExit(f"{path}: {len(nodes)} Conv nodes, PyTorch ran {len(convs)} Convs")
    for node, conv in zip(nodes, convs):
        if weights.get(node.input[1]) != tuple(conv.weight.shape):
            raise SystemExit(f"{path}: Conv '{node.name}' does not match the PyTorch order")
    return [n.output[0] for n in nodes]


def run(name, model, shape, classes, out_dir, seed):
    randomize_batchnorm(model, torch.Generator().manual_seed(seed))
    images, labels = fashion_batch(shape, classes)
    stem = os.path.join(out_dir, name)
    model.eval()
    torch.onnx.export(model, images, stem + ".onnx", opset_version=13, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["input"], output_names=["logits"])
    synflow_values = synflow(model, shape)
    convs, values, gradients, logdet = fisher_layers(model, images, labels)
    names = onnx_conv_outputs(stem + ".onnx", convs)
    np.save(stem + "_input.npy", images.numpy())
    result = {"total": sum(values), "layers": dict(zip(names, values))}
    with open(stem + ".json", "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    gradients["synflow"] = synflow_values
    proxies = {k: {"total": sum(v), "layers": dict(zip(names, v))} for k, v in gradients.items()}
    proxies["jacob_cov"] = {"total": logdet, "layers": {}}
    with open(stem + "_proxies.json", "w") as f:
        json.dump(proxies, f, indent=1)
        f.write("\n")
    print(f"wrote {stem}.onnx, {stem}_input.npy, {stem}.json (total {result['total']:.9g}), "
          f"{stem}_proxies.json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output directory (created if missing)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the weights")
    parser.add_argument("--cifar-width", type=int, default=32, help="base width of cifar_resnet18")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    run("cifar_resnet18", CifarResNet18(3, args.cifar_width), (16, 3, 32, 32), 10, args.out,
        args.seed)
    torch.manual_seed(args.seed)
    run("torchvision_resnet18", torchvision.models.resnet18(weights=None), (8, 3, 64, 64), 1000,
        args.out, args.seed)


if __name__ == "__main__":
    main()
