"""Writes model.onnx, input_0.pb and output_0.pb: a tiny ResNet (stem conv+BN+ReLU, max pool,
a standalone BN, one basic block with a strided 1x1 downsample, global average pool, linear)
exported by PyTorch in eval mode with its BatchNormalization nodes kept, and PyTorch's own
output as the expected value.
Run with Debian's /usr/bin/python3 (torch 1.13, onnx 1.12)."""
import torch
import torch.nn as nn
from onnx import numpy_helper

torch.manual_seed(7)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.down(x))


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, 1, 1, bias=False), nn.BatchNorm2d(4), nn.ReLU())
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.pool_bn = nn.BatchNorm2d(4)
        self.block = Block(4, 8, 2)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = self.block(self.pool_bn(self.pool(self.stem(x))))
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


model = TinyResNet()
for m in model.modules():
    if isinstance(m, nn.BatchNorm2d):
        m.running_mean.uniform_(-0.5, 0.5)
        m.running_var.uniform_(0.5, 1.5)
        m.weight.data.uniform_(0.5, 1.5)
        m.bias.data.uniform_(-0.5, 0.5)
model.eval()
x = torch.randn(2, 3, 12, 12)
with torch.no_grad():
    y = model(x)
torch.onnx.export(model, x, "model.onnx", opset_version=13, input_names=["input"],
                  output_names=["logits"], do_constant_folding=False,
                  training=torch.onnx.TrainingMode.PRESERVE)
for name, t in (("input_0.pb", x), ("output_0.pb", y)):
    with open(name, "wb") as f:
        f.write(numpy_helper.from_array(t.numpy()).SerializeToString())
