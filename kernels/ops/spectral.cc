// The spectral family of the op catalogue (kernels/ops/catalogue.h): the FFTs (ATen's
// _fft_r2c/_fft_c2r/_fft_c2c, which the core IR holds, and the torch.fft functions the training
// IR keeps), the short-time transforms and their window (kernels/shapes/spectral/). Each row: the
// op, then the dtypes each backend implements (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kSpectralRows[] = {
    {"aten::_fft_c2c",               {kC64, kC128},             {}, {}},
    {"aten::_fft_c2r",               {kC64, kC128},             {}, {}},
    {"aten::_fft_r2c",               {kF32, kF64},              {}, {}},
    {"aten::fft_fft",                {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::fft_fft2",               {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::fft_fftn",               {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::fft_ifft",               {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::fft_ifft2",              {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::fft_ifftn",              {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::fft_irfft",              {kC64, kC128},             {}, {}},
    {"aten::fft_irfft2",             {kC64, kC128},             {}, {}},
    {"aten::fft_irfftn",             {kC64, kC128},             {}, {}},
    {"aten::fft_rfft",               {kF32, kF64},              {}, {}},
    {"aten::fft_rfft2",              {kF32, kF64},              {}, {}},
    {"aten::fft_rfftn",              {kF32, kF64},              {}, {}},
    {"aten::hann_window",            {kF32, kF64},              {}, {}},
    {"aten::hann_window.periodic",   {kF32, kF64},              {}, {}},
    {"aten::istft",                  {kC64, kC128},             {}, {}},
    {"aten::stft",                   {kF32, kF64},              {}, {}},
    {"aten::stft.center",            {kF32, kF64},              {}, {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> spectral_rows() { return kSpectralRows; }

}  // namespace tir::kernels::ops
