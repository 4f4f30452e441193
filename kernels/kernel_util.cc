#include "kernels/kernel_util.h"

#include <algorithm>

namespace tir::kernels {
namespace {

const char* kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::kNone:
      return "None";
    case ArgKind::kInt:
      return "int";
    case ArgKind::kFloat:
      return "float";
    case ArgKind::kBool:
      return "bool";
    case ArgKind::kInts:
      return "int[]";
    case ArgKind::kFloats:
      return "float[]";
    case ArgKind::kBools:
      return "bool[]";
    case ArgKind::kString:
      return "str";
    case ArgKind::kTensor:
      return "Tensor";
    case ArgKind::kTensors:
      return "Tensor[]";
    case ArgKind::kDType:
      return "ScalarType";
    case ArgKind::kMemoryFormat:
      return "MemoryFormat";
    case ArgKind::kLayout:
      return "Layout";
    case ArgKind::kDevice:
      return "Device";
  }
  return "?";
}

Result<const Arg*> get_arg(const KernelCall& call, size_t idx, std::string_view name) {
  if (idx >= call.args.size()) {
    return op_error(call, StatusCode::kInvalidArgument, "missing argument '", name, "' (position ",
                    idx, ", got ", call.args.size(), " args)");
  }
  return &call.args[idx];
}

Status wrong_kind(const KernelCall& call, std::string_view name, const char* want, ArgKind got) {
  return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' must be ", want,
                  ", got ", kind_name(got));
}

}  // namespace

Status check_arity(const KernelCall& call, size_t n_args, size_t n_outputs) {
  if (call.args.size() < n_args) {
    return op_error(call, StatusCode::kInvalidArgument, "expected ", n_args, " arguments, got ",
                    call.args.size());
  }
  if (call.outputs.size() != n_outputs) {
    return op_error(call, StatusCode::kInvalidArgument, "expected ", n_outputs, " outputs, got ",
                    call.outputs.size());
  }
  return ok_status();
}

Result<const Tensor*> optional_tensor_arg(const KernelCall& call, size_t idx,
                                          std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Arg* a, get_arg(call, idx, name));
  if (a->kind == ArgKind::kNone) return static_cast<const Tensor*>(nullptr);
  if (a->kind != ArgKind::kTensor) return wrong_kind(call, name, "a Tensor", a->kind);
  if (a->i < 0 || static_cast<size_t>(a->i) >= call.inputs.size()) {
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' refers to input ",
                    a->i, " of ", call.inputs.size());
  }
  const Tensor* t = &call.inputs[a->i];
  if (t->rank < 0 || t->rank > kMaxRank) {
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' has rank ", t->rank);
  }
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] < 0) {
      return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                      "' has a negative size");
    }
  }
  return t;
}

Result<const Tensor*> tensor_arg(const KernelCall& call, size_t idx, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Tensor* t, optional_tensor_arg(call, idx, name));
  if (t == nullptr) {
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                    "' must be a Tensor, got None");
  }
  return t;
}

Result<int64_t> int_arg(const KernelCall& call, size_t idx, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Arg* a, get_arg(call, idx, name));
  if (a->kind == ArgKind::kInt || a->kind == ArgKind::kBool) return a->i;
  return wrong_kind(call, name, "an int", a->kind);
}

Result<bool> bool_arg(const KernelCall& call, size_t idx, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Arg* a, get_arg(call, idx, name));
  if (a->kind == ArgKind::kBool || a->kind == ArgKind::kInt) return a->i != 0;
  return wrong_kind(call, name, "a bool", a->kind);
}

Result<double> scalar_arg(const KernelCall& call, size_t idx, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Arg* a, get_arg(call, idx, name));
  if (a->kind == ArgKind::kInt || a->kind == ArgKind::kFloat || a->kind == ArgKind::kBool) {
    return a->scalar();
  }
  return wrong_kind(call, name, "a number", a->kind);
}

Result<std::span<const int64_t>> ints_arg(const KernelCall& call, size_t idx,
                                          std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Arg* a, get_arg(call, idx, name));
  if (a->kind == ArgKind::kInts) return a->ints;
  if (a->kind == ArgKind::kInt) return std::span<const int64_t>(&a->i, 1);
  return wrong_kind(call, name, "an int list", a->kind);
}

Result<std::optional<std::span<const int64_t>>> optional_ints_arg(const KernelCall& call,
                                                                  size_t idx,
                                                                  std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Arg* a, get_arg(call, idx, name));
  if (a->kind == ArgKind::kNone) return std::optional<std::span<const int64_t>>();
  TIR_ASSIGN_OR_RETURN(auto v, ints_arg(call, idx, name));
  return std::optional<std::span<const int64_t>>(v);
}

Result<std::array<int64_t, 2>> expand_param(const KernelCall& call, std::span<const int64_t> v,
                                            std::string_view name,
                                            std::optional<std::array<int64_t, 2>> empty_default) {
  if (v.empty() && empty_default) return *empty_default;
  if (v.size() == 1) return std::array<int64_t, 2>{v[0], v[0]};
  if (v.size() == 2) return std::array<int64_t, 2>{v[0], v[1]};
  return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                  "' must have 1 or 2 elements, got ", v.size());
}

Result<int> normalize_dim(const KernelCall& call, int64_t dim, int rank, std::string_view name) {
  const int64_t r = std::max(rank, 1);  // scalars accept dims -1 and 0
  if (dim < -r || dim >= r) {
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' = ", dim,
                    " is out of range for a tensor of rank ", rank);
  }
  return static_cast<int>(dim < 0 ? dim + r : dim);
}

Status require_contiguous(const KernelCall& call, const Tensor& t, std::string_view name) {
  if (t.is_contiguous()) return ok_status();
  return op_error(call, StatusCode::kUnsupported, "argument '", name,
                  "' is not contiguous (strided inputs are not supported)");
}

Status require_dtype(const KernelCall& call, const Tensor& t, DType dtype, std::string_view name) {
  if (t.dtype == dtype) return ok_status();
  return op_error(call, StatusCode::kUnsupported, "argument '", name, "' has dtype ",
                  dtype_name(t.dtype), ", only ", dtype_name(dtype), " is supported");
}

Result<std::vector<int64_t>> broadcast_shapes(const KernelCall& call, std::span<const int64_t> a,
                                              std::span<const int64_t> b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      return op_error(call, StatusCode::kInvalidArgument, "shapes ", shape_str(a), " and ",
                      shape_str(b), " cannot be broadcast (dim ", i, ": ", da, " vs ", db, ")");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

BroadcastPlan make_broadcast_plan(std::span<const int64_t> out, std::span<const int64_t> a,
                                  std::span<const int64_t> b) {
  BroadcastPlan p;
  p.rank = static_cast<int>(out.size());
  auto fill = [&](std::span<const int64_t> in, std::array<int64_t, kMaxRank>& strides) {
    int64_t s = 1;
    for (int i = p.rank - 1; i >= 0; --i) {
      const int j = i - (p.rank - static_cast<int>(in.size()));
      const int64_t size = j >= 0 ? in[j] : 1;
      strides[i] = size == 1 ? 0 : s;  // size-1 dims never advance
      s *= size;
    }
  };
  for (int i = 0; i < p.rank; ++i) p.sizes[i] = out[i];
  fill(a, p.a_strides);
  fill(b, p.b_strides);
  return p;
}

Result<const Tensor*> self_operand(const KernelCall& call, size_t n_args) {
  TIR_RETURN_IF_ERROR(check_arity(call, n_args, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (dtype_size(x->dtype) == 0)
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has an undefined dtype");
  return x;
}

}  // namespace tir::kernels
