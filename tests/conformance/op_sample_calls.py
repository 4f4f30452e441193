"""How the op suite's own samples call each op (tests/conformance/gen_op_samples.py): the ops
whose arguments a schema alone does not tell (CALLS), the nodes tir's passes make from a
sample's program (REWRITTEN), and the helpers that build their inputs.
"""

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401 (defines quantized_decomposed)
import torchao.quantization.quant_primitives  # noqa: F401 (defines torchao's affine ops)
import transformers.integrations.moe  # noqa: F401 (defines transformers::grouped_mm_fallback)

f32 = torch.float32
QD = torch.ops.quantized_decomposed
TAO = torch.ops.torchao


def rand(shape, dtype, low=-4, high=5):
    """Seeded by the caller (torch.manual_seed per case)."""
    if dtype == torch.bool:
        return torch.randint(0, 2, shape).bool()
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, dtype=dtype)
    if dtype == torch.uint8:
        low, high = max(low, 0), max(high, 1)
    return torch.randint(low, high, shape, dtype=dtype)


def positive(shape, dtype):
    if dtype.is_floating_point:
        return rand(shape, dtype).abs() + 0.5
    return rand(shape, dtype, 1, 6)


def aten(name):
    ns, rest = name.split("::")
    base, _, overload = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, ns), base), overload or "default")


def overload_of(op):
    """torch.ops' overload of a catalogue op; None for tir's own (made by tir's passes)."""
    return None if op.startswith("tir::") else aten(op)


def unused(fn):
    """A creation op with no tensor argument: the program still takes one input."""
    return lambda x: fn()


def in_unit(t):
    """rand's values, deterministically: all in [0, 1)."""
    return (t >= 0) & (t < 1)


def then_fill(fn):
    """Ops whose values torch leaves undefined (empty*): the program fills the result, so the
    graph holds the op and the outputs are deterministic."""
    return lambda *a: torch.ops.aten.fill.Scalar(fn(*a), 3)


def SCALE():
    return torch.tensor(0.05, dtype=torch.float64)


def ZERO_POINT():
    return torch.tensor(-2)


def int8_weight(rows, cols):
    """A per-output-channel int8 weight as PT2E stores it, with its scales and zero points."""
    w = torch.randint(-128, 128, (rows, cols), dtype=torch.int8)
    scales = torch.rand(rows, dtype=torch.float64) * 0.1 + 0.01
    return w, scales, torch.zeros(rows, dtype=torch.int64)


class QuantizedWeights(torch.nn.Module):
    """dequantize_per_channel of an int8 buffer (tir reads int8 only from the weights)."""

    def __init__(self):
        super().__init__()
        w, s, z = int8_weight(3, 4)
        self.register_buffer("w", w)
        self.register_buffer("s", s)
        self.register_buffer("z", z)

    def forward(self):
        return torch.ops.quantized_decomposed.dequantize_per_channel(
            self.w, self.s, self.z, 0, -128, 127, torch.int8)


class QuantizedLinear(QuantizedWeights):
    """PT2E's quantized linear (training IR): linear(dequantize_per_tensor(quantize(x)),
    dequantize_per_channel(int8 weight), bias), which tir's load-time rewrite
    (runtime/passes/quant_rewrite.h) turns into one tir::quantized_linear node."""

    def __init__(self):
        super().__init__()
        w, s, z = int8_weight(4, 5)
        self.register_buffer("w", w)
        self.register_buffer("s", s)
        self.register_buffer("z", z)
        self.register_buffer("b", torch.randn(4))

    def forward(self, x):
        qd = torch.ops.quantized_decomposed
        q = qd.quantize_per_tensor(x, 0.02, 128, 0, 255, torch.uint8)
        dx = qd.dequantize_per_tensor(q, 0.02, 128, 0, 255, torch.uint8)
        return torch.ops.aten.linear(dx, super().forward(), self.b)


def int8_values(shape, dtype):
    """int8 or uint8 values across the whole range (the extremes included)."""
    lo, hi = (0, 256) if dtype == torch.uint8 else (-128, 128)
    return torch.randint(lo, hi, shape, dtype=dtype)


class IntMmOnWeight(torch.nn.Module):
    """torchao's dynamically quantized linear's product: _int_mm of the quantized activation
    by the t() view of an int8 weight, which tir's load-time rewrite
    (runtime/passes/int_mm_rewrite.h) turns into tir::int_mm_weight."""

    def __init__(self):
        super().__init__()
        self.register_buffer("w", int8_values((8, 16), torch.int8))

    def forward(self, a):
        return torch._int_mm(a, self.w.t())


class SplitByBuffer(torch.nn.Module):
    """tensor_split by indices in a tensor that is the model's own (a buffer): its values
    are known when tir prepares the node. (By a 0-dim tensor of sections the number of
    outputs depends on its value: torch.export refuses that.)"""

    def __init__(self, f):
        super().__init__()
        self.f = f
        self.register_buffer("indices", torch.tensor([1, -2, 5]))

    def forward(self, x):
        return self.f(x, self.indices, 1)


class EvenRows(torch.nn.Module):
    def forward(self, x):
        torch._check(x.shape[0] % 2 == 0)
        return x * 2


class SizeConstrained(torch.nn.Module):
    def forward(self, x):
        torch.ops.aten.sym_constrain_range_for_size(x.shape[0], min=2, max=64)
        return x * 2


# The nodes tir's load-time passes make from a sample's program (the op is not in the
# exported graph itself).
REWRITTEN = {"tir::quantized_linear": ["aten::linear",
                                        "quantized_decomposed::dequantize_per_channel"],
             "tir::int_mm_weight": ["aten::_int_mm", "aten::t"]}


