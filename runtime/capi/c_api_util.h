// What the C ABI's source files share (c_api.cc, c_generate.cc): the session options handle,
// the per-thread last error, and the guard that keeps C++ exceptions out of C.
#pragma once

#include <exception>
#include <string>

#include "core/status.h"
#include "include/tir/tir.h"
#include "runtime/exec/session.h"

struct tir_session_options {
  tir::SessionOptions options;
  int threads = 0;
  /// The built-in kernels and the custom ops added so far (tir_session_options_add_custom_op);
  /// null until one is. Each addition makes a new registry and CPU device in `options`, so a
  /// session already open on the old ones keeps them unchanged.
  std::shared_ptr<const tir::kernels::KernelRegistry> registry;
};

namespace tir::capi {

inline thread_local std::string last_error;

inline tir_status fail(const Status& st) {
  last_error = st.message();
  return static_cast<tir_status>(st.code());
}

inline tir_status fail(StatusCode code, const std::string& message) {
  return fail(Status(code, message));
}

/// Runs `body` (returning tir_status), turning any exception into TIR_INTERNAL.
template <typename F>
tir_status guarded(const char* fn, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return fail(StatusCode::kInternal, std::string(fn) + ": " + e.what());
  } catch (...) {
    return fail(StatusCode::kInternal, std::string(fn) + ": unknown exception");
  }
}

inline const SessionOptions& options_of(const tir_session_options* options) {
  static const SessionOptions kDefaults;
  return options ? options->options : kDefaults;
}

}  // namespace tir::capi

#define TIR_C_CHECK_ARG(ptr, fn)                            \
  if (!(ptr))                                               \
  return tir::capi::fail(tir::StatusCode::kInvalidArgument, \
                         std::string(fn) + ": '" #ptr "' is null")
