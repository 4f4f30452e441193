// What the `tir` module's source files share: tir.Error and turning a Status into it.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "core/status.h"

namespace tir::python {

namespace py = pybind11;

inline py::object& error_type() {
  static py::object type;
  return type;
}

inline const char* code_name(tir::StatusCode code) {
  switch (code) {
    case tir::StatusCode::kOk:
      return "ok";
    case tir::StatusCode::kInvalidArgument:
      return "invalid_argument";
    case tir::StatusCode::kNotFound:
      return "not_found";
    case tir::StatusCode::kUnsupported:
      return "unsupported";
    case tir::StatusCode::kCorrupt:
      return "corrupt";
    case tir::StatusCode::kIo:
      return "io";
    case tir::StatusCode::kInternal:
      return "internal";
  }
  return "unknown";
}

[[noreturn]] inline void raise(tir::StatusCode code, const std::string& message) {
  py::object exc = error_type()(message);
  exc.attr("code") = code_name(code);
  PyErr_SetObject(error_type().ptr(), exc.ptr());
  throw py::error_already_set();
}

inline void check(const tir::Status& st) {
  if (!st.ok()) raise(st.code(), st.message());
}

template <typename T>
T unwrap(tir::Result<T> r) {
  if (!r.ok()) raise(r.status().code(), r.status().message());
  return std::move(r).value();
}

inline std::string type_name(const py::handle& h) {
  return py::str(py::type::of(h).attr("__name__")).cast<std::string>();
}

/// `h` as a T; a TypeError naming the argument and what it takes otherwise (pybind11's own
/// message names neither: "Unable to cast Python instance of type X to C++ type '?'").
template <typename T>
T cast_arg(const py::handle& h, const std::string& argument, const char* expected) {
  try {
    return h.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(argument + " must be " + expected + ", not " + type_name(h));
  }
}

/// Adds tir.Generator (python/generate_binding.cc).
void bind_generate(py::module_& m);

}  // namespace tir::python
