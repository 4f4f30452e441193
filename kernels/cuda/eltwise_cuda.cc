// CUDA elementwise kernels: broadcasting add/sub/mul/div and every float32 activation and
// unary map the CPU registers (shapes/unary/activation.h), on tir's own kernels (elementwise.cu).
#include "kernels/cuda/cuda_kernel.h"
#include "kernels/cuda/launch.h"
#include "kernels/cuda/register.h"
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

UnaryKind unary_kind(ActOp op) {
  switch (op) {
    case ActOp::kGelu:
      return UnaryKind::kGeluErf;
    case ActOp::kGeluTanh:
      return UnaryKind::kGeluTanh;
    case ActOp::kTanh:
      return UnaryKind::kTanh;
    case ActOp::kSigmoid:
      return UnaryKind::kSigmoid;
    case ActOp::kSilu:
      return UnaryKind::kSilu;
    case ActOp::kHardswish:
      return UnaryKind::kHardswish;
    case ActOp::kHardsigmoid:
      return UnaryKind::kHardsigmoid;
    case ActOp::kHardtanh:
      return UnaryKind::kHardtanh;
    case ActOp::kRelu6:
      return UnaryKind::kRelu6;
    case ActOp::kNeg:
      return UnaryKind::kNeg;
    case ActOp::kExp:
      return UnaryKind::kExp;
    case ActOp::kLog:
      return UnaryKind::kLog;
    case ActOp::kSqrt:
      return UnaryKind::kSqrt;
    case ActOp::kRsqrt:
      return UnaryKind::kRsqrt;
    case ActOp::kAbs:
      return UnaryKind::kAbs;
    case ActOp::kErf:
      return UnaryKind::kErf;
    case ActOp::kPowScalar:
      return UnaryKind::kPowScalar;
    case ActOp::kRsub:
      return UnaryKind::kRsub;
    case ActOp::kSubScalar:
      return UnaryKind::kSubScalar;
    case ActOp::kDivScalar:
      return UnaryKind::kDivScalar;
  }
  return UnaryKind::kNeg;
}

template <ActOp Op>
Result<ActParams> act_prepare_f32(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(ActParams p, act_prepare<Op>(call, out_info));
  if (p.dtype != DType::kFloat32 || p.out_dtype != DType::kFloat32)
    return op_error(call, StatusCode::kUnsupported, "the CUDA kernel takes float32");
  return p;
}

Status act_launch(const ActParams& p, const KernelCall& call, CudaContext& ctx) {
  return launch_status(
      call,
      unary_f32(unary_kind(p.op), call.inputs[p.input].data_as<const float>(),
                call.outputs[0].data_as<float>(), p.numel, static_cast<float>(p.a.as_double()),
                static_cast<float>(p.b.as_double()), ctx.stream));
}

template <BinaryKind Op>
using BinaryCuda = CudaKernel<BinaryParams, binary_prepare<Op>, binary_launch>;
using ReluCuda = CudaKernel<UnaryParams, eltwise_prepare_unary_float, relu_launch>;
template <ActOp Op>
using ActCuda = CudaKernel<ActParams, act_prepare_f32<Op>, act_launch>;

constexpr auto kOpt = KernelImpl::kOptimized;
constexpr auto kGpu = DeviceType::kCuda;
constexpr auto kF32 = DType::kFloat32;

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
      {"aten::gelu", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kGelu>>},
      {"aten::tanh", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kTanh>>},
      {"aten::sigmoid", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kSigmoid>>},
      {"aten::silu", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kSilu>>},
      {"aten::rsqrt", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kRsqrt>>},
      {"aten::exp", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kExp>>},
      {"aten::pow.Tensor_Scalar", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kPowScalar>>},
      {"aten::hardswish", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kHardswish>>},
      {"aten::hardsigmoid", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kHardsigmoid>>},
      {"aten::hardtanh", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kHardtanh>>},
      {"aten::relu6", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kRelu6>>},
      {"aten::neg", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kNeg>>},
      {"aten::log", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kLog>>},
      {"aten::sqrt", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kSqrt>>},
      {"aten::abs", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kAbs>>},
      {"aten::erf", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kErf>>},
      {"aten::rsub.Scalar", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kRsub>>},
      {"aten::sub.Scalar", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kSubScalar>>},
      {"aten::div.Scalar", kGpu, kF32, kOpt, &make_kernel<ActCuda<ActOp::kDivScalar>>},
  });
}
}  // namespace tir::kernels::cuda
