#!/usr/bin/python3
"""Checks tools/train_eval.py (ctests train_eval_forward, train_eval_training and
train_eval_refusals in test/CMakeLists.txt), one check per verb:

forward:  ONNX models written by `nasc mutate` from models/cifar_resnet18.json (steps group,
          bottleneck, depthwise, seq1, seq2, seq3 and spatial_bottleneck, so Concat on channels
          and rows, Slice, asymmetric Conv pads and Resize appear), from a small DenseNet
          (tools/make_cifar_spec.py's densenet_spec: Concat, AveragePool) and from a small ResNet
          with the ImageNet stem (make_resnet_spec.py's resnet_spec: MaxPool). Every float
          initializer gets seeded random values (He-normal weights, BN scale and variance in
          [0.5, 1.5], biases and means small normals, so that a misplaced parameter shows),
          written back with the onnx package. Then for each: `nasc run` and train_eval.OnnxNet
          in eval mode (float64) on one seeded input agree to 1e-4 relative to the output's
          largest magnitude; OnnxNet's parameter count is `nasc inspect --stage cost`'s; after
          train_eval.reinit (--reinit) every Conv weight of at least 1000 values has the
          standard deviation sqrt(2 / fan_out) of nasc's InitWeights.h within 5%.
training: `train_eval.py --reinit` on a small DenseNet (written by `nasc mutate`), 4096
          training images, 2 epochs, 1000 test images: the JSON line says 4096 / 1000 images
          and a test accuracy >= 60% (chance is 10%; seeds 0, 1, 3 gave 74.1, 71.4, 71.5%, seed
          3 with shuffled training labels 7.6%); two identical short runs (512 images, 1 epoch)
          print the same accuracy and loss (deterministic on the CPU).
refusals: models made with onnx.helper holding an unsupported op (Sigmoid) or a Resize of mode
          linear make train_eval.py exit 1 with one error line naming the file, the node and
          the op.

Usage: tools/train_eval_check.py forward|training|refusals --out DIR [--nasc build/tools/nasc]
"""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper
import torch

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
import make_cifar_spec  # noqa: E402
import make_resnet_spec  # noqa: E402
import train_eval  # noqa: E402

SEED = 5
RESNET18_STEPS = ["layer1.0.conv1:group(4)", "layer1.1.conv1:bottleneck(2)",
                  "layer2.0.conv2:depthwise", "layer2.1.conv1:seq1(1,2)",
                  "layer3.0.conv1:seq2(64,4)", "layer3.1.conv1:seq3(2)",
                  "layer4.0.conv1:spatial_bottleneck(2)"]


def nasc_mutate(nasc, spec, steps, path):
    """Writes `spec` (a JSON model spec object) beside `path` and `nasc mutate` of it with
    `steps` (fresh He weights) to the ONNX file `path`."""
    spec_path = path[:-len(".onnx")] + ".json"
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    command = [nasc, "mutate", spec_path, "-o", path]
    for step in steps:
        command += ["--apply", step]
    subprocess.run(command, check=True, capture_output=True, text=True)
    return path


def randomize(path, generator):
    """Rewrites the float initializers of the ONNX file with seeded values (module comment),
    each by its role in its first reader."""
    model = onnx.load(path)
    roles = {}
    for node in model.graph.node:
        for position, name in enumerate(node.input):
            roles.setdefault(name, (node.op_type, position))
    for index, initializer in enumerate(model.graph.initializer):
        array = onnx.numpy_helper.to_array(initializer)
        if array.dtype != np.float32 or initializer.name not in roles:
            continue
        op, position = roles[initializer.name]
        if op == "Resize":
            continue
        if op == "BatchNormalization" and position in (1, 4):
            value = 0.5 + torch.rand(array.shape, generator=generator)
        elif array.ndim > 1:
            fan_in = array.size // array.shape[0] if op == "Conv" else array.shape[1]
            value = torch.randn(array.shape, generator=generator) * (2.0 / fan_in) ** 0.5
        else:
            value = 0.1 * torch.randn(array.shape, generator=generator)
        model.graph.initializer[index].CopyFrom(
            onnx.numpy_helper.from_array(value.numpy().astype(np.float32), initializer.name))
    onnx.save(model, path)


