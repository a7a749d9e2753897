#!/usr/bin/python3
"""Trains a nasc ONNX architecture on Fashion-MNIST and prints its test accuracy (issue #13 item
4, docs/accuracy.md).

The network is built as a PyTorch module from the ONNX file itself (OnnxNet): one submodule per
node, run in the file's order, initialised from the file's initializers, so that it computes
what the file says (tools/train_eval_check.py compares it with `nasc run`); --reinit draws fresh
He-normal weights instead, by the rule of nasc's InitWeights.h (Conv: fan_out, Gemm: fan_in,
BatchNormalization scale 1, bias 0, mean 0, variance 1). The ops are those of the models nasc
writes (`nasc mutate`, `nasc search`'s model.onnx) from its built-in specs: Conv (2-D, any
group, strides, pads, dilations), BatchNormalization, Relu, Add, Concat, MaxPool, AveragePool,
GlobalAveragePool, Flatten, Gemm, Slice (seq3's strips) and Resize (spatial_bottleneck's
nearest upsampling). Any other op or attribute value is an error naming the node (exit 1).

Data: Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist, gzipped IDX files), the
first --train-subset training and --test-subset test images, preprocessed as nasc's
compiler/nas/FashionMnist.h: pixel p -> (p / 255 - 0.2860) / 0.3530, centred in the model's
input H x W (at least 28) by zero padding after normalisation (28 -> 32 for the CIFAR models),
repeated over its C channels; the model's output must be (N, 10) logits.

Training recipe: the CIFAR recipe of BlockSwap (Turner et al., ICLR 2020; blockswap/train.py of
github.com/jack-willturner/blockswap-without-teachers), whose Fisher Potential nasc's capacity
gate measures: SGD, learning rate 0.1 annealed to 0 by a cosine, momentum 0.9, weight decay 5e-4
on every parameter, batch 128, cross-entropy. Changed here: Nesterov momentum (as in
docs/capacity.md's validation), the cosine stepped per batch instead of per epoch, no data
augmentation, --epochs epochs instead of 200. The data order is torch.randperm seeded by --seed,
as is --reinit; on the CPU a run is deterministic for a seed and a --threads value
(torch.use_deterministic_algorithms).

Output: a line per epoch (mean training loss, seconds), then one JSON line: {"model", "reinit",
"seed", "epochs", "batch", "lr", "threads", "device", "parameters", "train_images",
"test_images", "train_loss", "test_accuracy" (percent), "seconds" (training and testing)}.

Run with Debian's /usr/bin/python3 (python3-torch 1.13, python3-onnx, python3-numpy).
Example: tools/train_eval.py out/model.onnx --reinit --epochs 3 --train-subset 10000 --threads 1
"""
import argparse
import gzip
import inspect
import json
import math
import os
import struct
import sys
import time

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F
from google.protobuf.message import DecodeError

FASHION_DIR = "/usr/share/datasets/fashion-mnist"
CLASSES = 10


class Error(Exception):
    """An error for the user: one line, exit status 1."""


class BuildError(Error):
    """A node the builder does not support, with the reason."""

    def __init__(self, node, reason):
        super().__init__("node '%s' (%s): %s" % (node.name, node.op_type, reason))


def attributes(node, defaults):
    """The node's attributes as Python values over `defaults` (name -> default value); an
    attribute not in `defaults` is a BuildError."""
    values = dict(defaults)
    for attribute in node.attribute:
        if attribute.name not in defaults:
            raise BuildError(node, "attribute '%s' is not supported" % attribute.name)
        value = onnx.helper.get_attribute_value(attribute)
        values[attribute.name] = value.decode() if isinstance(value, bytes) else value
    return values


def require(node, attrs, name, allowed):
    """BuildError unless attribute `name` has one of the `allowed` values."""
    if attrs[name] not in allowed:
        raise BuildError(node, "attribute '%s' = %r is not supported (only %s)"
                         % (name, attrs[name], " or ".join(repr(a) for a in allowed)))


