#!/usr/bin/python3
"""Checks nasc's synflow against PyTorch in float64 on a network whose float32 values overflow (a
ctest, test/CMakeLists.txt: synflow_matches_pytorch_resnet34).

1. `nasc mutate MODEL --apply STEP --weights init` writes the model (by default the built-in CIFAR
   ResNet-34, models/cifar_resnet34.json, one conv grouped) as ONNX with seeded He weights.
2. `nasc fisher --proxy synflow --weights model --json` measures its synflow (as natural logs).
3. This script runs the ONNX graph itself in PyTorch, float64 (Conv, BatchNormalization removed as
   synflow does, Relu, Add, Concat, MaxPool, AveragePool, GlobalAveragePool, Flatten, Gemm), with
   |parameters| on an all-ones input of batch 1, R = sum of the output, and computes per Conv
   sum |W * dR/dW| (Tanaka et al. 2020; Abdelfattah et al. 2021 compute it in double).
4. Every layer and the total must agree to 1e-4 in ln (nasc's ln against the ln of PyTorch's
   value, about 1e-4 relative); the log10 of the total is printed.

Usage: tools/synflow_check.py --nasc build/tools/nasc --out /tmp/synflow [--model M --apply S]
"""
import argparse
import json
import math
import os
import subprocess

import onnx
import onnx.numpy_helper
import torch
import torch.nn.functional as F


def attributes(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def pads_of(attrs):
    pads = list(attrs.get("pads", [0, 0, 0, 0]))
    if pads[0] != pads[2] or pads[1] != pads[3]:
        raise SystemExit("asymmetric pads are not handled")
    return pads[:2]


def run(model, weights, x):
    """The ONNX graph in float64 on `x`, BatchNormalization as the identity."""
    values = dict(weights)
    values[model.graph.input[0].name] = x
    for node in model.graph.node:
        a, ins = attributes(node), [values[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Conv":
            y = F.conv2d(ins[0], ins[1], ins[2] if len(ins) > 2 else None,
                         stride=list(a.get("strides", [1, 1])), padding=pads_of(a),
                         dilation=list(a.get("dilations", [1, 1])), groups=a.get("group", 1))
        elif op in ("BatchNormalization", "Identity", "Dropout"):
            y = ins[0]
        elif op == "Relu":
            y = F.relu(ins[0])
        elif op == "Add":
            y = ins[0] + ins[1]
        elif op == "Concat":
            y = torch.cat(ins, dim=a.get("axis", 1))
        elif op == "MaxPool":
            y = F.max_pool2d(ins[0], list(a["kernel_shape"]), list(a.get("strides", [1, 1])),
                             pads_of(a))
        elif op == "AveragePool":
            y = F.avg_pool2d(ins[0], list(a["kernel_shape"]), list(a.get("strides", [1, 1])),
                             pads_of(a), count_include_pad=bool(a.get("count_include_pad", 0)))
        elif op == "GlobalAveragePool":
            y = ins[0].mean(dim=(2, 3), keepdim=True)
        elif op == "Flatten":
            y = torch.flatten(ins[0], a.get("axis", 1))
        elif op == "Gemm":
            b = ins[1].t() if a.get("transB", 0) else ins[1]
            y = a.get("alpha", 1.0) * ins[0] @ b
            if len(ins) > 2:
                y = y + a.get("beta", 1.0) * ins[2]
        else:
            raise SystemExit("op %s is not handled" % op)
        values[node.output[0]] = y
    return values[model.graph.output[0].name]


def synflow(path):
    model = onnx.load(path)
    weights = {t.name: torch.tensor(onnx.numpy_helper.to_array(t), dtype=torch.float64).abs()
               .requires_grad_() for t in model.graph.initializer}
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    run(model, weights, torch.ones([1] + shape[1:], dtype=torch.float64)).sum().backward()
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    return {n.output[0]: float((weights[n.input[1]] * weights[n.input[1]].grad).abs().sum())
            for n in convs}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser()
    parser.add_argument("--nasc", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--model", default=os.path.join(root, "models", "cifar_resnet34.json"))
    parser.add_argument("--apply", default="layer2.1.conv1:group(2)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    onnx_path = os.path.join(args.out, "synflow_model.onnx")
    subprocess.run([args.nasc, "mutate", args.model, "--apply", args.apply, "-o", onnx_path],
                   check=True, stdout=subprocess.DEVNULL)
    got = json.loads(subprocess.run(
        [args.nasc, "fisher", onnx_path, "--proxy", "synflow", "--weights", "model", "--json"],
        check=True, capture_output=True, text=True).stdout)
    want = synflow(onnx_path)
    # nasc prints ln synflow (per layer and total); PyTorch's float64 values are linear, so the
    # comparison is on ln: an absolute error e in ln is a relative error of about e.
    worst = max(abs(got["layers"][k] - math.log(v)) for k, v in want.items())
    total = math.log(sum(want.values()))
    error = abs(got["total"] - total)
    print("ln synflow: nasc %.9f, PyTorch float64 %.9f (log10 %.3f); error in ln: total %.2e, "
          "worst of %d layers %.2e" % (got["total"], total, total / math.log(10), error,
                                      len(want), worst))
    if set(got["layers"]) != set(want) or worst > 1e-4 or error > 1e-4:
        raise SystemExit("synflow: nasc and PyTorch disagree")


if __name__ == "__main__":
    main()
