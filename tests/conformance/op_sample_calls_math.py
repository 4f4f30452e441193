"""How to call the op suite's samples of the special functions, order statistics, losses,
complex and spectral ops (issue 47): op_sample_calls.CALLS takes these in (the same form)."""

import torch

from op_sample_calls import f32, positive, rand  # defined before op_sample_calls imports this

CALLS_MATH = {
    # special functions, order statistics, broadcast_tensors, losses, bincount (issue 47)
    "aten::erfinv": lambda f, d: (lambda x: f(torch.tanh(x)), [rand((2, 3), d)]),
    "aten::polygamma": lambda f, d: (
        lambda x: torch.cat([f(0, x).flatten(), f(2, x).flatten()]), [positive((2, 3), d)]),
    "aten::kthvalue": lambda f, d: (
        lambda x: torch.cat([t.double().flatten() for t in (*f(x, 2), *f(x, 1, 0, True))]),
        [rand((3, 4), d)]),
    "aten::median.dim": lambda f, d: (
        lambda x: torch.cat([t.double().flatten() for t in f(x, 1)]), [rand((2, 5), d)]),
    "aten::nanmedian.dim": lambda f, d: (
        lambda x: torch.cat([t.double().flatten() for t in f(x, 0, True)]), [rand((3, 2), d)]),
    "aten::broadcast_tensors": lambda f, d: (
        lambda x, y: torch.cat([t.flatten() for t in f([x, y])]),
        [rand((2, 1), d), rand((3,), d)]),
    "aten::binary_cross_entropy": lambda f, d: (
        lambda x, y: f(torch.sigmoid(x), torch.sigmoid(y)), [rand((2, 3), d), rand((2, 3), d)]),
    "aten::smooth_l1_loss": lambda f, d: (
        lambda x, y: f(x, y, 0, 0.5), [rand((2, 3), d), rand((2, 3), d)]),
    "aten::huber_loss": lambda f, d: (
        lambda x, y: f(x, y, 2, 0.5), [rand((2, 3), d), rand((2, 3), d)]),
    "aten::kl_div": lambda f, d: (
        lambda x, y: f(torch.log_softmax(x, 1), torch.softmax(y, 1)),
        [rand((2, 3), d), rand((2, 3), d)]),
    "aten::bincount": lambda f, d: (
        lambda i, w: torch.cat([f(i).double(), f(i, w, 6).double()]),
        [torch.tensor([3, 0, 3, 1]), rand((4,), f32)]),
    # complex (kernels/ops/complex.cc) and spectral (kernels/ops/spectral.cc)
    "aten::view_as_complex": lambda f, d: (lambda x: f(x), [rand((3, 2), d)]),
    "aten::polar": lambda f, d: (lambda a, t: f(a, t), [positive((2, 3), d), rand((2, 3), d)]),
    "aten::_fft_r2c": lambda f, d: (lambda x: f(x, [0, 1], 2, True), [rand((4, 5), d)]),
    "aten::_fft_c2r": lambda f, d: (lambda x: f(x, [0, 1], 1, 7), [rand((3, 4), d)]),
    "aten::_fft_c2c": lambda f, d: (lambda x: f(x, [1, 0], 0, False), [rand((3, 5), d)]),
    "aten::fft_fft": lambda f, d: (lambda x: f(x, 7, 0, "ortho"), [rand((5, 3), d)]),
    "aten::fft_ifft": lambda f, d: (lambda x: f(x, 4, -1, "forward"), [rand((2, 6), d)]),
    "aten::fft_rfft": lambda f, d: (lambda x: f(x, 5, 1), [rand((2, 8), d)]),
    "aten::fft_irfft": lambda f, d: (lambda x: f(x, 9, 1, "ortho"), [rand((2, 4), d)]),
    "aten::fft_fft2": lambda f, d: (lambda x: f(x), [rand((2, 3, 5), d)]),
    "aten::fft_ifft2": lambda f, d: (lambda x: f(x, [4, 3], [0, 2]), [rand((3, 2, 5), d)]),
    "aten::fft_rfft2": lambda f, d: (lambda x: f(x, None, [0, 1], "forward"), [rand((4, 6), d)]),
    "aten::fft_irfft2": lambda f, d: (lambda x: f(x, [3, 6]), [rand((3, 4), d)]),
    "aten::fft_fftn": lambda f, d: (lambda x: f(x, [4, 6]), [rand((2, 3, 5), d)]),
    "aten::fft_ifftn": lambda f, d: (lambda x: f(x, None, [0, 2]), [rand((3, 2, 5), d)]),
    "aten::fft_rfftn": lambda f, d: (lambda x: f(x, None, [2, 0], "ortho"), [rand((3, 2, 5), d)]),
    "aten::fft_irfftn": lambda f, d: (lambda x: f(x, [2, 5], [0, 2]), [rand((2, 2, 4), d)]),
    "aten::hann_window": lambda f, d: (HannWindow(f, d, (10,)), [rand((1,), f32)]),
    "aten::hann_window.periodic": lambda f, d: (HannWindow(f, d, (9, False)), [rand((1,), f32)]),
    "aten::stft": lambda f, d: (
        lambda x, w: f(x, 16, 4, 12, w, True, True, True), [rand((40,), d), rand((12,), d)]),
    "aten::stft.center": lambda f, d: (
        lambda x, w: f(x, 16, 4, 16, w, True, "reflect", False, True, True),
        [rand((2, 40), d), positive((16,), d)]),
    "aten::istft": lambda f, d: (
        lambda s, w: f(s, 16, 4, 16, w, True, False, True, 37, False),
        [torch.stft(rand((40,), part(d)), 16, 4, window=torch.hann_window(16, dtype=part(d)) + 0.1,
                    return_complex=True), torch.hann_window(16, dtype=part(d)) + 0.1]),
    "aten::unfold": lambda f, d: (lambda x: f(x, 1, 3, 2), [rand((2, 8), d)]),
    # class losses (kernels/shapes/reduction/class_loss.h): ignored targets, weights, label
    # smoothing, probability targets, a spatial [N, C, H, W] case, every reduction
    "aten::nll_loss": lambda f, d: (
        lambda x, w: torch.cat([f(torch.log_softmax(x, 1), torch.tensor([1, 2, 0, 1]), w, 1, 2)
                                .reshape(1), f(x, torch.tensor([3, 3, 1, 0]), None, 0, -100)]),
        [rand((4, 4), d), positive((4,), d)]),
    "aten::nll_loss_nd": lambda f, d: (
        lambda x: torch.cat([f(x, torch.tensor([[[0, 2], [1, 1]]]), None, 0, 1).flatten(),
                             f(x, torch.tensor([[[0, 2], [1, 2]]]), None, 2, -100).reshape(1)]),
        [rand((1, 3, 2, 2), d)]),
    "aten::nll_loss_forward": lambda f, d: (
        lambda x, w: torch.cat([t.reshape(-1) for t in (
            *f(x, torch.tensor([2, -100, 0]), w, 1, -100),
            *f(x[0], torch.tensor(1), None, 2, -100), *f(x, torch.tensor([1, 0, 2]), w, 0, 0))]),
        [rand((3, 3), d), positive((3,), d)]),
    "aten::nll_loss2d_forward": lambda f, d: (
        lambda x: torch.cat([t.reshape(-1) for t in f(
            x, torch.tensor([[[0, 1], [2, 1]], [[1, 1], [0, 0]]]), None, 1, 2)]),
        [rand((2, 3, 2, 2), d)]),
    "aten::cross_entropy_loss": lambda f, d: (
        lambda x, p, w: torch.cat([
            f(x, torch.tensor([1, 4, 0, 2]), w, 1, 4, 0.2).reshape(1),
            f(x, torch.tensor([3, 3, 1, 0]), None, 0, -100, 0.0),
            f(x, torch.softmax(p, 1), w, 2, -100, 0.1).reshape(1),
            f(x.reshape(2, 2, 5).transpose(1, 2), torch.tensor([[1, 4], [0, 3]]),
              None, 1, -100, 0.0).reshape(1)]),
        [rand((4, 5), d), rand((4, 5), d), positive((5,), d)]),
    # set membership: repeated values, a NaN (equal to nothing), invert, scalar forms
    "aten::isin.Tensor_Tensor": lambda f, d: (
        lambda x, t: torch.cat([f(x, t), f(x, t, invert=True), f(x, x[:1].flatten())]),
        [torch.tensor([1, 2, 3, 4, 2, 7]).to(d), torch.tensor([2, 7, 7, 9]).to(d)]),
    "aten::isin.Tensor_Scalar": lambda f, d: (
        lambda x: torch.cat([f(x, 2), f(x, 3, invert=True)]), [torch.tensor([1, 2, 3, 2]).to(d)]),
    "aten::isin.Scalar_Tensor": lambda f, d: (
        lambda t: torch.stack([f(2, t), f(5, t, invert=True)]), [torch.tensor([1, 2, 3]).to(d)]),
    "aten::mode": lambda f, d: (
        lambda x: torch.cat([t.double().flatten() for t in (*f(x, 1), *f(x, 0, True))]),
        [torch.tensor([[3, 1, 3, 1, 2], [5, 5, 4, 4, 4], [2, 2, 1, 1, 0], [7, 6, 7, 6, 9]])
         .to(d)]),
}


def part(d):
    """The real dtype of complex `d`'s parts."""
    return {torch.complex64: torch.float32, torch.complex128: torch.float64}.get(d, d)


class HannWindow(torch.nn.Module):
    """A window the program creates (no input needed; an unused input keeps export's
    signature): its dtype is the catalogue's key."""

    def __init__(self, f, d, args):
        super().__init__()
        self.f, self.d, self.args = f, d, args

    def forward(self, x):
        return self.f(*self.args, dtype=self.d)

