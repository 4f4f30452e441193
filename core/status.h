// The one error model of tir: Status and Result<T>. No exceptions cross a tir API and
// library code never aborts on bad input; tools turn a Status into `error: <message>`.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tir {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller passed something wrong (input shape, option, name)
  kNotFound,         // a named thing (file, member, tensor, input) does not exist
  kUnsupported,      // valid but not implemented (op without kernel, dtype, format)
  kCorrupt,          // a file is malformed or fails its checks
  kIo,               // the OS refused (open, read, write, mmap)
  kInternal,         // a bug in tir or a vendor library failure
};

/// Name of a code, for logs.
constexpr std::string_view status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kUnsupported:
      return "unsupported";
    case StatusCode::kCorrupt:
      return "corrupt";
    case StatusCode::kIo:
      return "io";
    case StatusCode::kInternal:
      return "internal";
  }
  return "?";
}

/// Ok, or a code and a one-line message that names the file, op, node, input or tensor.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  /// Returns a copy whose message is `prefix: message`, for adding context while the
  /// error travels up (e.g. the node name).
  Status with_context(std::string_view prefix) const {
    if (ok()) return *this;
    return Status(code_, std::string(prefix) + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status ok_status() { return Status(); }

/// Builds a Status from streamable parts: make_error(kNotFound, "input '", name, "'").
template <typename... Parts>
Status make_error(StatusCode code, const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return Status(code, os.str());
}

/// A value or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok())
      v_ = Status(StatusCode::kInternal, "Result built from ok Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace tir

#define TIR_CONCAT_INNER_(a, b) a##b
#define TIR_CONCAT_(a, b) TIR_CONCAT_INNER_(a, b)

/// Returns the Status of `expr` from the enclosing function if it is an error.
#define TIR_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::tir::Status tir_status_ = (expr);        \
    if (!tir_status_.ok()) return tir_status_; \
  } while (0)

/// `TIR_ASSIGN_OR_RETURN(auto x, make_x());` unwraps a Result or returns its error.
#define TIR_ASSIGN_OR_RETURN(lhs, expr) \
  TIR_ASSIGN_OR_RETURN_IMPL_(TIR_CONCAT_(tir_result_, __LINE__), lhs, expr)
#define TIR_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