def symmetric_pads(node, pads):
    """ONNX 2-D pads [top, left, bottom, right] as PyTorch's (top, left); BuildError when the
    beginning and end differ."""
    pads = list(pads)
    if pads[:2] != pads[2:]:
        raise BuildError(node, "asymmetric pads %s are not supported" % pads)
    return tuple(pads[:2])


def tensor(array):
    """A float32 torch tensor copied from a NumPy array."""
    return torch.from_numpy(np.array(array, dtype=np.float32))


class Conv(nn.Conv2d):
    """ONNX Conv (2-D): nn.Conv2d, with asymmetric pads applied by F.pad before it."""

    def __init__(self, node, weight, bias):
        attrs = attributes(node, {"kernel_shape": None, "strides": [1, 1],
                                  "pads": [0, 0, 0, 0], "dilations": [1, 1], "group": 1,
                                  "auto_pad": "NOTSET"})
        require(node, attrs, "auto_pad", ["NOTSET"])
        if weight.ndim != 4:
            raise BuildError(node, "only 2-D convolutions are supported (weight of rank %d)"
                             % weight.ndim)
        if attrs["kernel_shape"] is not None and list(attrs["kernel_shape"]) != list(
                weight.shape[2:]):
            raise BuildError(node, "kernel_shape %s differs from the weight's %s"
                             % (list(attrs["kernel_shape"]), list(weight.shape[2:])))
        pads = list(attrs["pads"])
        symmetric = pads[:2] == pads[2:]
        super().__init__(weight.shape[1] * attrs["group"], weight.shape[0], weight.shape[2:],
                         stride=tuple(attrs["strides"]),
                         padding=tuple(pads[:2]) if symmetric else 0,
                         dilation=tuple(attrs["dilations"]), groups=attrs["group"],
                         bias=bias is not None)
        self.explicit_pads = None if symmetric else (pads[1], pads[3], pads[0], pads[2])
        with torch.no_grad():
            self.weight.copy_(tensor(weight))
            if bias is not None:
                self.bias.copy_(tensor(bias))

    def forward(self, x):
        """The convolution of x (N, C, H, W)."""
        if self.explicit_pads is not None:
            x = F.pad(x, self.explicit_pads)
        return super().forward(x)


def build_conv(node, weight, bias=None):
    """Conv X, W[, B]."""
    return Conv(node, weight, bias)


def build_batch_norm(node, scale, bias, mean, var):
    """BatchNormalization X, scale, B, mean, var: nn.BatchNorm2d with PyTorch's momentum = 1 -
    ONNX's (ONNX: running = momentum * running + (1 - momentum) * batch)."""
    attrs = attributes(node, {"epsilon": 1e-5, "momentum": 0.9})
    module = nn.BatchNorm2d(len(scale), eps=attrs["epsilon"], momentum=1.0 - attrs["momentum"])
    with torch.no_grad():
        module.weight.copy_(tensor(scale))
        module.bias.copy_(tensor(bias))
        module.running_mean.copy_(tensor(mean))
        module.running_var.copy_(tensor(var))
    return module


def build_gemm(node, b, c=None):
    """Gemm A, B[, C] with alpha = beta = 1 and transA = 0: nn.Linear of weight B (transB = 1) or
    B transposed."""
    attrs = attributes(node, {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0})
    for name, value in (("alpha", 1.0), ("beta", 1.0), ("transA", 0)):
        require(node, attrs, name, [value])
    weight = b if attrs["transB"] else b.T
    if c is not None and c.size != weight.shape[0]:
        raise BuildError(node, "bias C of shape %s is not one value per output" % list(c.shape))
    module = nn.Linear(weight.shape[1], weight.shape[0], bias=c is not None)
    with torch.no_grad():
        module.weight.copy_(tensor(weight))
        if c is not None:
            module.bias.copy_(tensor(c.reshape(-1)))
    return module


def build_relu(node):
    """Relu X."""
    attributes(node, {})
    return nn.ReLU()


