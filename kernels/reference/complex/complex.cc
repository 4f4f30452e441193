// Reference kernels of the complex family and of the complex dtypes of the arithmetic rows:
// plain loops over std::complex<T>, T the part dtype (float or double). Each formula is the one
// ATen uses (std::abs, std::arg, std::polar; complex division as std::complex computes it).
#include "kernels/shapes/complex/complex.h"

#include <cmath>
#include <complex>
#include <cstring>

#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

template <typename T>
void unary(const ComplexParams& p, const KernelCall& call) {
  using C = std::complex<T>;
  const void* in = call.inputs[p.a_input].data;
  void* out = call.outputs[0].data;
  const C* x = static_cast<const C*>(in);
  const T* xr = static_cast<const T*>(in);
  T* y = static_cast<T*>(out);
  C* yc = static_cast<C*>(out);
  const int64_t n = p.numel;
  switch (p.op) {
    case ComplexOp::kViewAsReal:
    case ComplexOp::kViewAsComplex:
      std::memcpy(out, in, size_t(n) * 2 * sizeof(T));
      break;
    case ComplexOp::kReal:
      for (int64_t i = 0; i < n; ++i) y[i] = x[i].real();
      break;
    case ComplexOp::kImag:
      for (int64_t i = 0; i < n; ++i) y[i] = x[i].imag();
      break;
    case ComplexOp::kConj:
      if (!p.a_complex) {
        std::memcpy(out, in, size_t(n) * sizeof(T));
      } else {
        for (int64_t i = 0; i < n; ++i) yc[i] = std::conj(x[i]);
      }
      break;
    case ComplexOp::kAbs:
      for (int64_t i = 0; i < n; ++i) y[i] = std::abs(x[i]);
      break;
    case ComplexOp::kAngle:
      if (p.a_complex) {
        for (int64_t i = 0; i < n; ++i) y[i] = std::arg(x[i]);
      } else {  // ATen: NaN stays NaN, negative numbers give pi
        for (int64_t i = 0; i < n; ++i)
          y[i] = std::isnan(xr[i]) ? xr[i] : xr[i] < 0 ? T(M_PI) : T(0);
      }
      break;
    case ComplexOp::kNeg:
      for (int64_t i = 0; i < n; ++i) yc[i] = -x[i];
      break;
    default:
      break;
  }
}

template <typename T>
std::complex<T> load(const void* base, bool is_complex, int64_t i) {
  if (is_complex) return static_cast<const std::complex<T>*>(base)[i];
  return {static_cast<const T*>(base)[i], T(0)};
}

template <typename T>
void binary(const ComplexParams& p, const KernelCall& call) {
  using C = std::complex<T>;
  const void* a = call.inputs[p.a_input].data;
  const void* b = p.b_input >= 0 ? call.inputs[p.b_input].data : nullptr;
  C* y = call.outputs[0].data_as<C>();
  const C scalar(static_cast<T>(p.b_value), T(0));
  const T alpha = static_cast<T>(p.alpha);
  broadcast_for_each(p.plan, [&](int64_t o, int64_t ia, int64_t ib) {
    const C x = load<T>(a, p.a_complex, ia);
    const C v = b ? load<T>(b, p.b_complex, ib) : scalar;
    switch (p.op) {
      case ComplexOp::kPolar:  // parts are (abs, angle); std::polar asserts abs >= 0
        y[o] = C(x.real() * std::cos(v.real()), x.real() * std::sin(v.real()));
        break;
      case ComplexOp::kComplex:
        y[o] = C(x.real(), v.real());
        break;
      case ComplexOp::kAdd:
        y[o] = x + v * alpha;
        break;
      case ComplexOp::kSub:
        y[o] = x - v * alpha;
        break;
      case ComplexOp::kMul:
        y[o] = x * v;
        break;
      case ComplexOp::kDiv:
        y[o] = x / v;
        break;
      default:
        break;
    }
  });
}

bool is_binary(ComplexOp op) {
  return op == ComplexOp::kPolar || op == ComplexOp::kComplex || op == ComplexOp::kAdd ||
         op == ComplexOp::kSub || op == ComplexOp::kMul || op == ComplexOp::kDiv;
}

void ref_complex(const ComplexParams& p, const KernelCall& call, void*) {
  if (p.part == DType::kFloat64) {
    is_binary(p.op) ? binary<double>(p, call) : unary<double>(p, call);
  } else {
    is_binary(p.op) ? binary<float>(p, call) : unary<float>(p, call);
  }
}

template <Result<ComplexParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using ComplexKernel = FnKernel<ComplexParams, Prepare, ref_complex>;

constexpr DType kC64 = DType::kComplexFloat;
constexpr DType kC128 = DType::kComplexDouble;

template <ComplexOp Op>
constexpr auto kUnary = &make_kernel<ComplexKernel<complex_prepare_unary<Op>>>;
template <ComplexOp Op>
constexpr auto kBinary = &make_kernel<ComplexKernel<complex_prepare_binary<Op>>>;
template <ComplexOp Op>
constexpr auto kMake = &make_kernel<ComplexKernel<complex_prepare_make<Op>>>;

}  // namespace

void register_complex_ref(KernelRegistry& registry) {
  for (DType c : {kC64, kC128}) {
    registry.add({
        {"aten::view_as_real", kCpu, c, kRef,
         &make_kernel<ComplexKernel<complex_prepare_view_as_real>>},
        {"aten::real", kCpu, c, kRef, kUnary<ComplexOp::kReal>},
        {"aten::imag", kCpu, c, kRef, kUnary<ComplexOp::kImag>},
        {"aten::abs", kCpu, c, kRef, kUnary<ComplexOp::kAbs>},
        {"aten::neg", kCpu, c, kRef, kUnary<ComplexOp::kNeg>},
        {"aten::_conj", kCpu, c, kRef, kUnary<ComplexOp::kConj>},
        {"aten::add.Tensor", kCpu, c, kRef, kBinary<ComplexOp::kAdd>},
        {"aten::add.Scalar", kCpu, c, kRef, kBinary<ComplexOp::kAdd>},
        {"aten::sub.Tensor", kCpu, c, kRef, kBinary<ComplexOp::kSub>},
        {"aten::mul.Tensor", kCpu, c, kRef, kBinary<ComplexOp::kMul>},
        {"aten::mul.Scalar", kCpu, c, kRef, kBinary<ComplexOp::kMul>},
        {"aten::div.Tensor", kCpu, c, kRef, kBinary<ComplexOp::kDiv>},
        {"aten::div.Scalar", kCpu, c, kRef, kBinary<ComplexOp::kDiv>},
    });
  }
  for (DType d : {kF32, kF64}) {
    registry.add({
        {"aten::view_as_complex", kCpu, d, kRef,
         &make_kernel<ComplexKernel<complex_prepare_view_as_complex>>},
        {"aten::polar", kCpu, d, kRef, kMake<ComplexOp::kPolar>},
        {"aten::complex", kCpu, d, kRef, kMake<ComplexOp::kComplex>},
    });
  }
  for (DType d : {kF32, kF64, kC64, kC128}) {
    registry.add({
        {"aten::angle", kCpu, d, kRef, kUnary<ComplexOp::kAngle>},
        {"aten::conj", kCpu, d, kRef, kUnary<ComplexOp::kConj>},
        {"aten::conj_physical", kCpu, d, kRef, kUnary<ComplexOp::kConj>},
        {"aten::resolve_conj", kCpu, d, kRef, kUnary<ComplexOp::kConj>},
    });
  }
}

}  // namespace tir::kernels
