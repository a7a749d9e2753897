#!/usr/bin/python3
"""PyTorch reference of nasc's short-training proxy (compiler/nas/ShortTraining.h) for its tests.

Writes under --out (committed as test/data/capacity/):
  tiny_sgd.json           a nasc JSON model spec with inline weights: x (N, 1, 6, 6) -> Conv 1->4
                          3x3 pad 1 (bias) -> BatchNorm -> Relu -> Conv 4->4 3x3 stride 2 pad 1
                          (no bias) -> BatchNorm -> Relu -> GlobalAveragePool -> Flatten -> Gemm
                          (transB = 1, bias) -> logits (N, 3)
  tiny_sgd_expected.json  {"batch", "steps", "lr", "images": {"shape", "data"}, "labels",
                          "losses": [loss of each step], "weights": {name: final values}}
The net is trained with plain SGD (torch.optim.SGD, lr, no momentum) for `steps` steps, step i on
images [i*batch, (i+1)*batch): model in train mode (BN with batch statistics, biased variance),
CrossEntropyLoss (mean); the loss of a step is the one its forward pass computes before the
update. Trained: the Conv weights and the Linear weight and bias; fixed (requires_grad False):
the Conv bias and the BN weight and bias, as nasc trains them. Weights, BN parameters, images and
labels are drawn with torch.manual_seed(seed); float32 throughout.
Run with Debian's /usr/bin/python3 (torch 1.13).

Example: tools/short_training_reference.py --out test/data/capacity
"""
import argparse
import json
import os

import torch
import torch.nn as nn


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1, bias=True)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(x)))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def tensor_entry(name, t):
    return {"name": name, "shape": list(t.shape), "data": [float(v) for v in t.flatten()]}


def spec(model, batch):
    """The nasc JSON spec of `model` with its current weights inline."""
    bn = lambda k: {"name": f"bn{k}", "op_type": "BatchNormalization",
                    "inputs": [f"c{k}", f"bn{k}.weight", f"bn{k}.bias", f"bn{k}.mean",
                               f"bn{k}.var"],
                    "outputs": [f"b{k}"], "attributes": {"epsilon": 1e-5}}
    nodes = [
        {"name": "conv1", "op_type": "Conv", "inputs": ["x", "conv1.weight", "conv1.bias"],
         "outputs": ["c1"], "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
        bn(1),
        {"name": "relu1", "op_type": "Relu", "inputs": ["b1"], "outputs": ["r1"]},
        {"name": "conv2", "op_type": "Conv", "inputs": ["r1", "conv2.weight"], "outputs": ["c2"],
         "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2]}},
        bn(2),
        {"name": "relu2", "op_type": "Relu", "inputs": ["b2"], "outputs": ["r2"]},
        {"name": "gap", "op_type": "GlobalAveragePool", "inputs": ["r2"], "outputs": ["g"]},
        {"name": "flat", "op_type": "Flatten", "inputs": ["g"], "outputs": ["f"]},
        {"name": "fc", "op_type": "Gemm", "inputs": ["f", "fc.weight", "fc.bias"],
         "outputs": ["logits"], "attributes": {"transB": 1}},
    ]
    inits = [tensor_entry(name, p.detach()) for name, p in model.named_parameters()]
    for k in (1, 2):
        inits.append(tensor_entry(f"bn{k}.mean", torch.zeros(4)))
        inits.append(tensor_entry(f"bn{k}.var", torch.ones(4)))
    return {"name": "tiny_sgd", "opset": 13,
            "doc_string": "tools/short_training_reference.py",
            "inputs": [{"name": "x", "shape": [batch, 1, 6, 6]}], "outputs": ["logits"],
            "nodes": nodes, "initializers": inits}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    model = Tiny()
    with torch.no_grad():
        model.conv1.bias.uniform_(-0.5, 0.5)
        for bn in (model.bn1, model.bn2):
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.5, 0.5)
    for p in (model.conv1.bias, model.bn1.weight, model.bn1.bias, model.bn2.weight,
              model.bn2.bias):
        p.requires_grad_(False)
    images = torch.randn(args.batch * args.steps, 1, 6, 6)
    labels = torch.randint(0, 3, (args.batch * args.steps,))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "tiny_sgd.json"), "w") as f:
        json.dump(spec(model, args.batch), f)
    model.train()
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=args.lr)
    losses = []
    for i in range(args.steps):
        batch = slice(i * args.batch, (i + 1) * args.batch)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(images[batch]), labels[batch])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    expected = {"batch": args.batch, "steps": args.steps, "lr": args.lr,
                "images": {"shape": list(images.shape),
                           "data": [float(v) for v in images.flatten()]},
                "labels": [int(v) for v in labels], "losses": losses,
                "weights": {name: [float(v) for v in p.detach().flatten()]
                            for name, p in model.named_parameters()}}
    with open(os.path.join(args.out, "tiny_sgd_expected.json"), "w") as f:
        json.dump(expected, f)
    print("losses", " ".join(f"{v:.6f}" for v in losses))


if __name__ == "__main__":
    main()
