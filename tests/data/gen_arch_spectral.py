#!/usr/bin/env python3
"""Complex tensors and FFTs (issue 47 item 1): a Whisper-style log-mel front end (stft), the
rotary embedding of Meta's Llama reference code (torch.polar, view_as_complex, view_as_real;
freqs_cis as a complex64 buffer and computed in the program), FNet's Fourier mixing (fftn and
two torch.fft.fft calls, .real), an stft/istft round trip, torch.fft at odd lengths with every
norm, and complex arithmetic on complex64 inputs and outputs (models_spectral.py). Tiny
configs, both dialects, into fixtures/arch_spectral/<model>/<dialect>/ with their own
manifest.json (runnable_fixtures() in tests/common/test_util.h reads it).

    ~/.venvs/torch/bin/python tests/data/gen_arch_spectral.py

Expected outputs are torch's eager CPU outputs; each model's float64 run is checked to agree
with them within a tenth of the tolerance first, so the reference is stable.
"""

import os
import sys

import torch

import export_util
import gen
import models_spectral as ms

ROOT = os.path.join(gen.ROOT, "arch_spectral")


def wave(g, n):
    """A short waveform: two tones and noise."""
    t = torch.arange(n, dtype=torch.float32) / 16000.0
    return (0.5 * torch.sin(2 * torch.pi * 440.0 * t) + 0.25 * torch.sin(2 * torch.pi * 3000.0 * t)
            + 0.05 * torch.randn(n, generator=g))


def cplx(g, *shape):
    return torch.complex(torch.randn(*shape, generator=g), torch.randn(*shape, generator=g))


def as_real(t):
    return torch.view_as_real(t) if t.is_complex() else t


def disagreement(make_module, seed, make_inputs):
    """max |float32 - float64| of eager outputs, complex ones part by part."""
    torch.manual_seed(seed)
    module = make_module().eval()
    args, _ = make_inputs(torch.Generator().manual_seed(1000 + seed))
    wide = make_module().eval()
    wide.load_state_dict(module.state_dict())
    wide = wide.double()
    to64 = lambda t: t.double() if t.is_floating_point() else t.to(torch.complex128)  # noqa: E731
    with torch.no_grad():
        want = module(*args)
        got = wide(*[to64(a) for a in args])
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    return max(float((as_real(w).double() - as_real(g)).abs().max()) for w, g in zip(want, got))


# (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol)
MODELS = [
    ("log_mel", ms.LogMel, 91, lambda g: ((wave(g, 400),), {}), 1e-4),
    ("llama_rotary", ms.LlamaRotary, 92, lambda g: ((torch.randn(2, 6, 32, generator=g),), {}), 1e-4),
    ("llama_rotary_polar", lambda: ms.LlamaRotary(in_graph=True), 93,
     lambda g: ((torch.randn(2, 6, 32, generator=g),), {}), 1e-4),
    ("fnet_mixing", ms.FNetMixing, 94, lambda g: ((torch.randn(2, 6, 16, generator=g),), {}), 1e-4),
    ("fnet_fft", ms.FNetFft, 95, lambda g: ((torch.randn(2, 6, 16, generator=g),), {}), 1e-4),
    ("stft_round_trip", ms.StftRoundTrip, 96, lambda g: ((wave(g, 200),), {}), 1e-4),
    ("fft_variants", ms.FftVariants, 97, lambda g: ((torch.randn(3, 7, 10, generator=g),), {}), 1e-4),
    ("complex_arith", ms.ComplexArith, 98, lambda g: ((cplx(g, 4, 5), cplx(g, 5)), {}), 1e-4),
]


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    for name, make_module, seed, make_inputs, tol in MODELS:
        diff = disagreement(make_module, seed, make_inputs)
        assert diff < tol / 10, f"{name}: torch float32 vs float64 {diff}"
    fixtures = export_util.build_suite(ROOT, MODELS)
    export_util.write_manifest(ROOT, {**gen.versions(), "fixtures": fixtures})


if __name__ == "__main__":
    sys.exit(main())
