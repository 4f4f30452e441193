// Reference padding, strided-view copies and copy
// (kernels/shapes/movement/movement.h), and pixel shuffles. Elements move as raw bytes, so
// every dtype works.
#include "kernels/shapes/movement/movement.h"

#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

// Source index along one dim of size n for output position o (after `before` padding);
// -1 means the constant.
int64_t pad_source(PadMode mode, int64_t o, int64_t before, int64_t n) {
  int64_t j = o - before;
  if (j >= 0 && j < n) return j;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kReflect:
      return j < 0 ? -j : 2 * (n - 1) - j;
    case PadMode::kReplicate:
      return j < 0 ? 0 : n - 1;
    case PadMode::kCircular:
      return ((j % n) + n) % n;
  }
  return -1;
}

template <typename T>
void pad_typed(const PadParams& p, const KernelCall& call, T constant) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  std::array<int64_t, kMaxRank> in_strides{};
  int64_t s = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    in_strides[d] = s;
    s *= p.in_sizes[d];
  }
  const int64_t total = prod(std::span<const int64_t>(p.out_sizes.data(), p.rank), 0, p.rank);
  std::array<int64_t, kMaxRank> idx{};
  for (int64_t o = 0; o < total; ++o) {
    int64_t off = 0;
    bool inside = true;
    for (int d = 0; d < p.rank && inside; ++d) {
      const int64_t j = pad_source(p.mode, idx[d], p.before[d], p.in_sizes[d]);
      inside = j >= 0;
      off += j * in_strides[d];
    }
    y[o] = inside ? x[off] : constant;
    for (int d = p.rank - 1; d >= 0; --d) {
      if (++idx[d] < p.out_sizes[d]) break;
      idx[d] = 0;
    }
  }
}

template <typename U>
void pad_bits(const PadParams& p, const KernelCall& call) {
  U constant{};
  scalar_to_element(p.value, p.dtype, &constant);  // every dtype's element fits U
  pad_typed<U>(p, call, constant);
}

void ref_pad(const PadParams& p, const KernelCall& call, void*) {
  switch (p.elem_size) {
    case 1:
      return pad_bits<uint8_t>(p, call);
    case 2:
      return pad_bits<uint16_t>(p, call);
    case 4:
      return pad_bits<uint32_t>(p, call);
    case 8:
      return pad_bits<uint64_t>(p, call);
    case 16:
      return pad_bits<Bits128>(p, call);
    default:
      return;
  }
}

void ref_copy_into(const CopyIntoParams& p, const KernelCall& call, void*) {
  visit_dtype(p.from, [&](auto from) {
    using S = decltype(from);
    const S* x = call.inputs[p.src].data_as<const S>();
    visit_dtype(p.to, [&](auto to) {
      using D = decltype(to);
      D* y = call.outputs[0].data_as<D>();
      nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
        y[i] = static_cast<D>(x[in[1]]);
      });
    });
  });
}