def pool_window(node, extra):
    """The kernel, strides, pads and ceil_mode of a 2-D MaxPool / AveragePool, with the op's
    `extra` attributes (name -> default)."""
    attrs = attributes(node, dict({"kernel_shape": None, "strides": [1, 1], "pads": [0, 0, 0, 0],
                                   "ceil_mode": 0, "auto_pad": "NOTSET"}, **extra))
    require(node, attrs, "auto_pad", ["NOTSET"])
    if attrs["kernel_shape"] is None or len(attrs["kernel_shape"]) != 2:
        raise BuildError(node, "only 2-D pooling with kernel_shape is supported")
    return (attrs, tuple(attrs["kernel_shape"]), tuple(attrs["strides"]),
            symmetric_pads(node, attrs["pads"]))


def build_max_pool(node):
    """MaxPool X (one output, no Indices)."""
    attrs, kernel, strides, pads = pool_window(node, {"dilations": [1, 1], "storage_order": 0})
    return nn.MaxPool2d(kernel, strides, pads, dilation=tuple(attrs["dilations"]),
                        ceil_mode=bool(attrs["ceil_mode"]))


def build_average_pool(node):
    """AveragePool X."""
    attrs, kernel, strides, pads = pool_window(node, {"count_include_pad": 0})
    return nn.AvgPool2d(kernel, strides, pads, ceil_mode=bool(attrs["ceil_mode"]),
                        count_include_pad=bool(attrs["count_include_pad"]))


class GlobalAveragePool(nn.Module):
    """ONNX GlobalAveragePool: the mean over every axis after the second, kept as size 1."""

    def forward(self, x):
        """x (N, C, ...) -> (N, C, 1, ...)."""
        return x.mean(dim=tuple(range(2, x.dim())), keepdim=True)


def build_global_average_pool(node):
    """GlobalAveragePool X."""
    attributes(node, {})
    return GlobalAveragePool()


class Flatten(nn.Module):
    """ONNX Flatten: (d0 ... d(axis-1), d(axis) ...) -> 2-D (product before axis, the rest)."""

    def __init__(self, axis):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        """x flattened to 2-D at self.axis (negative counts from the end)."""
        axis = self.axis % x.dim() if self.axis < 0 else self.axis
        return x.reshape(math.prod(x.shape[:axis]), -1)


def build_flatten(node):
    """Flatten X."""
    return Flatten(attributes(node, {"axis": 1})["axis"])


class Add(nn.Module):
    """ONNX Add (NumPy broadcasting, as torch's)."""

    def forward(self, a, b):
        """a + b."""
        return a + b


def build_add(node):
    """Add A, B."""
    attributes(node, {})
    return Add()


class Concat(nn.Module):
    """ONNX Concat along one axis."""

    def __init__(self, axis):
        super().__init__()
        self.axis = axis

    def forward(self, *xs):
        """The inputs joined along self.axis."""
        return torch.cat(xs, self.axis)


def build_concat(node):
    """Concat X... (attribute axis)."""
    attrs = attributes(node, {"axis": None})
    if attrs["axis"] is None:
        raise BuildError(node, "attribute 'axis' is missing")
    return Concat(attrs["axis"])


class Slice(nn.Module):
    """ONNX Slice with positive steps: Python slices per axis, which clamp and count negative
    starts and ends from the end as ONNX does."""

    def __init__(self, ranges):
        super().__init__()
        self.ranges = ranges

    def forward(self, x):
        """x restricted to self.ranges, a list of (axis, start, end, step)."""
        index = [slice(None)] * x.dim()
        for axis, start, end, step in self.ranges:
            index[axis] = slice(start, end, step)
        return x[tuple(index)]


def build_slice(node, starts, ends, axes=None, steps=None):
    """Slice X, starts, ends[, axes[, steps]] (opset 10-13 form), steps positive."""
    attributes(node, {})
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    if any(step <= 0 for step in steps):
        raise BuildError(node, "only positive steps are supported (steps %s)" % list(steps))
    return Slice([(int(a), int(s), int(e), int(t)) for a, s, e, t in zip(axes, starts, ends,
                                                                              steps)])


