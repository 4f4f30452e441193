#include "kernels/shapes/sort_select/search.h"

#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

/// sorted_sequence at `seq_at`, the values at `values_at`; out_int32 and right at `flags_at`,
/// side (searchsorted) after them and the sorter after that.
Result<SearchParams> prepare(const KernelCall& call, size_t seq_at, size_t values_at,
                             size_t flags_at, bool searchsorted) {
  TIR_RETURN_IF_ERROR(check_arity(call, flags_at + (searchsorted ? 4 : 2), 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* seq, tensor_arg(call, seq_at, "sorted_sequence"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *seq, "sorted_sequence"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *seq, "sorted_sequence"));
  SearchParams p;
  TIR_ASSIGN_OR_RETURN(p.values, operand_arg(call, values_at, "self"));
  TIR_ASSIGN_OR_RETURN(const bool out_int32, bool_arg(call, flags_at, "out_int32"));
  TIR_ASSIGN_OR_RETURN(p.right, bool_arg(call, flags_at + 1, "right"));
  if (searchsorted) {
    const Arg& side = call.args[flags_at + 2];
    if (side.kind == ArgKind::kString) {
      if (side.s != "left" && side.s != "right")
        return op_error(call, StatusCode::kInvalidArgument, "side must be 'left' or 'right'");
      if (p.right && side.s == "left")
        return op_error(call, StatusCode::kInvalidArgument, "side 'left' and right=True");
      p.right = side.s == "right";
    }
    if (!call.args[flags_at + 3].is_none())
      return op_error(call, StatusCode::kUnsupported, "a sorter is not supported");
  }
  if (seq->rank < 1)
    return op_error(call, StatusCode::kInvalidArgument, "sorted_sequence must have a dim");
  const std::span<const int64_t> shape = p.values.shape;
  const int vr = static_cast<int>(shape.size());
  if (seq->rank > 1) {  // one sequence per row: self's leading dims must be its own
    if (vr != seq->rank || !std::equal(shape.begin(), shape.end() - 1, seq->sizes.begin()))
      return op_error(call, StatusCode::kInvalidArgument, "sorted_sequence ",
                      shape_str(seq->shape()), " and values ", shape_str(shape),
                      " differ in their leading dims");
    p.rows = prod(seq->shape(), 0, seq->rank - 1);
  }
  p.n = seq->sizes[seq->rank - 1];
  int64_t count = 1;
  for (int64_t s : shape) count *= s;
  p.per_row = p.rows ? count / p.rows : 0;
  p.sorted = static_cast<int>(tensor_input_index(call, seq_at));
  p.out = out_int32 ? DType::kInt32 : DType::kInt64;
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(std::vector<int64_t>(shape.begin(), shape.end()));
  return p;
}

}  // namespace

Result<SearchParams> search_prepare_searchsorted(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return prepare(call, 0, 1, 2, true);
}

Result<IsinParams> search_prepare_isin(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  IsinParams p;
  TIR_ASSIGN_OR_RETURN(p.elements, operand_arg(call, 0, "elements"));
  TIR_ASSIGN_OR_RETURN(p.tests, operand_arg(call, 1, "test_elements"));
  for (const Operand* o : {&p.elements, &p.tests})
    if (o->input >= 0) {
      TIR_RETURN_IF_ERROR(require_contiguous(call, call.inputs[o->input], "elements"));
      TIR_RETURN_IF_ERROR(require_supported_dtype(call, call.inputs[o->input], "elements"));
    }
  TIR_ASSIGN_OR_RETURN(p.invert, bool_arg(call, 3, "invert"));
  const auto numel = [](std::span<const int64_t> shape) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  };
  p.count = numel(p.elements.shape);
  p.tests_count = numel(p.tests.shape);
  call.outputs[0].dtype = DType::kBool;
  call.outputs[0].set_shape(std::vector<int64_t>(p.elements.shape.begin(), p.elements.shape.end()));
  return p;
}

Result<SearchParams> search_prepare_bucketize(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return prepare(call, 1, 0, 2, false);
}

}  // namespace tir::kernels