/// pixel_shuffle(self, upscale_factor r): [*, C*r*r, H, W] -> [*, C, H*r, W*r], and
/// pixel_unshuffle(self, downscale_factor r): [*, C, H*r, W*r] -> [*, C*r*r, H, W], as one
/// strided gather over (*, C, H, r, W, r) resp. (*, C, r, r, H, W) into a contiguous output.
template <bool Shuffle>
Result<ViewParams> prepare_pixel_shuffle(const KernelCall& call, PrepareInfo*) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  TIR_ASSIGN_OR_RETURN(const int64_t r,
                       int_arg(call, 1, Shuffle ? "upscale_factor" : "downscale_factor"));
  if (r <= 0) return op_error(call, StatusCode::kInvalidArgument, "factor ", r, " must be > 0");
  const int batch = x->rank - 3;
  if (batch < 0 || batch > kMaxRank - 5)
    return op_error(call, StatusCode::kInvalidArgument, "self must have 3 to ", kMaxRank - 2,
                    " dims, got ", x->rank);
  const int64_t c = x->sizes[batch], h = x->sizes[batch + 1], w = x->sizes[batch + 2];
  const int64_t sc = x->strides[batch], sh = x->strides[batch + 1], sw = x->strides[batch + 2];
  if (Shuffle ? c % (r * r) != 0 : h % r != 0 || w % r != 0)
    return op_error(
        call, StatusCode::kInvalidArgument, "self of shape ", shape_str(x->shape()),
        Shuffle ? " has channels not divisible by " : " has height or width not divisible by ",
        Shuffle ? r * r : r);
  ViewParams p;
  p.copy = p.permute = true;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.elem_size = dtype_size(x->dtype);
  std::vector<int64_t> out_shape(x->sizes.begin(), x->sizes.begin() + batch);
  for (int d = 0; d < batch; ++d) {
    p.out_sizes[d] = x->sizes[d];
    p.in_strides[d] = x->strides[d];
  }
  const auto dim = [&](int64_t size, int64_t stride) {
    p.out_sizes[p.rank] = size;
    p.in_strides[p.rank++] = stride;
  };
  p.rank = batch;
  if (Shuffle) {  // out (c, h, i, w, j) <- in (c*r*r + i*r + j, h, w)
    dim(c / (r * r), r * r * sc), dim(h, sh), dim(r, r * sc), dim(w, sw), dim(r, sc);
    out_shape.insert(out_shape.end(), {c / (r * r), h * r, w * r});
  } else {  // out (c, i, j, h, w) <- in (c, h*r + i, w*r + j)
    dim(c, sc), dim(r, sh), dim(r, sw), dim(h / r, r * sh), dim(w / r, r * sw);
    out_shape.insert(out_shape.end(), {c * r * r, h / r, w / r});
  }
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(out_shape);
  return p;
}

using CopyIntoRef = FnKernel<CopyIntoParams, movement_prepare_copy, ref_copy_into>;
using CopyInPlaceRef = FnKernel<CopyIntoParams, movement_prepare_copy_, ref_copy_into>;
using ConstantPadRef = FnKernel<PadParams, movement_prepare_constant_pad, ref_pad>;
using PadRef = FnKernel<PadParams, movement_prepare_pad, ref_pad>;
template <PadMode M, int D>
using PadNdRef = FnKernel<PadParams, movement_prepare_pad_nd<M, D>, ref_pad>;
template <Result<ViewParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using StridedRef = FnKernel<ViewParams, Prepare, ref_shape>;
template <bool Shuffle>
using PixelShuffleRef = FnKernel<ViewParams, prepare_pixel_shuffle<Shuffle>, ref_shape>;
constexpr auto kReflect = PadMode::kReflect;
constexpr auto kReplicate = PadMode::kReplicate;

}  // namespace

void register_movement_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::constant_pad_nd", kCpu, kAny, kRef, &make_kernel<ConstantPadRef>},
      {"aten::pad", kCpu, kAny, kRef, &make_kernel<PadRef>},
      {"aten::reflection_pad1d", kCpu, kAny, kRef, &make_kernel<PadNdRef<kReflect, 1>>},
      {"aten::reflection_pad2d", kCpu, kAny, kRef, &make_kernel<PadNdRef<kReflect, 2>>},
      {"aten::reflection_pad3d", kCpu, kAny, kRef, &make_kernel<PadNdRef<kReflect, 3>>},
      {"aten::replication_pad1d", kCpu, kAny, kRef, &make_kernel<PadNdRef<kReplicate, 1>>},
      {"aten::replication_pad2d", kCpu, kAny, kRef, &make_kernel<PadNdRef<kReplicate, 2>>},
      {"aten::replication_pad3d", kCpu, kAny, kRef, &make_kernel<PadNdRef<kReplicate, 3>>},
      {"aten::numpy_T", kCpu, kAny, kRef, &make_kernel<StridedRef<movement_prepare_numpy_t>>},
      {"aten::as_strided", kCpu, kAny, kRef, &make_kernel<StridedRef<movement_prepare_as_strided>>},
      {"aten::diagonal", kCpu, kAny, kRef, &make_kernel<StridedRef<movement_prepare_diagonal>>},
      {"aten::copy", kCpu, kAny, kRef, &make_kernel<CopyIntoRef>},
      {"aten::copy_", kCpu, kAny, kRef, &make_kernel<CopyInPlaceRef>},
      {"aten::pixel_shuffle", kCpu, kAny, kRef, &make_kernel<PixelShuffleRef<true>>},
      {"aten::pixel_unshuffle", kCpu, kAny, kRef, &make_kernel<PixelShuffleRef<false>>},
  });
}
}  // namespace tir::kernels
