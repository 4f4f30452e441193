// CUDA elementwise kernels: broadcasting add/sub/mul/div and every float32 activation and
// unary map the CPU registers (shapes/unary/activation.h), on tir's own kernels (elementwise.cu).
#include "kernels/cuda/cuda_kernel.h"
#include "kernels/cuda/launch.h"
#include "kernels/cuda/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/binary/arithmetic.h"
#include "kernels/shapes/unary/activation.h"

namespace tir::kernels::cuda {
namespace {

Result<BinaryParams> check_binary(Result<BinaryParams> p, const KernelCall& call) {
  if (!p.ok()) return p;
  if (p->dtype != DType::kFloat32 || p->strided)
    return op_error(call, StatusCode::kUnsupported, "the CUDA kernel takes contiguous float32");
  if (p->b_scalar && p->b_input >= 0 && p->b_dtype != DType::kFloat32 &&
      p->b_dtype != DType::kInt64 && p->b_dtype != DType::kInt32 && p->b_dtype != DType::kFloat64)
    return op_error(call, StatusCode::kUnsupported, "the CUDA kernel takes no ",
                    dtype_name(p->b_dtype), " 0-d tensor");
  return p;
}

template <BinaryKind Op>
Result<BinaryParams> binary_prepare(const KernelCall& call, PrepareInfo* out_info) {
  return check_binary(eltwise_prepare_binary<Op>(call, out_info), call);
}

void dense_strides(int rank, const int64_t* sizes, int64_t* strides) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= sizes[d];
  }
}

Status binary_launch(const BinaryParams& p, const KernelCall& call, CudaContext& ctx) {
  const int rank = p.plan.rank;
  if (rank > 8) return op_error(call, StatusCode::kUnsupported, "rank over 8 on CUDA");
  Operand a, b;
  if (p.a_scalar) {  // b has the output's shape
    a.kind = OperandKind::kNumber;
    a.value = static_cast<float>(p.a_value);
    b.kind = OperandKind::kTensor;
    b.data = call.inputs[p.b_input].data;
    dense_strides(rank, p.plan.sizes.data(), b.strides);
  } else if (p.b_scalar) {  // a has the output's shape
    a.kind = OperandKind::kTensor;
    a.data = call.inputs[p.a_input].data;
    dense_strides(rank, p.plan.sizes.data(), a.strides);
    if (p.b_input < 0) {
      b.kind = OperandKind::kNumber;
      b.value = static_cast<float>(p.b_value);
    } else {
      b.kind = p.b_dtype == DType::kFloat32 ? OperandKind::kDeviceScalar
               : p.b_dtype == DType::kInt64 ? OperandKind::kDeviceScalarI64
               : p.b_dtype == DType::kInt32 ? OperandKind::kDeviceScalarI32
                                            : OperandKind::kDeviceScalarF64;
      b.data = call.inputs[p.b_input].data;
    }
  } else {
    a.kind = OperandKind::kTensor;
    a.data = call.inputs[p.a_input].data;
    b.kind = p.b_bool ? OperandKind::kBoolTensor : OperandKind::kTensor;
    b.data = call.inputs[p.b_input].data;
    for (int d = 0; d < rank; ++d) {
      a.strides[d] = p.plan.a_strides[d];
      b.strides[d] = p.plan.b_strides[d];
    }
  }
  const BinaryKind op = p.op;
  return launch_status(
      call, binary_f32(op, a, b, static_cast<float>(p.alpha), call.outputs[0].data_as<float>(),
                       rank, p.plan.sizes.data(), ctx.stream));
}

Status relu_launch(const UnaryParams& p, const KernelCall& call, CudaContext& ctx) {
  return launch_status(call,
                       unary_f32(UnaryKind::kRelu, call.inputs[p.input].data_as<const float>(),
                                 call.outputs[0].data_as<float>(), p.numel, 0, 0, ctx.stream));
}

template <UnaryKind Op>
Result<ActParams> act_prepare_f32(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(ActParams p, act_prepare<Op>(call, out_info));
  if (p.dtype != DType::kFloat32 || p.out_dtype != DType::kFloat32)
    return op_error(call, StatusCode::kUnsupported, "the CUDA kernel takes float32");
  return p;
}

Status act_launch(const ActParams& p, const KernelCall& call, CudaContext& ctx) {
  return launch_status(call, unary_f32(p.op, call.inputs[p.input].data_as<const float>(),
                                       call.outputs[0].data_as<float>(), p.numel,
                                       static_cast<float>(p.a.as_double()),
                                       static_cast<float>(p.b.as_double()), ctx.stream));
}

template <BinaryKind Op>
using BinaryCuda = CudaKernel<BinaryParams, binary_prepare<Op>, binary_launch>;
using ReluCuda = CudaKernel<UnaryParams, act_prepare_unary_float, relu_launch>;
template <UnaryKind Op>
using ActCuda = CudaKernel<ActParams, act_prepare_f32<Op>, act_launch>;

}  // namespace

void register_eltwise_cuda(KernelRegistry& registry) {
  registry.add({
      {"aten::add.Tensor", kGpu, kF32, kOpt, &make_kernel<BinaryCuda<BinaryKind::kAdd>>},
      {"aten::add_.Tensor", kGpu, kF32, kOpt, &make_kernel<BinaryCuda<BinaryKind::kAdd>>},
      {"aten::add.Scalar", kGpu, kF32, kOpt, &make_kernel<BinaryCuda<BinaryKind::kAdd>>},
      {"aten::sub.Tensor", kGpu, kF32, kOpt, &make_kernel<BinaryCuda<BinaryKind::kSub>>},
      {"aten::mul.Tensor", kGpu, kF32, kOpt, &make_kernel<BinaryCuda<BinaryKind::kMul>>},
      {"aten::mul_.Tensor", kGpu, kF32, kOpt, &make_kernel<BinaryCuda<BinaryKind::kMul>>},
      {"aten::mul.Scalar", kGpu, kF32, kOpt, &make_kernel<BinaryCuda<BinaryKind::kMul>>},
      {"aten::div.Tensor", kGpu, kF32, kOpt, &make_kernel<BinaryCuda<BinaryKind::kDiv>>},
      {"aten::relu", kGpu, kF32, kOpt, &make_kernel<ReluCuda>},
      {"aten::relu_", kGpu, kF32, kOpt, &make_kernel<ReluCuda>},
      {"aten::gelu", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kGeluErf>>},
      {"aten::tanh", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kTanh>>},
      {"aten::sigmoid", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kSigmoid>>},
      {"aten::silu", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kSilu>>},
      {"aten::rsqrt", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kRsqrt>>},
      {"aten::exp", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kExp>>},
      {"aten::pow.Tensor_Scalar", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kPowScalar>>},
      {"aten::hardswish", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kHardswish>>},
      {"aten::hardsigmoid", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kHardsigmoid>>},
      {"aten::hardtanh", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kHardtanh>>},
      {"aten::relu6", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kRelu6>>},
      {"aten::neg", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kNeg>>},
      {"aten::log", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kLog>>},
      {"aten::sqrt", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kSqrt>>},
      {"aten::abs", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kAbs>>},
      {"aten::erf", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kErf>>},
      {"aten::rsub.Scalar", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kRsub>>},
      {"aten::sub.Scalar", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kSubScalar>>},
      {"aten::div.Scalar", kGpu, kF32, kOpt, &make_kernel<ActCuda<UnaryKind::kDivScalar>>},
  });
}
}  // namespace tir::kernels::cuda