class Resize(nn.Module):
    """ONNX Resize, nearest, asymmetric, floor, integer scales: each axis repeated scale times."""

    def __init__(self, scales):
        super().__init__()
        self.scales = scales

    def forward(self, x):
        """x with every element of axis a repeated self.scales[a] times."""
        for axis, scale in enumerate(self.scales):
            if scale != 1:
                x = x.repeat_interleave(scale, dim=axis)
        return x


def build_resize(node, roi=None, scales=None, sizes=None):
    """Resize X, roi, scales as nasc's spatial_bottleneck writes it: mode nearest,
    coordinate_transformation_mode asymmetric, nearest_mode floor, whole-number scales, no
    sizes (the roi is then unused)."""
    attrs = attributes(node, {"mode": "nearest", "coordinate_transformation_mode": "half_pixel",
                              "nearest_mode": "round_prefer_floor"})
    require(node, attrs, "mode", ["nearest"])
    require(node, attrs, "coordinate_transformation_mode", ["asymmetric"])
    require(node, attrs, "nearest_mode", ["floor"])
    if scales is None or sizes is not None:
        raise BuildError(node, "only the scales form is supported (sizes given or no scales)")
    if any(s < 1 or s != int(s) for s in scales):
        raise BuildError(node, "only whole-number scales >= 1 are supported (scales %s)"
                         % list(scales))
    return Resize([int(s) for s in scales])


OPS = {
    "Conv": (build_conv, 1),
    "BatchNormalization": (build_batch_norm, 1),
    "Gemm": (build_gemm, 1),
    "Relu": (build_relu, 1),
    "MaxPool": (build_max_pool, 1),
    "AveragePool": (build_average_pool, 1),
    "GlobalAveragePool": (build_global_average_pool, 1),
    "Flatten": (build_flatten, 1),
    "Add": (build_add, 2),
    "Concat": (build_concat, None),
    "Slice": (build_slice, 1),
    "Resize": (build_resize, 1),
}
"""Op type -> (builder, number of leading inputs computed by the graph; None: all). The other
inputs are initializers (or omitted, ""), passed to the builder as NumPy arrays (or None)."""


class OnnxNet(nn.Module):
    """The computation of an ONNX graph with one input and one output: a submodule per node (see
    OPS), run in the file's order (ONNX requires topological order)."""

    def __init__(self, graph):
        super().__init__()
        constants = {t.name: onnx.numpy_helper.to_array(t) for t in graph.initializer}
        inputs = [v for v in graph.input if v.name not in constants]
        if len(inputs) != 1 or len(graph.output) != 1:
            raise Error("the model must have one input and one output (it has %d and %d)"
                        % (len(inputs), len(graph.output)))
        self.input, self.output = inputs[0].name, graph.output[0].name
        self.input_shape = [d.dim_value for d in inputs[0].type.tensor_type.shape.dim]
        self.layers = nn.ModuleList()
        self.wiring = []
        available = {self.input}
        for node in graph.node:
            data = self.node_inputs(node, constants, available)
            self.wiring.append((data, node.output[0]))
            available.add(node.output[0])
        if self.output not in available:
            raise Error("no node writes the graph output '%s'" % self.output)

    def node_inputs(self, node, constants, available):
        """Builds the node's submodule (appended to self.layers) and returns the names of its
        inputs computed by the graph; BuildError for an op outside OPS or inputs that do not
        fit it."""
        if node.op_type not in OPS:
            raise BuildError(node, "op not supported (supported: %s)" % ", ".join(sorted(OPS)))
        builder, computed = OPS[node.op_type]
        if len(node.output) != 1:
            raise BuildError(node, "%d outputs (only 1 is supported)" % len(node.output))
        count = len(node.input) if computed is None else computed
        data, params = list(node.input[:count]), list(node.input[count:])
        for name in data:
            if name not in available:
                raise BuildError(node, "input '%s' is neither the graph input nor written by an "
                                 "earlier node" % name)
        for name in params:
            if name and name not in constants:
                raise BuildError(node, "input '%s' must be an initializer" % name)
        values = [constants[p] if p else None for p in params]
        try:
            inspect.signature(builder).bind(node, *values)
        except TypeError:
            raise BuildError(node, "%d inputs do not fit the op" % len(node.input)) from None
        self.layers.append(builder(node, *values))
        return data

    def forward(self, x):
        """The graph output for the graph input x."""
        values = {self.input: x}
        for layer, (inputs, output) in zip(self.layers, self.wiring):
            values[output] = layer(*[values[name] for name in inputs])
        return values[self.output]


