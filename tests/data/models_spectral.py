"""Small modules with complex tensors and FFTs (issue 47 item 1), shared by
gen_arch_spectral.py (fixtures/arch_spectral/) and gen_dynamic.py (log_mel_dyn).

Each follows the code it stands for: LogMel is Whisper's log_mel_spectrogram (whisper/audio.py:
hann window, stft, |.|^2 of all but the last frame, mel filterbank matmul, log10 of the clamped
power, a floor 8 below the maximum, (x + 4) / 4) at a small n_fft; LlamaRotary is the rotary
embedding of Meta's Llama reference code (llama/model.py: precompute_freqs_cis with
torch.polar, view_as_complex of the reshaped q/k, a complex product, view_as_real, flatten);
FNetMixing is FNet's Fourier token mixing (transformers' FNetBasicFourierTransform:
torch.fft.fftn over (seq, hidden), .real) in a residual block.
"""

import math

import torch
from torch import nn


def mel_filters(n_mels, n_fft, sample_rate=16000):
    """Triangular mel filterbank [n_mels, n_fft // 2 + 1] (the shape of Whisper's mel_filters)."""
    n_freqs = n_fft // 2 + 1
    mel = lambda f: 2595.0 * math.log10(1.0 + f / 700.0)  # noqa: E731
    hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)  # noqa: E731
    points = torch.tensor([hz(m) for m in torch.linspace(mel(0), mel(sample_rate / 2), n_mels + 2).tolist()])
    freqs = torch.linspace(0, sample_rate / 2, n_freqs)
    lower, center, upper = points[:-2, None], points[1:-1, None], points[2:, None]
    up = (freqs[None] - lower) / (center - lower)
    down = (upper - freqs[None]) / (upper - center)
    return torch.clamp(torch.minimum(up, down), min=0.0)


class LogMel(nn.Module):
    """Whisper's log-mel front end on a mono waveform [T] -> [n_mels, T // hop]."""

    def __init__(self, n_fft=64, hop=16, n_mels=10):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("filters", mel_filters(n_mels, n_fft))

    def forward(self, audio):
        window = torch.hann_window(self.n_fft)
        stft = torch.stft(audio, self.n_fft, self.hop, window=window, return_complex=True)
        magnitudes = stft[..., :-1].abs() ** 2
        mel_spec = self.filters @ magnitudes
        log_spec = torch.clamp(mel_spec, min=1e-10).log10()
        log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
        return (log_spec + 4.0) / 4.0


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class LlamaRotary(nn.Module):
    """Llama reference attention with rotary embeddings. `in_graph`: freqs_cis is computed in
    forward (torch.polar in the program); else it is a complex64 buffer sliced there (a complex
    tensor in the weight file)."""

    def __init__(self, dim=32, n_heads=4, max_seq=16, in_graph=False):
        super().__init__()
        self.n_heads, self.head_dim, self.in_graph = n_heads, dim // n_heads, in_graph
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        if not in_graph:
            self.register_buffer("freqs_cis", precompute_freqs_cis(self.head_dim, max_seq))

    def forward(self, x):
        bsz, seqlen, _ = x.shape
        freqs_cis = (precompute_freqs_cis(self.head_dim, seqlen) if self.in_graph
                     else self.freqs_cis[:seqlen])
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)
        xq, xk, xv = xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2)
        scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
        out = torch.matmul(torch.softmax(scores.float(), dim=-1).type_as(xq), xv)
        return self.wo(out.transpose(1, 2).contiguous().view(bsz, seqlen, -1))


class FNetMixing(nn.Module):
    """FNet's Fourier mixing block: LayerNorm(x + Re(fft2(x over seq, hidden))), then a
    feed-forward with a residual."""

    def __init__(self, dim=16):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x):
        mixed = torch.fft.fftn(x, dim=(1, 2)).real
        h = self.norm1(x + mixed)
        return self.norm2(h + self.ff(h))


class FNetFft(nn.Module):
    """FNet's mixing as two one-dim torch.fft.fft calls (hidden, then seq), .real."""

    def forward(self, x):
        return torch.fft.fft(torch.fft.fft(x, dim=-1), dim=-2).real


class StftRoundTrip(nn.Module):
    """stft then istft with a hann window (center, reflect padding): the waveform back, and the
    spectrum itself (a complex output)."""

    def __init__(self, n_fft=32, hop=8):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, audio):
        spec = torch.stft(audio, self.n_fft, self.hop, window=self.window, return_complex=True)
        back = torch.istft(spec, self.n_fft, self.hop, window=self.window, length=audio.shape[-1])
        return back, spec


class FftVariants(nn.Module):
    """torch.fft at odd and prime lengths with every norm: rfft/irfft (onesided, an odd n),
    fft/ifft, fft2 over two dims, rfftn/irfftn."""

    def forward(self, x):  # x: [3, 7, 10] float
        a = torch.fft.rfft(x, dim=1, norm="ortho")                # 7 -> 4
        b = torch.fft.irfft(a, n=7, dim=1, norm="ortho")          # back to 7 (odd)
        c = torch.fft.ifft(torch.fft.fft(x, norm="forward"), norm="forward")
        d = torch.fft.fft2(x)                                     # dims (-2, -1), no norm
        e = torch.fft.irfftn(torch.fft.rfftn(x, dim=(0, 2)), s=(3, 10), dim=(0, 2))
        return b, c.real, d.abs(), d.angle(), e


class ComplexArith(nn.Module):
    """Complex element-wise arithmetic and parts on complex64 inputs: the program takes and
    returns complex tensors."""

    def forward(self, z, w):  # complex64 [4, 5], [5]
        p = z * w + z.conj() - w / (z + 2.0)
        q = torch.polar(z.abs(), z.angle() + 0.5)
        return p, q, p.real * q.imag, torch.complex(z.real, w.imag.expand(4, 5))
