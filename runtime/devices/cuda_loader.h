// The CUDA device, from the CUDA module (libtir_cuda.so, runtime/devices/cuda_backend.h):
// loaded with dlopen on the first call that needs it, so a process that never asks for a
// CUDA device maps no CUDA library. Where the module is looked for:
//  1. $TIR_CUDA_BACKEND, when set: that file and nothing else;
//  2. installed beside libtir: <libdir>/tir/libtir_cuda.so, found from the file that holds
//     this code (libtir.so in <libdir>, or a program in <bindir> linked with libtir.a);
//  3. in the build tree, for programs that run from one: <build>/runtime/devices/, where
//     <build> is the nearest directory above this code's file that holds build.ninja.
// Every failure is one line naming what is missing: the paths tried, dlerror's text (a CUDA
// library the module needs), or the GPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/devices/cuda_backend.h"
#include "runtime/devices/device.h"

namespace tir {

/// True when this build has the CUDA module (meson option cuda).
bool cuda_built();

/// The files the CUDA module is looked for at, in order (see above).
std::vector<std::string> cuda_module_candidates();

/// Loads the module at `path` and checks its table (ABI and tir version); an error names the
/// path and what failed. Each call dlopens again (the loader keeps one handle per file).
Result<const CudaBackendTable*> cuda_backend_load(const std::string& path);

/// The module from the first of cuda_module_candidates() that exists, loaded once per
/// process (the outcome, success or error, is kept). Thread-safe.
Result<const CudaBackendTable*> cuda_backend();

/// The CUDA device for GPU `index`; an error names why none is usable (a build without CUDA,
/// no module, a CUDA library missing, no driver, no GPU, index out of range).
Result<std::shared_ptr<Device>> make_cuda_device(int index = 0);

}  // namespace tir