def nasc_parameters(nasc, path):
    """The parameter count of `nasc inspect PATH --stage cost`."""
    text = subprocess.run([nasc, "inspect", path, "--stage", "cost"], check=True,
                          capture_output=True, text=True).stdout
    return int(re.search(r"^total .* (\d+) parameters$", text, re.M).group(1))


def forward_models(nasc, out):
    """The ONNX files of the forward check (module comment), by name."""
    cifar18 = os.path.join(ROOT, "models", "cifar_resnet18.json")
    with open(cifar18) as f:
        resnet18 = json.load(f)
    densenet = make_cifar_spec.densenet_spec("densenet_small", [2, 2, 2, 2], 8)
    imagenet_stem = make_resnet_spec.resnet_spec("resnet_imagenet_stem", "train_eval_check", 64,
                                                 10, [1, 1, 1, 1], True)
    return {
        "cifar_resnet18_mutated": nasc_mutate(nasc, resnet18, RESNET18_STEPS,
                                              os.path.join(out, "cifar_resnet18_mutated.onnx")),
        "densenet_small": nasc_mutate(nasc, densenet, ["dense2.0.conv2:group(2)"],
                                      os.path.join(out, "densenet_small.onnx")),
        "resnet_imagenet_stem": nasc_mutate(nasc, imagenet_stem, ["layer2.0.conv1:group(2)"],
                                            os.path.join(out, "resnet_imagenet_stem.onnx")),
    }


def reinit_errors(net):
    """Conv weights whose standard deviation after train_eval.reinit is not sqrt(2 / fan_out)
    within 5% (those of at least 1000 values)."""
    torch.manual_seed(SEED)
    train_eval.reinit(net)
    errors = []
    for name, module in net.named_modules():
        if isinstance(module, torch.nn.Conv2d) and module.weight.numel() >= 1000:
            fan_out = module.weight.shape[0] * module.weight[0, 0].numel()
            ratio = float(module.weight.std()) / (2.0 / fan_out) ** 0.5
            if abs(ratio - 1) > 0.05:
                errors.append("%s: weight std / sqrt(2 / fan_out) = %.3f" % (name, ratio))
    return errors


def check_forward(args):
    """The forward check (module comment); returns the failures."""
    generator = torch.Generator().manual_seed(SEED)
    failures = []
    for name, path in forward_models(args.nasc, args.out).items():
        randomize(path, generator)
        net = train_eval.OnnxNet(onnx.load(path).graph).eval()
        x = torch.randn(net.input_shape, generator=generator)
        input_path, output_path = (os.path.join(args.out, name + suffix)
                                   for suffix in (".in.npy", ".out.npy"))
        np.save(input_path, x.numpy())
        subprocess.run([args.nasc, "run", path, "-i", input_path, "-o", output_path],
                       check=True, capture_output=True, text=True)
        with torch.no_grad():
            want = net.double()(x.double()).numpy()
        got = np.load(output_path)
        error = float(np.abs(got - want).max() / np.abs(want).max())
        params, nasc_params = sum(p.numel() for p in net.parameters()), nasc_parameters(
            args.nasc, path)
        print("%s: nasc run vs OnnxNet: max |difference| / max |output| = %.2e; parameters "
              "%d (nasc inspect %d)" % (name, error, params, nasc_params))
        if got.shape != want.shape or not error <= 1e-4:
            failures.append("%s: output differs from nasc run (%.2e relative)" % (name, error))
        if params != nasc_params:
            failures.append("%s: %d parameters, nasc inspect %d" % (name, params, nasc_params))
        failures += ["%s: %s" % (name, e) for e in reinit_errors(net.float())]
    return failures


def train_eval_run(path, options):
    """The finished train_eval.py process on `path` with `options`."""
    return subprocess.run([sys.executable, os.path.join(TOOLS, "train_eval.py"), path] + options,
                          capture_output=True, text=True)