# How to call the ops whose arguments the schema alone does not tell: op -> (its overload f,
# the dtype d) -> (callable over the input tensors or module, input tensors[, export options]).
# Constants are baked into the callable.
CALLS = {
    # unary, binary
    "aten::clamp": lambda f, d: (lambda x: f(x, -1, 2), [rand((2, 3), d)]),
    "aten::div.Scalar_mode": lambda f, d: (
        lambda x: f(x, 2, rounding_mode="floor"), [rand((2, 3), d)]),
    "aten::div.Tensor_mode": lambda f, d: (
        lambda x, y: f(x, y, rounding_mode="trunc"),
        [rand((2, 3), d), positive((2, 3), d)]),
    "aten::round.decimals": lambda f, d: (
        lambda x: f(x, decimals=1), [rand((2, 3), d) * 3]),
    "aten::pow.Scalar": lambda f, d: (lambda x: f(2, x), [rand((2, 3), d)]),
    "aten::dropout": lambda f, d: (lambda x: f(x, 0.5, False), [rand((2, 3), d)]),
    "aten::dropout_": lambda f, d: (
        lambda x: f(x.clone(), 0.5, False), [rand((2, 3), d)]),
    "aten::native_dropout": lambda f, d: (
        lambda x: f(x, 0.5, False), [rand((2, 3), d)]),
    "aten::where.self": lambda f, d: (
        lambda c, x, y: f(c, x, y),
        [rand((2, 3), d), rand((2, 3), f32), rand((2, 3), f32)]),
    "aten::where.Scalar": lambda f, d: (
        lambda c: f(c, 1.5, -2.0), [rand((2, 3), d)]),
    "aten::where.ScalarOther": lambda f, d: (
        lambda c, x: f(c, x, -2.0), [rand((2, 3), d), rand((2, 3), f32)]),
    "aten::where.ScalarSelf": lambda f, d: (
        lambda c, x: f(c, 1.5, x), [rand((2, 3), d), rand((2, 3), f32)]),
    # reduction
    "aten::all.dims": lambda f, d: (lambda x: f(x, [1]), [rand((2, 3), d)]),
    "aten::any.dims": lambda f, d: (lambda x: f(x, [1]), [rand((2, 3), d)]),
    "aten::std.dim": lambda f, d: (lambda x: f(x, [1]), [rand((2, 3), d)]),
    "aten::var.dim": lambda f, d: (lambda x: f(x, [1]), [rand((2, 3), d)]),
    "aten::mean.dim": lambda f, d: (lambda x: f(x, [1]), [rand((2, 3, 4), d)]),
    "aten::sum.dim_IntList": lambda f, d: (
        lambda x: f(x, [1]), [rand((2, 3, 4), d)]),
    "aten::cumsum": lambda f, d: (lambda x: f(x, 1), [rand((2, 3), d)]),
    "aten::cumprod": lambda f, d: (lambda x: f(x, 0), [rand((3, 2), d)]),
    "aten::logcumsumexp": lambda f, d: (lambda x: f(x, 1), [rand((2, 5), d)]),
    "aten::cummax": lambda f, d: (
        lambda x: torch.cat([t.to(x.dtype).flatten() for t in f(x, 1)]),
        [torch.tensor([[1.0, 3.0, 3.0, 2.0, float("nan"), 5.0], [0.0, -1.0, 0.0, 4.0, 4.0, 1.0]],
                      dtype=d) if d.is_floating_point else rand((2, 6), d)]),
    "aten::cummin": lambda f, d: (
        lambda x: torch.cat([t.to(x.dtype).flatten() for t in f(x, 0)]), [rand((4, 3), d)]),
    "aten::count_nonzero": lambda f, d: (
        lambda x: torch.cat([f(x).reshape(1), f(x, 1), f(x, -2)]),
        [rand((3, 4), d) * (rand((3, 4), torch.int64) > 0)]),
    "aten::count_nonzero.dim_IntList": lambda f, d: (
        lambda x: torch.cat([f(x, [0, 2]), f(x, [1]).flatten()]),
        [rand((2, 3, 2), d) * (rand((2, 3, 2), torch.int64) > 0)]),
    "aten::aminmax": lambda f, d: (
        lambda x: torch.cat([f(x)[0].reshape(1), f(x)[1].reshape(1)] +
                            [t.flatten() for t in f(x, dim=1, keepdim=True)]), [rand((3, 4), d)]),
    "aten::var_mean.dim": lambda f, d: (lambda x: torch.cat(f(x, [1], False, True)),
                                        [rand((3, 4), d)]),
    "aten::std_mean.dim": lambda f, d: (lambda x: torch.cat(f(x, [0])), [rand((3, 4), d)]),
    "aten::var_mean.correction": lambda f, d: (
        lambda x: torch.cat([t.flatten() for t in f(x, [0, 2], correction=2, keepdim=True)]),
        [rand((3, 4, 2), d)]),
    "aten::std_mean.correction": lambda f, d: (
        lambda x: torch.cat([t.reshape(1) for t in f(x)]), [rand((3, 4), d)]),
    "aten::cosine_similarity": lambda f, d: (
        lambda a, b: torch.cat([f(a, b).flatten(), f(a, b[0], 0).flatten()]),
        [rand((2, 3, 4), d), rand((1, 3, 4), d)]),
    "aten::pairwise_distance": lambda f, d: (
        lambda a, b: torch.cat([f(a, b).flatten(), f(a, b, 1.5, 0.0, True).flatten(),
                                f(a, b, 0.0).flatten(), f(a, b, float("inf")).flatten()]),
        [rand((3, 4), d), rand((1, 4), d)]),
    # normalization
    "aten::batch_norm": lambda f, d: (
        lambda x, w, b, m, v: f(x, w, b, m, v, False, 0.1, 1e-5, False),
        [rand((2, 3, 2, 2), d), rand((3,), d), rand((3,), d), rand((3,), d), positive((3,), d)]),
    "aten::_native_batch_norm_legit": lambda f, d: (
        lambda x, w, b, m, v: f(x, w, b, m, v, False, 0.1, 1e-5),
        [rand((2, 3, 2, 2), d), rand((3,), d), rand((3,), d), rand((3,), d), positive((3,), d)]),
    "aten::_native_batch_norm_legit.no_stats": lambda f, d: (
        lambda x, w, b: f(x, w, b, True, 0.1, 1e-5),
        [rand((2, 3, 2, 2), d), rand((3,), d), rand((3,), d)]),
    "aten::_native_batch_norm_legit_no_training": lambda f, d: (
        lambda x, w, b, m, v: f(x, w, b, m, v, 0.1, 1e-5),
        [rand((2, 3, 2, 2), d), rand((3,), d), rand((3,), d), rand((3,), d), positive((3,), d)]),
    "aten::_native_batch_norm_legit_functional": lambda f, d: (
        lambda x, w, b, m, v: f(
            x, w, b, m, v, False, 0.1, 1e-5)[0],
        [rand((2, 3, 2, 2), d), rand((3,), d), rand((3,), d), rand((3,), d), positive((3,), d)]),
    "aten::group_norm": lambda f, d: (
        lambda x, w, b: f(x, 2, w, b), [rand((2, 4, 3), d), rand((4,), d), rand((4,), d)]),
    "aten::native_group_norm": lambda f, d: (
        lambda x, w, b: f(x, w, b, 2, 4, 3, 2, 1e-5),
        [rand((2, 4, 3), d), rand((4,), d), rand((4,), d)]),
    "aten::instance_norm": lambda f, d: (
        lambda x, w, b: f(x, w, b, None, None, True, 0.1, 1e-5, False),
        [rand((2, 3, 4), d), rand((3,), d), rand((3,), d)]),
    "aten::layer_norm": lambda f, d: (
        lambda x, w, b: f(x, [8], w, b), [rand((2, 3, 8), d), rand((8,), d), rand((8,), d)]),
    "aten::native_layer_norm": lambda f, d: (
        lambda x, w, b: f(x, [8], w, b, 1e-5),
        [rand((2, 3, 8), d), rand((8,), d), rand((8,), d)]),
    "aten::_weight_norm": lambda f, d: (
        lambda v, g: f(v, g, 0), [rand((3, 4), d), positive((3, 1), d)]),
    # softmax
    "aten::_softmax": lambda f, d: (lambda x: f(x, 1, False), [rand((2, 5), d)]),
    "aten::_log_softmax": lambda f, d: (lambda x: f(x, 1, False), [rand((2, 5), d)]),
    "aten::softmax.int": lambda f, d: (lambda x: f(x, 1), [rand((2, 5), d)]),
    "aten::log_softmax.int": lambda f, d: (lambda x: f(x, 1), [rand((2, 5), d)]),
    # linear algebra
    "aten::addmm": lambda f, d: (
        lambda b, x, w: f(b, x, w), [rand((4,), d), rand((3, 5), d), rand((5, 4), d)]),
    "aten::mm": lambda f, d: (lambda x, w: f(x, w), [rand((3, 5), d), rand((5, 4), d)]),
    "aten::bmm": lambda f, d: (lambda x, w: f(x, w), [rand((2, 3, 5), d), rand((2, 5, 4), d)]),
    "aten::baddbmm": lambda f, d: (
        lambda b, x, w: f(b, x, w, beta=0.5, alpha=2.0),
        [rand((2, 3, 4), d), rand((2, 3, 5), d), rand((2, 5, 4), d)]),
    "aten::matmul": lambda f, d: (lambda x, w: f(x, w), [rand((2, 3, 5), d), rand((5, 4), d)]),
    "aten::linear": lambda f, d: (
        lambda x, w, b: f(x, w, b), [rand((2, 3, 5), d), rand((4, 5), d), rand((4,), d)]),
    "aten::cdist": lambda f, d: (lambda x, y: f(x, y), [rand((3, 2), d), rand((4, 2), d)]),
    "aten::_cdist_forward": lambda f, d: (
        lambda x, y: f(x, y, 2.0, None), [rand((3, 2), d), rand((4, 2), d)]),
    "aten::pdist": lambda f, d: (lambda x: f(x), [rand((4, 3), d)]),
    "aten::_pdist_forward": lambda f, d: (lambda x: f(x, 2.0), [rand((4, 3), d)]),
    "transformers::grouped_mm_fallback": lambda f, d: (
        lambda x, w, offs: f(x, w, offs),
        [rand((5, 3), d), rand((2, 3, 4), d), torch.tensor([2, 4])]),  # row 4 past offs: zeros
    "aten::repeat_interleave.self_Tensor": lambda f, d: (
        lambda x, r: f(x, r, 1), [rand((2, 3), d), torch.tensor([1, 0, 2])]),
    "aten::repeat_interleave.Tensor": lambda f, d: (lambda r: f(r), [torch.tensor([1, 0, 2])]),
    # every path of a backend's attention: causal (top-left, L != S), a bool mask broadcast
    # over heads with one row all masked (zeros), a float mask broadcast over batch and heads
    # with a scale, grouped-query heads, and one key/value head broadcast to all query heads
    "aten::scaled_dot_product_attention": lambda f, d: (
        lambda q, k, v, kg, vg, k1, v1, mb, mf: (
            f(q, k, v, is_causal=True) + f(q, k, v, attn_mask=mb)
            + f(q, k, v, attn_mask=mf, scale=0.3) + f(q, kg, vg, enable_gqa=True)
            + f(q, k1, v1)),
        [rand((2, 4, 5, 8), d), rand((2, 4, 6, 8), d), rand((2, 4, 6, 8), d),
         rand((2, 2, 6, 8), d), rand((2, 2, 6, 8), d), rand((2, 1, 6, 8), d),
         rand((2, 1, 6, 8), d),
         torch.cat([torch.zeros(2, 1, 1, 6, dtype=torch.bool),
                    rand((2, 1, 4, 6), torch.bool)], dim=2),
         rand((5, 6), d)]),
    "aten::_scaled_dot_product_flash_attention_for_cpu": lambda f, d: (
        lambda q, k, v: f(q, k, v, 0.0, True)[0],
        [rand((1, 2, 4, 8), d), rand((1, 2, 4, 8), d), rand((1, 2, 4, 8), d)]),
    # convolution
    "aten::conv1d": lambda f, d: (
        lambda x, w, b: f(x, w, b, [1], [1]),
        [rand((1, 2, 6), d), rand((3, 2, 3), d), rand((3,), d)]),
    "aten::conv2d": lambda f, d: (
        lambda x, w, b: f(x, w, b, [1, 1], [1, 1]),
        [rand((1, 2, 4, 4), d), rand((3, 2, 3, 3), d), rand((3,), d)]),
    "aten::conv3d": lambda f, d: (
        lambda x, w, b: f(x, w, b, [1, 2, 1], [1, 0, 1], [1, 1, 2]),
        [rand((1, 2, 3, 4, 5), d), rand((3, 2, 2, 3, 2), d), rand((3,), d)]),
    "aten::convolution": lambda f, d: (
        lambda x, w, b: f(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
        [rand((1, 2, 4, 4), d), rand((3, 2, 3, 3), d), rand((3,), d)]),
    "aten::im2col": lambda f, d: (
        lambda x: f(x, [2, 2], [1, 1], [0, 0], [1, 1]), [rand((1, 2, 3, 3), d)]),
    "aten::col2im": lambda f, d: (
        lambda x: f(x, [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]), [rand((1, 8, 4), d)]),
    # pooling
    "aten::adaptive_avg_pool2d": lambda f, d: (
        lambda x: f(x, [2, 2]), [rand((1, 2, 4, 4), d)]),
    "aten::_adaptive_avg_pool2d": lambda f, d: (
        lambda x: f(x, [2, 2]), [rand((1, 2, 4, 4), d)]),
    "aten::adaptive_avg_pool3d": lambda f, d: (
        lambda x: f(x, [1, 2, 2]), [rand((1, 2, 2, 4, 4), d)]),
    "aten::_adaptive_avg_pool3d": lambda f, d: (
        lambda x: f(x, [1, 2, 2]), [rand((1, 2, 2, 4, 4), d)]),
    "aten::avg_pool1d": lambda f, d: (lambda x: f(x, [2], [2]), [rand((1, 2, 6), d)]),
    "aten::avg_pool2d": lambda f, d: (
        lambda x: f(x, [2, 2], [2, 2]), [rand((1, 2, 4, 4), d)]),
    "aten::avg_pool3d": lambda f, d: (
        lambda x: f(x, [2, 2, 2], [2, 2, 2]), [rand((1, 1, 2, 4, 4), d)]),
    "aten::max_pool2d": lambda f, d: (
        lambda x: f(x, [2, 2], [2, 2]), [rand((1, 2, 4, 4), d)]),
    "aten::max_pool2d_with_indices": lambda f, d: (
        lambda x: f(x, [2, 2], [2, 2]), [rand((1, 2, 4, 4), d)]),
    "aten::adaptive_avg_pool1d": lambda f, d: (lambda x: f(x, [3]), [rand((1, 2, 7), d)]),
    "aten::max_pool3d": lambda f, d: (
        lambda x: f(x, [2, 2, 2], [1, 2, 2], [1, 0, 1]), [rand((1, 1, 3, 4, 4), d)]),
    "aten::max_pool3d_with_indices": lambda f, d: (
        lambda x: f(x, [2, 2, 2], [2, 2, 2]), [rand((1, 1, 2, 4, 4), d)]),
    # resampling
    "aten::grid_sampler": lambda f, d: (
        lambda x, g: f(x, g, 0, 0, False),
        [rand((1, 2, 3, 3), d), rand((1, 2, 2, 2), d) * 0.6]),
    "aten::grid_sampler_2d": lambda f, d: (
        lambda x, g: f(x, g, 0, 0, False),
        [rand((1, 2, 3, 3), d), rand((1, 2, 2, 2), d) * 0.6]),
    "aten::upsample_bilinear2d": lambda f, d: (
        lambda x: f(x, [4, 4], False), [rand((1, 2, 2, 2), d)]),
    "aten::upsample_bilinear2d.vec": lambda f, d: (
        lambda x: f(x, [4, 4], False, None), [rand((1, 2, 2, 2), d)]),
    "aten::upsample_nearest2d": lambda f, d: (
        lambda x: f(x, [4, 4]), [rand((1, 2, 2, 2), d)]),
    "aten::upsample_nearest2d.vec": lambda f, d: (
        lambda x: f(x, [4, 4], None), [rand((1, 2, 2, 2), d)]),
    "aten::upsample_nearest1d": lambda f, d: (lambda x: f(x, [7]), [rand((1, 2, 3), d)]),
    "aten::upsample_nearest1d.vec": lambda f, d: (
        lambda x: f(x, None, [1.6]), [rand((1, 2, 5), d)]),
    "aten::upsample_nearest3d": lambda f, d: (
        lambda x: f(x, [3, 4, 5]), [rand((1, 1, 2, 3, 2), d)]),
    "aten::upsample_nearest3d.vec": lambda f, d: (
        lambda x: f(x, [3, 4, 5], None), [rand((1, 1, 2, 3, 2), d)]),
    "aten::_upsample_nearest_exact1d": lambda f, d: (lambda x: f(x, [7]), [rand((1, 2, 3), d)]),
    "aten::_upsample_nearest_exact1d.vec": lambda f, d: (
        lambda x: f(x, None, [0.7]), [rand((1, 2, 6), d)]),
    "aten::_upsample_nearest_exact2d": lambda f, d: (
        lambda x: f(x, [5, 3]), [rand((1, 2, 3, 4), d)]),
    "aten::_upsample_nearest_exact2d.vec": lambda f, d: (
        lambda x: f(x, [5, 3], None), [rand((1, 2, 3, 4), d)]),
    "aten::_upsample_nearest_exact3d": lambda f, d: (
        lambda x: f(x, [3, 4, 5]), [rand((1, 1, 2, 3, 2), d)]),
    "aten::_upsample_nearest_exact3d.vec": lambda f, d: (
        lambda x: f(x, None, [1.5, 1.5, 2.0]), [rand((1, 1, 2, 3, 2), d)]),
    "aten::upsample_linear1d": lambda f, d: (lambda x: f(x, [7], True), [rand((1, 2, 3), d)]),
    "aten::upsample_linear1d.vec": lambda f, d: (
        lambda x: f(x, None, False, [1.6]), [rand((1, 2, 5), d)]),
    "aten::upsample_trilinear3d": lambda f, d: (
        lambda x: f(x, [3, 4, 5], False), [rand((1, 1, 2, 3, 2), d)]),
    "aten::upsample_trilinear3d.vec": lambda f, d: (
        lambda x: f(x, [3, 4, 5], True, None), [rand((1, 1, 2, 3, 2), d)]),
    "aten::upsample_bicubic2d": lambda f, d: (
        lambda x: f(x, [5, 7], False), [rand((1, 2, 3, 4), d)]),
    "aten::upsample_bicubic2d.vec": lambda f, d: (
        lambda x: f(x, [5, 7], True, None), [rand((1, 2, 3, 4), d)]),
    "aten::_upsample_bilinear2d_aa": lambda f, d: (
        lambda x: f(x, [3, 5], False), [rand((1, 2, 7, 4), d)]),
    "aten::_upsample_bilinear2d_aa.vec": lambda f, d: (
        lambda x: f(x, [3, 5], False, None), [rand((1, 2, 7, 4), d)]),
    "aten::_upsample_bicubic2d_aa": lambda f, d: (
        lambda x: f(x, [3, 5], False), [rand((1, 2, 7, 4), d)]),
    "aten::_upsample_bicubic2d_aa.vec": lambda f, d: (
        lambda x: f(x, [3, 9], False, None), [rand((1, 2, 8, 4), d)]),
    "aten::max_unpool2d": lambda f, d: (
        lambda x, i: f(x, i, [4, 5]), [rand((1, 2, 2, 2), d), torch.tensor([[[[0, 3], [9, 19]],
                                                                           [[1, 2], [18, 5]]]])]),
    "aten::adaptive_max_pool1d": lambda f, d: (
        lambda x: torch.cat([t.float().flatten() for t in f(x, [3])]), [rand((2, 3, 7), d)]),
    "aten::adaptive_max_pool2d": lambda f, d: (
        lambda x: torch.cat([t.float().flatten() for t in f(x, [2, 3])]), [rand((1, 2, 5, 7), d)]),
    # movement
    "aten::_unsafe_view": lambda f, d: (lambda x: f(x, [3, 2]), [rand((2, 3), d)]),
    "aten::view": lambda f, d: (lambda x: f(x, [3, 2]), [rand((2, 3), d)]),
    "aten::reshape": lambda f, d: (lambda x: f(x, [3, 2]), [rand((2, 3), d)]),
    "aten::as_strided": lambda f, d: (lambda x: f(x, [2, 2], [1, 2]), [rand((2, 3), d)]),
    "aten::chunk": lambda f, d: (lambda x: f(x, 2, 1), [rand((2, 4), d)]),
    "aten::cat": lambda f, d: (lambda x, y: f([x, y], 1), [rand((2, 3), d), rand((2, 2), d)]),
    "aten::channel_shuffle": lambda f, d: (lambda x: f(x, 2), [rand((1, 6, 2, 2), d)]),
    "aten::native_channel_shuffle": lambda f, d: (lambda x: f(x, 3), [rand((2, 6, 3), d)]),
    "aten::rot90": lambda f, d: (
        lambda x: torch.cat([f(x, 1, [0, 1]).flatten(), f(x, 2, [1, 2]).flatten(),
                             f(x, -1, [2, 0]).flatten(), f(x, 4, [0, 1]).flatten()]),
        [rand((2, 3, 4), d)]),
    "aten::diag_embed": lambda f, d: (
        lambda x: torch.cat([f(x).flatten(), f(x, 1, 0, 2).flatten(), f(x, -2).flatten()]),
        [rand((2, 3), d)]),
    "aten::stack": lambda f, d: (lambda x, y: f([x, y], 1), [rand((2, 3), d), rand((2, 3), d)]),
    "aten::pad_sequence": lambda f, d: (
        lambda x, y, z: (f([x, y, z], True, 2.0, "right"), f([x, y, z], False, 0.0, "left")),
        [rand((4, 3), d), rand((1, 3), d), rand((3, 3), d)]),
    "aten::meshgrid": lambda f, d: (lambda x, y: f([x, y]), [rand((2,), d), rand((3,), d)]),
    "aten::meshgrid.indexing": lambda f, d: (
        lambda x, y, z: f([x, y, z], indexing="xy"), [rand((2,), d), rand((3,), d), rand((4,), d)]),
    "aten::constant_pad_nd": lambda f, d: (
        lambda x: f(x, [1, 2], 0.5), [rand((2, 3), d)]),
    "aten::pad": lambda f, d: (lambda x: f(x, [1, 2], "reflect"), [rand((1, 2, 4), d)]),
    "aten::copy": lambda f, d: (lambda x, y: f(x, y), [rand((2, 3), d), rand((2, 3), d)]),
    "aten::diagonal": lambda f, d: (lambda x: f(x, 1), [rand((3, 4), d)]),
    "aten::expand": lambda f, d: (lambda x: f(x, [2, 3, 4]), [rand((3, 1), d)]),
    "aten::expand_as": lambda f, d: (
        lambda x, y: f(x, y), [rand((3, 1), d), rand((2, 3, 4), d)]),
    "aten::flatten.using_ints": lambda f, d: (
        lambda x: f(x, 1, 2), [rand((2, 3, 2), d)]),
    "aten::flip": lambda f, d: (lambda x: f(x, [1]), [rand((2, 3), d)]),
    "aten::narrow": lambda f, d: (lambda x: f(x, 1, 1, 2), [rand((2, 4), d)]),
    "aten::permute": lambda f, d: (lambda x: f(x, [2, 0, 1]), [rand((2, 3, 4), d)]),
    "aten::pixel_shuffle": lambda f, d: (lambda x: f(x, 2), [rand((1, 4, 2, 2), d)]),
    "aten::pixel_unshuffle": lambda f, d: (
        lambda x: f(x, 2), [rand((1, 1, 4, 4), d)]),
    "aten::reflection_pad1d": lambda f, d: (
        lambda x: f(x, [1, 2]), [rand((1, 2, 4), d)]),
    "aten::reflection_pad2d": lambda f, d: (
        lambda x: f(x, [1, 2, 2, 1]), [rand((1, 1, 3, 4), d)]),
    "aten::reflection_pad3d": lambda f, d: (
        lambda x: f(x, [1, 1, 1, 0, 0, 1]), [rand((1, 1, 2, 3, 3), d)]),
    "aten::replication_pad1d": lambda f, d: (
        lambda x: f(x, [1, 2]), [rand((1, 2, 4), d)]),
    "aten::replication_pad2d": lambda f, d: (
        lambda x: f(x, [1, 2, 2, 1]), [rand((1, 1, 3, 4), d)]),
    "aten::replication_pad3d": lambda f, d: (
        lambda x: f(x, [1, 1, 1, 0, 0, 1]), [rand((1, 1, 2, 3, 3), d)]),
    "aten::repeat": lambda f, d: (lambda x: f(x, [2, 1, 2]), [rand((2, 3), d)]),
    "aten::repeat_interleave.self_int": lambda f, d: (
        lambda x: f(x, 3, 1) + f(x, 3, 1, output_size=9), [rand((2, 3), d)]),
    "aten::histc": lambda f, d: (
        lambda x: torch.cat([f(x, 6, -2, 2), f(x, 4)]), [rand((3, 5), d)]),
    # random draws (kernels/random.h): deterministic functions of them, as torch's differ
    "aten::rand": lambda f, d: (unused(lambda: in_unit(f([3, 4], dtype=d))), [rand((1,), d)]),
    "aten::rand_like": lambda f, d: (lambda x: in_unit(f(x)), [rand((2, 3), d)]),
    "aten::randn": lambda f, d: (unused(lambda: f([3, 4], dtype=d).abs() < 10), [rand((1,), d)]),
    "aten::randn_like": lambda f, d: (lambda x: f(x).abs() < 10, [rand((2, 3), d)]),
    "aten::randperm": lambda f, d: (
        unused(lambda: torch.sort(f(9, dtype=d)).values), [rand((1,), d)]),
    "aten::roll": lambda f, d: (lambda x: f(x, [1], [1]), [rand((2, 3), d)]),
    "aten::select.int": lambda f, d: (lambda x: f(x, 1, 2), [rand((2, 3), d)]),
    "aten::slice.Tensor": lambda f, d: (lambda x: f(x, 1, 1, 3), [rand((2, 4), d)]),
    "aten::split.Tensor": lambda f, d: (lambda x: f(x, 2, 1), [rand((2, 5), d)]),
    "aten::conv_transpose1d": lambda f, d: (
        lambda x, w, b: f(x, w, b, [2], [1], [1], 1, [1]), [rand((2, 4, 5), d), rand((4, 3, 3), d),
                                                            rand((3,), d)]),
    "aten::conv_transpose2d.input": lambda f, d: (
        lambda x, w: f(x, w, None, [2, 1], [1, 0], [0, 0], 2, [1, 2]),
        [rand((1, 4, 3, 4), d), rand((4, 2, 3, 2), d)]),
    "aten::conv_transpose3d.input": lambda f, d: (
        lambda x, w, b: f(x, w, b, [2], [0], [1], 1, [1]),
        [rand((1, 2, 2, 3, 2), d), rand((2, 3, 2, 2, 2), d), rand((3,), d)]),
    # log of a negative is NaN, of 0 -inf: what nan_to_num replaces
    "aten::nan_to_num": lambda f, d: (
        lambda x: f(torch.log(x), 1.5, 7.0, -7.0) + f(torch.log(x)).clamp(-1e30, 1e30),
        [torch.tensor([[-1.0, 0.0, 2.0], [0.5, -3.0, 0.0]], dtype=d)]),
    "aten::logit": lambda f, d: (lambda x: f(x, 0.1) + f(x.clamp(0.2, 0.8)), [rand((2, 3), d).sigmoid()]),
    "aten::softplus": lambda f, d: (lambda x: f(x, 2.0, 3.0) + f(x), [rand((2, 5), d) * 3]),
    "aten::threshold": lambda f, d: (lambda x: f(x, 0.5, -2.0), [rand((2, 5), d)]),
    "aten::hardshrink": lambda f, d: (lambda x: f(x, 0.7), [rand((2, 5), d)]),
    "aten::softshrink": lambda f, d: (lambda x: f(x, 0.7), [rand((2, 5), d)]),
    # batched matmul, diagonal, trace, broadcast ellipsis, implicit output, outer product; as
    # GEMMs (the cpu kernel): output in another label order, two summed labels, a batch dim
    # one operand broadcasts, a label summed over one operand only (the reference loops)
    "aten::einsum": lambda f, d: (
        lambda a, b, c: torch.cat([f("bij,bjk->bik", [a, b]).flatten(), f("ii->i", [c]),
                                   f("ii", [c]).reshape(1), f("...ij,...jk", [a, b]).flatten(),
                                   f("i,j->ij", [c[0], c[1]]).flatten(), f("bij->jb", [a]).flatten(),
                                   f("bij,bjk->kbi", [a, b]).flatten(),
                                   f("bij,bij->b", [a, a]).flatten(),
                                   f("bij,jk->bik", [a, b[0]]).flatten(),
                                   f("bij,jk->bk", [a, b[1]]).flatten(),
                                   f("bij,ck->bick", [a, c]).flatten()]),
        [rand((2, 3, 4), d), rand((2, 4, 5), d), rand((3, 3), d)]),
    "aten::linalg_vector_norm": lambda f, d: (
        lambda x: torch.cat([f(x, 2, [1]), f(x, 1, [0], True).flatten(), f(x, float("inf"), [1]),
                             f(x, float("-inf"), [1]), f(x, 0, [1]), f(x, 3.5).reshape(1),
                             f(x, 2, None, False, dtype=torch.float64).float().reshape(1)]),
        [rand((3, 4), d)]),
    "aten::logsumexp": lambda f, d: (
        lambda x: torch.cat([f(x, [1]), f(x * 100, [0], True).flatten(), f(x, [0, 1]).reshape(1)]),
        [rand((3, 4), d)]),
    "aten::rms_norm": lambda f, d: (
        lambda x, w: f(x, [5], w, 1e-6) + f(x, [5]) + f(x, [3, 5], None, 0.1),
        [rand((2, 3, 5), d), rand((5,), d)]),
    "aten::argsort": lambda f, d: (lambda x: f(x, 0, True) * 10 + f(x), [rand((3, 4), d)]),
    "aten::argsort.stable": lambda f, d: (
        lambda x: f(x, stable=True, dim=1, descending=True), [rand((3, 4), d)]),
    "aten::glu": lambda f, d: (
        lambda x: torch.cat([f(x, 1).flatten(), f(x, -1).flatten()]), [rand((3, 4, 4), d)]),
    "aten::prelu": lambda f, d: (
        lambda x, w: f(x, w) + f(x, w[:1]), [rand((2, 3, 4), d), rand((3,), d)]),
    "aten::lstm.input": lambda f, d: (
        lambda x, h, c, w1, w2, b1, b2: f(x, [h, c], [w1, w2, b1, b2], True, 1, 0.0, False, False,
                                          False),
        [rand((3, 2, 4), d), rand((1, 2, 3), d), rand((1, 2, 3), d), rand((12, 4), d),
         rand((12, 3), d), rand((12,), d), rand((12,), d)]),
    "aten::gru.input": lambda f, d: (
        lambda x, h, w1, w2: f(x, h, [w1, w2], False, 1, 0.0, False, False, True),
        [rand((2, 3, 4), d), rand((1, 2, 3), d), rand((9, 4), d), rand((9, 3), d)]),
    "aten::rnn_tanh.input": lambda f, d: (
        lambda x, h, w1, w2, b1, b2: f(x, h, [w1, w2, b1, b2], True, 1, 0.0, False, False, False),
        [rand((3, 2, 4), d), rand((1, 2, 3), d), rand((3, 4), d), rand((3, 3), d),
         rand((3,), d), rand((3,), d)]),
    "aten::rnn_relu.input": lambda f, d: (
        lambda x, h, w1, w2, w3, w4: f(x, h, [w1, w2, w3, w4], False, 1, 0.0, False, True, True),
        [rand((2, 3, 4), d), rand((2, 2, 3), d), rand((3, 4), d), rand((3, 3), d),
         rand((3, 4), d), rand((3, 3), d)]),
    "aten::lstm_cell": lambda f, d: (
        lambda x, h, c, w1, w2, b1, b2: torch.cat(f(x, [h, c], w1, w2, b1, b2)),
        [rand((2, 4), d), rand((2, 3), d), rand((2, 3), d), rand((12, 4), d),
         rand((12, 3), d), rand((12,), d), rand((12,), d)]),
    "aten::gru_cell": lambda f, d: (
        lambda x, h, w1, w2: f(x, h, w1, w2), [rand((2, 4), d), rand((2, 3), d),
                                               rand((9, 4), d), rand((9, 3), d)]),
    "aten::rnn_tanh_cell": lambda f, d: (
        lambda x, h, w1, w2, b1, b2: f(x, h, w1, w2, b1, b2),
        [rand((2, 4), d), rand((2, 3), d), rand((3, 4), d), rand((3, 3), d), rand((3,), d),
         rand((3,), d)]),
    "aten::rnn_relu_cell": lambda f, d: (
        lambda x, h, w1, w2: f(x, h, w1, w2), [rand((1, 4), d), rand((1, 3), d), rand((3, 4), d),
                                               rand((3, 3), d)]),
    # products that are one einsum
    "aten::outer": lambda f, d: (lambda a, b: f(a, b), [rand((3,), d), rand((4,), d)]),
    "aten::ger": lambda f, d: (lambda a, b: f(a, b), [rand((3,), d), rand((4,), d)]),
    "aten::dot": lambda f, d: (lambda a, b: f(a, b), [rand((5,), d), rand((5,), d)]),
    "aten::vdot": lambda f, d: (lambda a, b: f(a, b), [rand((5,), d), rand((5,), d)]),
    "aten::mv": lambda f, d: (lambda m, v: f(m, v), [rand((3, 4), d), rand((4,), d)]),
    "aten::addmv": lambda f, d: (
        lambda s, m, v: f(s, m, v, beta=0.5, alpha=-2), [rand((3,), d), rand((3, 4), d),
                                                          rand((4,), d)]),
    "aten::addr": lambda f, d: (
        lambda s, a, b: f(s, a, b, beta=2), [rand((1, 4), d), rand((3,), d), rand((4,), d)]),
    "aten::addbmm": lambda f, d: (
        lambda s, a, b: f(s, a, b, alpha=0.5), [rand((3, 5), d), rand((2, 3, 4), d),
                                                rand((2, 4, 5), d)]),
    "aten::bilinear": lambda f, d: (
        lambda a, b, w, c: f(a, b, w, c), [rand((2, 3, 4), d), rand((2, 3, 5), d),
                                           rand((6, 4, 5), d), rand((6,), d)]),
    "aten::_trilinear": lambda f, d: (
        lambda a, w, b: f(a, w, b, [1, 3], [0], [1, 2], [2, 3]),
        [rand((2, 4), d), rand((6, 4, 5), d), rand((2, 5), d)]),
    "aten::unsafe_split.Tensor": lambda f, d: (lambda x: f(x, 2, 1), [rand((2, 5), d)]),
    "aten::unsafe_split_with_sizes": lambda f, d: (
        lambda x: f(x, [1, 3], 1), [rand((2, 4), d)]),
    "aten::unsafe_chunk": lambda f, d: (lambda x: f(x, 3, 1), [rand((2, 5), d)]),
    # indices count from the end when negative, clamp, and a decreasing pair is empty
    "aten::tensor_split.indices": lambda f, d: (
        lambda x: f(x, [1, 4], 1) + f(x, [-2, 1, 9], 1), [rand((2, 6), d)]),
    "aten::tensor_split.sections": lambda f, d: (
        lambda x: f(x, 4, 1) + f(x, 3, 0), [rand((2, 6), d)]),
    "aten::tensor_split.tensor_indices_or_sections": lambda f, d: (
        SplitByBuffer(f), [rand((5, 6), d)]),
    "aten::hsplit.int": lambda f, d: (lambda x: f(x, 3) + f(x[0], 2), [rand((2, 6), d)]),
    "aten::hsplit.array": lambda f, d: (lambda x: f(x, [1, 4]), [rand((2, 6), d)]),
    "aten::vsplit.int": lambda f, d: (lambda x: f(x, 2), [rand((4, 3), d)]),
    "aten::vsplit.array": lambda f, d: (lambda x: f(x, [1, 3]), [rand((4, 3), d)]),
    "aten::dsplit.int": lambda f, d: (lambda x: f(x, 2), [rand((2, 3, 4), d)]),
    "aten::dsplit.array": lambda f, d: (lambda x: f(x, [3]), [rand((2, 3, 4), d)]),
    "aten::split_with_sizes": lambda f, d: (
        lambda x: f(x, [1, 3], 1), [rand((2, 4), d)]),
    "aten::squeeze": lambda f, d: (lambda x: f(x), [rand((2, 1, 3), d)]),
    "aten::squeeze.dim": lambda f, d: (lambda x: f(x, 1), [rand((2, 1, 3), d)]),
    "aten::squeeze.dims": lambda f, d: (lambda x: f(x, [1]), [rand((2, 1, 3), d)]),
    "aten::unsqueeze": lambda f, d: (lambda x: f(x, 1), [rand((2, 3), d)]),
    "aten::swapaxes": lambda f, d: (lambda x: f(x, 0, 1), [rand((2, 3), d)]),
    "aten::transpose.int": lambda f, d: (lambda x: f(x, 0, 1), [rand((2, 3), d)]),
    "aten::to.device": lambda f, d: (
        lambda x: f(x, torch.device("cpu"), torch.int64), [rand((2, 3), d)]),
    "aten::to.dtype": lambda f, d: (lambda x: f(x, torch.int64), [rand((2, 3), d) * 3]),
    "aten::to.dtype_layout": lambda f, d: (
        lambda x: f(x, dtype=torch.int64), [rand((2, 3), d) * 3]),
    "aten::_to_copy": lambda f, d: (lambda x: f(x, dtype=torch.int64), [rand((2, 3), d) * 3]),
    "aten::type_as": lambda f, d: (
        lambda x, y: f(x, y), [rand((2, 3), d) * 3, rand((1,), torch.int64)]),
    "aten::unbind.int": lambda f, d: (lambda x: f(x, 1), [rand((2, 3), d)]),
    "aten::unflatten.int": lambda f, d: (
        lambda x: f(x, 1, [2, 3]), [rand((2, 6), d)]),
    # indexing
    "aten::embedding": lambda f, d: (
        lambda w, i: f(w, i), [rand((5, 3), d), torch.tensor([[0, 4], [2, 2]])]),
    "aten::_embedding_bag": lambda f, d: (
        lambda w, i, o: f(w, i, o, False, 1)[0],
        [rand((5, 3), d), torch.tensor([0, 4, 2, 2, 1]), torch.tensor([0, 2])]),
    "aten::_embedding_bag_forward_only": lambda f, d: (
        lambda w, i, o: f(w, i, o, False, 0)[0],
        [rand((5, 3), d), torch.tensor([0, 4, 2, 2, 1]), torch.tensor([0, 2])]),
    "aten::embedding_bag.padding_idx": lambda f, d: (
        lambda w, i, o: f(w, i, o, False, 1, False, None, False, 2)[0],
        [rand((5, 3), d), torch.tensor([0, 4, 2, 2, 1]), torch.tensor([0, 2])]),
    "aten::gather": lambda f, d: (
        lambda x, i: f(x, 1, i), [rand((2, 3), d), torch.tensor([[0, 2], [1, 1]])]),
    "aten::index.Tensor": lambda f, d: (
        lambda x, i: f(x, [None, i]), [rand((2, 3), d), torch.tensor([2, 0])]),
    "aten::index_copy": lambda f, d: (
        lambda x, i, s: f(x, 1, i, s),
        [rand((2, 3), d), torch.tensor([2, 0]), rand((2, 2), d)]),
    "aten::index_copy_": lambda f, d: (
        lambda x, i, s: f(x.clone(), 1, i, s),
        [rand((2, 3), d), torch.tensor([2, 0]), rand((2, 2), d)]),
    "aten::searchsorted.Tensor": lambda f, d: (
        lambda s, v: torch.cat([f(s, v).flatten(), f(s, v, right=True).flatten(),
                                f(s[0], v, out_int32=True, side="right").long().flatten()]),
        [torch.sort(rand((2, 5), d), dim=1)[0], rand((2, 3), d)]),
    "aten::searchsorted.Scalar": lambda f, d: (
        lambda s: f(s, 0.5), [torch.sort(rand((6,), d))[0]]),
    "aten::bucketize.Tensor": lambda f, d: (
        lambda v, b: torch.cat([f(v, b).flatten(), f(v, b, right=True).flatten()]),
        [rand((2, 4), d), torch.sort(rand((5,), d))[0]]),
    "aten::bucketize.Scalar": lambda f, d: (
        lambda b: f(1, b, out_int32=True), [torch.sort(rand((5,), d))[0]]),
    "aten::index_fill.int_Scalar": lambda f, d: (
        lambda x, i: f(x, 1, i, -2), [rand((2, 4), d), torch.tensor([0, -1])]),
    "aten::index_fill.int_Tensor": lambda f, d: (
        lambda x, i, v: f(x, 0, i, v), [rand((3, 2), d), torch.tensor([2]), rand((), d)]),
    "aten::index_fill_.int_Scalar": lambda f, d: (
        lambda x, i: f(x.clone(), 0, i, 1.5), [rand((3, 2), d), torch.tensor([1, 1])]),
    "aten::index_fill_.int_Tensor": lambda f, d: (
        lambda x, i, v: f(x.clone(), 1, i, v), [rand((2, 3), d), torch.tensor([0]), rand((), d)]),
    "aten::index_add": lambda f, d: (
        lambda x, i, s: f(x, 0, i, s, alpha=2),
        [rand((3, 2), d), torch.tensor([2, 0, 2, 1]), rand((4, 2), d)]),
    "aten::index_add_": lambda f, d: (
        lambda x, i, s: f(x.clone(), 1, i, s),
        [rand((2, 3), d), torch.tensor([1, 1]), rand((2, 2), d)]),
    "aten::index_put": lambda f, d: (
        lambda x, i, v: f(x, [i], v, True),
        [rand((3, 2), d), torch.tensor([2, 0, 2]), rand((3, 2), d)]),
    "aten::index_put_": lambda f, d: (
        lambda x, i, v: f(x.clone(), [i], v, False),
        [rand((3, 2), d), torch.tensor([2, 0]), rand((2, 2), d)]),
    "aten::index_select": lambda f, d: (
        lambda x, i: f(x, 1, i), [rand((2, 3), d), torch.tensor([2, 0, 2])]),
    "aten::masked_fill.Tensor": lambda f, d: (
        lambda x, m, v: f(x, m, v),
        [rand((2, 3), d), rand((2, 3), torch.bool), rand((), d)]),
    "aten::masked_scatter": lambda f, d: (
        lambda x, m, s: f(x, m, s),
        [rand((2, 3), d), rand((2, 3), torch.bool), rand((2, 3), d)]),
    "aten::scatter.src": lambda f, d: (
        lambda x, i, s: f(x, 1, i, s),
        [rand((2, 3), d), torch.tensor([[0, 2], [1, 0]]), rand((2, 2), d)]),
    "aten::scatter.value": lambda f, d: (
        lambda x, i: f(x, 1, i, 1.5), [rand((2, 3), d), torch.tensor([[0, 2], [1, 0]])]),
    "aten::scatter_add": lambda f, d: (
        lambda x, i, s: f(x, 1, i, s),
        [rand((2, 3), d), torch.tensor([[0, 0], [1, 2]]), rand((2, 2), d)]),
    "aten::scatter_reduce.two": lambda f, d: (
        lambda x, i, s: f(x, 1, i, s, "amax"),
        [rand((2, 3), d), torch.tensor([[0, 0], [1, 2]]), rand((2, 2), d)]),
    "aten::select_scatter": lambda f, d: (
        lambda x, s: f(x, s, 1, 2), [rand((2, 3), d), rand((2,), d)]),
    "aten::slice_scatter": lambda f, d: (
        lambda x, s: f(x, s, 1, 1, 3), [rand((2, 4), d), rand((2, 2), d)]),
    # creation
    "aten::arange": lambda f, d: (unused(lambda: f(5, dtype=d)), [rand((1,), d)]),
    "aten::arange.start": lambda f, d: (unused(lambda: f(2, 7, dtype=d)), [rand((1,), d)]),
    "aten::arange.start_step": lambda f, d: (
        unused(lambda: f(1, 9, 3, dtype=d)), [rand((1,), d)]),
    "aten::empty.memory_format": lambda f, d: (
        then_fill(unused(lambda: f([2, 3], dtype=d))), [rand((1,), d)]),
    "aten::empty_like": lambda f, d: (then_fill(lambda x: f(x)), [rand((2, 3), d)]),
    "aten::empty_permuted": lambda f, d: (
        then_fill(unused(lambda: f([2, 3], [1, 0], dtype=d))), [rand((1,), d)]),
    "aten::empty_strided": lambda f, d: (
        then_fill(unused(lambda: f([2, 3], [3, 1], dtype=d))), [rand((1,), d)]),
    "aten::full": lambda f, d: (unused(lambda: f([2, 3], 1.5, dtype=d)), [rand((1,), d)]),
    "aten::ones": lambda f, d: (unused(lambda: f([2, 3], dtype=d)), [rand((1,), d)]),
    "aten::zeros": lambda f, d: (unused(lambda: f([2, 3], dtype=d)), [rand((1,), d)]),
    "aten::scalar_tensor": lambda f, d: (unused(lambda: f(2.5, dtype=d)), [rand((1,), d)]),
    "aten::full_like": lambda f, d: (lambda x: f(x, 2.5), [rand((2, 3), d)]),
    "aten::new_ones": lambda f, d: (lambda x: f(x, [3, 2]), [rand((2, 3), d)]),
    "aten::new_zeros": lambda f, d: (lambda x: f(x, [3, 2]), [rand((2, 3), d)]),
    "aten::fill.Tensor": lambda f, d: (lambda x, v: f(x, v), [rand((2, 3), d), rand((), d)]),
    "aten::eye": lambda f, d: (unused(lambda: f(3, dtype=d)), [rand((1,), d)]),
    "aten::eye.m": lambda f, d: (unused(lambda: f(2, 4, dtype=d)), [rand((1,), d)]),
    "aten::linspace": lambda f, d: (unused(lambda: f(-2, 3, 7, dtype=d)), [rand((1,), d)]),
    "aten::logspace": lambda f, d: (unused(lambda: f(-1, 2, 6, 2.0, dtype=d)), [rand((1,), d)]),
    "aten::one_hot": lambda f, d: (lambda i: f(i, 4), [torch.tensor([[0, 3], [2, 1]])]),
    # sort, select
    "aten::topk": lambda f, d: (lambda x: f(x, 2), [rand((2, 5), d)]),
    "aten::sort.stable": lambda f, d: (lambda x: f(x, stable=True), [rand((2, 5), d)]),
    # quantization (torch's quantized_decomposed ops, as PT2E writes them)
    "quantized_decomposed::quantize_per_tensor": lambda f, d: (
        lambda x: QD.quantize_per_tensor(x, 0.05, 3, 0, 255, torch.uint8),
        [rand((2, 3), d)]),
    "quantized_decomposed::quantize_per_tensor.tensor": lambda f, d: (
        lambda x, s, z: QD.quantize_per_tensor.tensor(x, s, z, -128, 127, torch.int8),
        [rand((2, 3), d), SCALE(), ZERO_POINT()]),
    "quantized_decomposed::dequantize_per_tensor": lambda f, d: (
        lambda x: QD.dequantize_per_tensor(
            QD.quantize_per_tensor(x, 0.05, 3, 0, 255, torch.uint8),
            0.05, 3, 0, 255, torch.uint8), [rand((2, 3), f32)]),
    "quantized_decomposed::dequantize_per_tensor.tensor": lambda f, d: (
        lambda x, s, z: QD.dequantize_per_tensor.tensor(
            QD.quantize_per_tensor.tensor(x, s, z, -128, 127, torch.int8),
            s, z, -128, 127, torch.int8), [rand((2, 3), f32), SCALE(), ZERO_POINT()]),
    "quantized_decomposed::dequantize_per_channel": lambda f, d: (QuantizedWeights(), []),
    "tir::quantized_linear": lambda f, d: (QuantizedLinear(), [rand((2, 5), f32)]),
    "quantized_decomposed::choose_qparams.tensor": lambda f, d: (
        lambda x: QD.choose_qparams.tensor(x, 0, 255, 1e-5, torch.uint8),
        [rand((2, 3), d)]),
    # torchao's affine quantization ops (quantize_ then export, training IR) and the int8
    # product of its dynamically quantized linears; groups of 4 along the last dim
    "torchao::choose_qparams_affine": lambda f, d: (
        lambda x: TAO.choose_qparams_affine(x, "ASYMMETRIC", [1, 4], torch.uint8, 0, 255, 1e-6,
                                            torch.float32, torch.int32, True),
        [rand((3, 8), d)]),
    "torchao::quantize_affine": lambda f, d: (
        lambda x, s, z: TAO.quantize_affine(x, [1, 4], s, z, torch.int8, -128, 127),
        [rand((3, 8), d), positive((3, 2), f32) * 0.05, int8_values((3, 2), torch.int8)]),
    "torchao::dequantize_affine": lambda f, d: (
        lambda q, s, z: TAO.dequantize_affine(q, [1, 4], s, z, torch.int8, -128, 127),
        [int8_values((3, 8), torch.int8), positive((3, 2), f32) * 0.05,
         int8_values((3, 2), torch.int8)]),
    "aten::_int_mm": lambda f, d: (
        lambda a, b: f(a, b), [int8_values((3, 16), d), int8_values((16, 8), torch.int8)]),
    "tir::int_mm_weight": lambda f, d: (IntMmOnWeight(), [int8_values((3, 16), d)]),
    # assertion (a runtime assert on a dynamic dim, as export writes it in place of a guard)
    "aten::_assert_scalar": lambda f, d: (EvenRows(), [rand((4, 3), d)],
                                       {"dynamic_shapes": ({0: torch.export.Dim.DYNAMIC},),
                                        "prefer_deferred_runtime_asserts_over_guards": True}),
    "aten::sym_constrain_range_for_size": lambda f, d: (
        SizeConstrained(), [rand((4, 3), d)], {"dynamic_shapes": ({0: torch.export.Dim.DYNAMIC},)}),
    "aten::_assert_async": lambda f, d: (
        lambda x: (f((x > -100).all()), x + 1)[1], [rand((2, 3), d)]),
    "aten::_assert_async.msg": lambda f, d: (
        lambda x: (f((x > -100).all(), "x is finite"), x * 2)[1], [rand((2, 3), d)]),
    "aten::_assert_tensor_metadata": lambda f, d: (
        lambda x: aten("aten::to.dtype")(x, torch.int64), [rand((2, 3), d) * 3]),
}


# The special functions, order statistics, losses, complex and spectral ops: their own module.
from op_sample_calls_math import CALLS_MATH  # noqa: E402

CALLS.update(CALLS_MATH)