def reinit(net):
    """Fresh He-normal weights by nasc's InitWeights.h rule (torch's global generator)."""
    for module in net.modules():
        if isinstance(module, nn.Conv2d):
            nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Linear):
            nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.BatchNorm2d):
            module.reset_parameters()


def read_idx(path, rank):
    """The uint8 array of a gzipped IDX file of the given rank (big-endian header: two zero
    bytes, type 0x08, rank, then the rank sizes as 32-bit integers)."""
    if not os.path.exists(path):
        raise Error("%s: not found (Debian package dataset-fashion-mnist)" % path)
    with gzip.open(path, "rb") as f:
        data = f.read()
    if data[:4] != bytes([0, 0, 0x08, rank]):
        raise Error("%s: not an IDX file of uint8 with %d dimensions" % (path, rank))
    sizes = struct.unpack(">%dI" % rank, data[4:4 + 4 * rank])
    values = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank)
    if values.size != math.prod(sizes):
        raise Error("%s: %d values for sizes %s" % (path, values.size, list(sizes)))
    return values.reshape(sizes)


def load_split(split, count):
    """The first `count` (all when None) images (N, 28, 28) and labels (N,) of a Fashion-MNIST
    split, "train" or "t10k", as torch uint8 and int64 tensors."""
    images = read_idx(os.path.join(FASHION_DIR, split + "-images-idx3-ubyte.gz"), 3)
    labels = read_idx(os.path.join(FASHION_DIR, split + "-labels-idx1-ubyte.gz"), 1)
    if len(images) != len(labels) or images.shape[1:] != (28, 28):
        raise Error("%s: %s images for %d labels" % (split, list(images.shape), len(labels)))
    if count is not None and count > len(images):
        raise Error("%d %s images asked for, the split has %d" % (count, split, len(images)))
    return (torch.from_numpy(images[:count].copy()),
            torch.from_numpy(labels[:count].astype(np.int64)))


def prepare(pixels, shape):
    """uint8 images (B, 28, 28) as model input (B, C, H, W), shape = (C, H, W): normalised,
    zero-padded to H x W with floor((H - 28) / 2) rows above (the same for columns) and repeated
    over C channels (see the module comment)."""
    channels, height, width = shape
    x = (pixels.float() / 255.0 - 0.2860) / 0.3530
    top, left = (height - 28) // 2, (width - 28) // 2
    x = F.pad(x, (left, width - 28 - left, top, height - 28 - top))
    return x.unsqueeze(1).expand(-1, channels, -1, -1)


def train(net, images, labels, shape, args, device):
    """Trains `net` in place (the recipe of the module comment); prints one line per epoch and
    returns the mean loss of the last epoch."""
    steps_per_epoch = math.ceil(len(images) / args.batch)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, nesterov=True,
                                weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer,
                                                          args.epochs * steps_per_epoch)
    order = torch.Generator().manual_seed(args.seed)
    net.train()
    mean_loss = float("nan")
    for epoch in range(1, args.epochs + 1):
        start, total = time.time(), 0.0
        permutation = torch.randperm(len(images), generator=order)
        for step in range(steps_per_epoch):
            index = permutation[step * args.batch:(step + 1) * args.batch]
            x, y = prepare(images[index], shape).to(device), labels[index].to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            optimizer.step()
            schedule.step()
            total += float(loss) * len(index)
        mean_loss = total / len(images)
        print("epoch %d/%d: mean training loss %.4f, %.1f s"
              % (epoch, args.epochs, mean_loss, time.time() - start), flush=True)
    return mean_loss