def trained(path, options):
    """The JSON line of train_eval.py on `path` with `options`, its output printed; SystemExit
    when it fails."""
    process = train_eval_run(path, options)
    print(process.stdout, end="")
    if process.returncode != 0:
        raise SystemExit("train_eval.py exited %d: %s" % (process.returncode, process.stderr))
    return json.loads(process.stdout.splitlines()[-1])


def check_training(args):
    """The training check (module comment); returns the failures."""
    densenet = make_cifar_spec.densenet_spec("densenet_small", [2, 2, 2, 2], 8)
    path = nasc_mutate(args.nasc, densenet, ["dense2.0.conv2:group(2)"],
                       os.path.join(args.out, "densenet_small.onnx"))
    result = trained(path, ["--reinit", "--train-subset", "4096", "--epochs", "2",
                            "--test-subset", "1000", "--seed", "3", "--threads", "1"])
    failures = []
    if (result["train_images"], result["test_images"]) != (4096, 1000):
        failures.append("images %d / %d, asked for 4096 / 1000"
                        % (result["train_images"], result["test_images"]))
    if not result["test_accuracy"] >= 60:
        failures.append("test accuracy %.2f%% < 60%%" % result["test_accuracy"])
    short = ["--reinit", "--train-subset", "512", "--epochs", "1", "--test-subset", "500",
             "--seed", "4", "--threads", "1"]
    first, second = trained(path, short), trained(path, short)
    if (first["test_accuracy"], first["train_loss"]) != (second["test_accuracy"],
                                                          second["train_loss"]):
        failures.append("two identical runs differ: %s and %s" % (first, second))
    return failures


def refused_model(path, node):
    """Writes an ONNX model x (1, 3, 32, 32) -> Conv -> `node` -> GlobalAveragePool ->
    Flatten -> Gemm -> logits (1, 10) reading the conv's output "c" and writing "a"."""
    rng = np.random.default_rng(SEED)
    weights = [onnx.numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
               for name, shape in (("w", (8, 3, 3, 3)), ("fc.w", (10, 8)))]
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         node,
         onnx.helper.make_node("GlobalAveragePool", ["a"], ["g"], name="pool"),
         onnx.helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
         onnx.helper.make_node("Gemm", ["f", "fc.w"], ["logits"], name="fc", transB=1)],
        "refused", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                                       [1, 3, 32, 32])],
        [onnx.helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, [1, 10])],
        weights + [onnx.numpy_helper.from_array(np.array([1, 1, 1, 1], np.float32), "scales")])
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 13)]),
              path)
    return path


def check_refusals(args):
    """The refusals check (module comment); returns the failures."""
    cases = {
        "sigmoid": (onnx.helper.make_node("Sigmoid", ["c"], ["a"], name="act"),
                    "node 'act' (Sigmoid): op not supported"),
        "linear_resize": (onnx.helper.make_node("Resize", ["c", "", "scales"], ["a"],
                                                name="up", mode="linear"),
                          "node 'up' (Resize): attribute 'mode' = 'linear' is not supported"),
    }
    failures = []
    for name, (node, want) in cases.items():
        path = refused_model(os.path.join(args.out, name + ".onnx"), node)
        process = train_eval_run(path, [])
        lines = process.stderr.splitlines()
        print("%s: exit %d: %s" % (name, process.returncode, process.stderr.strip()))
        prefix = "train_eval.py: error: %s: %s" % (path, want)
        if process.returncode != 1 or len(lines) != 1 or not lines[0].startswith(prefix):
            failures.append("%s: want exit 1 and one line starting \"%s\"" % (name, prefix))
    return failures


def main():
    """Runs the check named on the command line; exit 1 listing the failures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("check", choices=["forward", "training", "refusals"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--nasc", help="the nasc binary (forward, training)")
    args = parser.parse_args()
    if args.check != "refusals" and not args.nasc:
        parser.error("%s needs --nasc" % args.check)
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    checks = {"forward": check_forward, "training": check_training, "refusals": check_refusals}
    failures = checks[args.check](args)
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
