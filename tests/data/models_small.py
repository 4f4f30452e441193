"""The small hand-written models of the first fixtures (see gen.py).

Each MODELS row is (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol).
"""

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class SinCos(nn.Module):  # torch.export tutorial, first example
    def forward(self, x, y):
        return torch.sin(x) + torch.cos(y)


class ConvModule(nn.Module):  # torch.export tutorial, in-place add of a kwarg
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3)

    def forward(self, x, constant=None):
        a = self.conv(x)
        a.add_(constant)
        return self.maxpool(self.relu(a))


class Branches(nn.Module):  # torch.export tutorial's two-branch model, buffer registered
    def __init__(self):
        super().__init__()
        self.branch1 = nn.Sequential(nn.Linear(64, 32), nn.ReLU())
        self.branch2 = nn.Sequential(nn.Linear(128, 64), nn.ReLU())
        self.register_buffer("buffer", torch.ones(32))

    def forward(self, x1, x2):
        out1 = self.branch1(x1)
        out2 = self.branch2(x2)
        return (out1 + self.buffer, out2)


def conv3x3(cin, cout, stride=1):
    return nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = conv3x3(cin, cout, stride)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(cout, cout)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class ResNetSmall(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = conv3x3(3, 8)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, num_classes)
        with torch.no_grad():  # non-trivial eval-mode batch-norm statistics
            for m in self.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.5, 0.5)
                    m.running_var.uniform_(0.5, 1.5)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


class UnsupportedOp(nn.Module):  # ops with no kernel: bessel_j0 (twice), i1
    def forward(self, x):
        return torch.special.bessel_j0(x) + torch.special.bessel_j0(x * 0.5) + torch.special.i1(x)


class CondOnData(nn.Module):
    """torch.cond on a data-dependent predicate (a 0-dim bool tensor); the branches use a
    parameter, a buffer and different ops (a different number of them), and return two
    tensors."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 8))

    def forward(self, x, y):
        def positive(x, y):
            return torch.relu(self.fc(x)) * self.scale + y, x.sum(0)

        def otherwise(x, y):
            return torch.tanh(x - y) / self.scale, x.amax(0)

        return torch.cond(x.sum(dim=(0, 1)) > 0, positive, otherwise, (x, y))

    def branches_taken(self, x, y):  # torch's predicate values, recorded for the tests
        return [bool(x.sum() > 0)]


class CondOnDim(nn.Module):
    """torch.cond on a dynamic dim (batch > 4), with a data-dependent cond nested in the
    false branch; export with Dim("batch")."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.register_buffer("shift", torch.linspace(-1, 1, 4))

    def forward(self, x):
        def big(x):
            return torch.relu(self.fc(x)) + self.shift

        def small(x):
            def positive(x):
                return torch.sigmoid(self.fc(x)) * 2

            def otherwise(x):
                return self.fc(x).view(x.shape[0], 2, 2).sum(-1).repeat(1, 2) - self.shift

            return torch.cond(x.mean(dim=(0, 1)) > 0, positive, otherwise, (x,))

        return torch.cond(x.shape[0] > 4, big, small, (x,))

    def branches_taken(self, x):  # torch's predicate values, outermost first
        return [True] if x.shape[0] > 4 else [False, bool(x.mean() > 0)]


def randn(gen, *shape):
    return torch.randn(*shape, generator=gen)


# (name, module class, seed, inputs(generator) -> (args, kwargs), rtol = atol)
MODELS = [
    ("mlp", MLP, 1, lambda g: ((randn(g, 4, 16),), {}), 1e-5),
    ("sincos", SinCos, 2, lambda g: ((randn(g, 10, 10), randn(g, 10, 10)), {}), 1e-5),
    ("conv_constant", ConvModule, 3,
     lambda g: ((randn(g, 1, 3, 32, 32),), {"constant": randn(g, 1, 16, 32, 32)}), 1e-5),
    ("branches", Branches, 4, lambda g: ((randn(g, 8, 64), randn(g, 8, 128)), {}), 1e-5),
    ("resnet_small", ResNetSmall, 5, lambda g: ((randn(g, 2, 3, 32, 32),), {}), 1e-5),
    ("unsupported_op", UnsupportedOp, 6,
     lambda g: ((torch.rand(3, 5, generator=g) * 0.9 + 0.05,), {}), 1e-5),
    # One program, two fixtures: the same weights and draws, shifted so that torch.cond
    # takes the true branch in the first and the false branch in the second.
    ("cond_true", CondOnData, 8, lambda g: ((randn(g, 4, 8) + 1, randn(g, 4, 8)), {}), 1e-5),
    ("cond_false", CondOnData, 8, lambda g: ((randn(g, 4, 8) - 1, randn(g, 4, 8)), {}), 1e-5),
]
# Ops of unsupported_op that kernels do exist for; everything else is "unsupported".
UNSUPPORTED_MODEL_SUPPORTED_OPS = {"aten::add.Tensor", "aten::mul.Tensor"}