def accuracy(net, images, labels, shape, batch, device):
    """Top-1 accuracy of `net` in eval mode, in percent."""
    net.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, len(images), batch):
            x = prepare(images[start:start + batch], shape).to(device)
            predicted = net(x).argmax(1).cpu()
            correct += int((predicted == labels[start:start + batch]).sum())
    return 100.0 * correct / len(images)


def input_shape(net):
    """The model input's (C, H, W); Error unless it is (N, C, H, W) with H, W >= 28 and the
    output holds CLASSES logits per image."""
    shape = net.input_shape
    if len(shape) != 4 or min(shape[1:]) < 1 or min(shape[2:]) < 28:
        raise Error("input '%s' of shape %s: expected (N, C, H, W) with H, W >= 28"
                         % (net.input, shape))
    with torch.no_grad():
        logits = net.eval()(torch.zeros([2] + shape[1:]))
    if list(logits.shape) != [2, CLASSES]:
        raise Error("output '%s' has shape %s for 2 images, expected [2, %d] logits"
                         % (net.output, list(logits.shape), CLASSES))
    return tuple(shape[1:])


def parse_args(argv):
    """The command line (see --help)."""
    parser = argparse.ArgumentParser(
        prog="train_eval.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("model", help="ONNX model (e.g. nasc search's OUT/model.onnx)")
    parser.add_argument("--reinit", action="store_true",
                        help="fresh He-normal weights (seeded by --seed) instead of the file's")
    parser.add_argument("--epochs", type=int, default=3, help="epochs (default 3)")
    parser.add_argument("--train-subset", type=int, metavar="N",
                        help="train on the first N training images (default all 60000)")
    parser.add_argument("--test-subset", type=int, metavar="N",
                        help="test on the first N test images (default all 10000)")
    parser.add_argument("--batch", type=int, default=128, help="batch size (default 128)")
    parser.add_argument("--lr", type=float, default=0.1,
                        help="initial learning rate of the cosine (default 0.1)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the data order and of --reinit (default 0)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                        help="where to train (default cpu; deterministic only on cpu)")
    args = parser.parse_args(argv)
    for name in ("epochs", "batch", "threads", "train_subset", "test_subset"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error("--%s must be at least 1" % name.replace("_", "-"))
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: PyTorch sees no CUDA device")
    return args


def load_model(path):
    """The OnnxNet of an ONNX file and its input's (C, H, W); Error naming the file."""
    try:
        graph = onnx.load(path).graph
    except (OSError, DecodeError) as error:
        raise Error("%s: not a readable ONNX model (%s)" % (path, error)) from None
    try:
        net = OnnxNet(graph)
        return net, input_shape(net)
    except Error as error:
        raise Error("%s: %s" % (path, error)) from None


def run(args):
    """Builds, trains and tests the model; returns the result object of the JSON line."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(args.device == "cpu")
    net, shape = load_model(args.model)
    if args.reinit:
        reinit(net)
    train_images, train_labels = load_split("train", args.train_subset)
    test_images, test_labels = load_split("t10k", args.test_subset)
    device = torch.device(args.device)
    net.to(device)
    start = time.time()
    loss = train(net, train_images, train_labels, shape, args, device)
    test_accuracy = accuracy(net, test_images, test_labels, shape, args.batch, device)
    return {"model": args.model, "reinit": args.reinit, "seed": args.seed,
            "epochs": args.epochs, "batch": args.batch, "lr": args.lr, "threads": args.threads,
            "device": args.device, "parameters": sum(p.numel() for p in net.parameters()),
            "train_images": len(train_images), "test_images": len(test_images),
            "train_loss": round(loss, 6), "test_accuracy": round(test_accuracy, 4),
            "seconds": round(time.time() - start, 2)}


def main(argv):
    """Entry point: exit status 0, or 1 with one error line naming the model file."""
    args = parse_args(argv)
    try:
        result = run(args)
    except Error as error:
        print("train_eval.py: error: %s" % error, file=sys.stderr)
        return 1
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
