// oneDNN kernels of aten::_int_mm and tir::int_mm_weight (kernels/shapes/linear_algebra/int_mm.h):
// the int8 x int8 (or uint8 x int8) -> int32 product of torchao's dynamically quantized linears.
// The result must be torch's exact integers, so the kernel takes one of two exact routes:
//
//  * int8: oneDNN's int8 matmul (s8/u8 x s8 -> s32), where the CPU's int8 dot products do not
//    saturate (AVX512-VNNI, AMX: onednn_context.h int8_pairs_saturate).
//  * float32 in K chunks, everywhere else (AVX2 without VNNI, as this project's Zen 1): there
//    oneDNN's u8 x s8 pairs saturate int16 and its s8 sources halve the weights, neither exact.
//    Every product of two 8-bit integers is exact in float32 and so is every partial sum up to
//    2^24 in magnitude: a chunk of 1024 (int8 A, |a*b| <= 2^14) or 512 (uint8 A, <= 2^15) terms
//    never rounds, whatever order the GEMM adds them in. Each chunk is one oneDNN f32 matmul;
//    the chunks' float results (exact integers) are summed in int32. A is widened on every run,
//    zero-padded to whole chunks.
//
// B that is a weight (its bytes known at prepare: tir::int_mm_weight, which the rewrite makes of
// _int_mm(x, t(w))) is packed once, into oneDNN's preferred int8 layout or widened to float32
// (4 bytes per weight byte: the float route trades memory for exactness), and again only when
// a weight swap moves it. B known only at run (an activation) is read as it is (int8 route) or
// widened on every run into scratch (float route).
#include "kernels/shapes/linear_algebra/int_mm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/cpu/register.h"
#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

using dnnl::memory;
using dt = memory::data_type;

class IntMm final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, int_mm_prepare(call));
    if (p_.m == 0 || p_.n == 0 || p_.k == 0) return ok_status();  // run writes zeros
    b_fixed_ = call.inputs[1].data != nullptr;
    float_ = int8_pairs_saturate();
    return onednn_guard(call, [&] { return build(call, out_info); });
  }

  Status run(const KernelCall& call, void* scratch) override {
    int32_t* out = call.outputs[0].data_as<int32_t>();
    if (p_.m == 0 || p_.n == 0 || p_.k == 0) {
      std::fill(out, out + p_.m * p_.n, 0);
      return ok_status();
    }
    const Tensor& b = call.inputs[1];
    return onednn_guard(call, [&] {
      char* base = static_cast<char*>(scratch);
      scratchpad_.set_data_handle(base);
      if (b_fixed_ && b.data != packed_from_) TIR_RETURN_IF_ERROR(pack(call, b.data));
      if (!float_) {
        src_.set_data_handle(call.inputs[0].data);
        wei_.set_data_handle(b_fixed_ ? static_cast<void*>(packed_int8_.data()) : b.data);
        dst_.set_data_handle(out);
        return onednn_execute(call, prim_, args_);
      }
      float* a = reinterpret_cast<float*>(base + a_offset_);
      float* c = reinterpret_cast<float*>(base + c_offset_);
      float* bf = b_fixed_ ? packed_float_.data() : reinterpret_cast<float*>(base + b_offset_);
      widen_a(call.inputs[0], a);
      if (!b_fixed_) widen_b(b.data, bf);
      dst_.set_data_handle(c);
      for (int64_t chunk = 0; chunk < chunks_; ++chunk) {
        src_.set_data_handle(a + chunk * kc_);
        wei_.set_data_handle(bf + chunk * kc_ * p_.n);
        TIR_RETURN_IF_ERROR(onednn_execute(call, prim_, args_));
        const int64_t count = p_.m * p_.n;
        // exact integers in float32: the conversion is exact too
        if (chunk == 0)
          for (int64_t i = 0; i < count; ++i) out[i] = static_cast<int32_t>(c[i]);
        else
          for (int64_t i = 0; i < count; ++i) out[i] += static_cast<int32_t>(c[i]);
      }
      return ok_status();
    });
  }

 private:
  Status build(const KernelCall& call, PrepareInfo* out_info) {
    dnnl::engine& eng = onednn_engine(call);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    memory::desc src, wei, dst;
    if (float_) {
      kc_ = std::min<int64_t>(p_.k, p_.unsigned_a ? 512 : 1024);
      chunks_ = (p_.k + kc_ - 1) / kc_;
      k_pad_ = chunks_ * kc_;
      src = memory::desc({p_.m, kc_}, dt::f32, memory::dims{k_pad_, 1});
      wei = memory::desc({kc_, p_.n}, dt::f32, memory::dims{p_.n, 1});
      dst = memory::desc({p_.m, p_.n}, dt::f32, memory::dims{p_.n, 1});
    } else {
      src = memory::desc({p_.m, p_.k}, p_.unsigned_a ? dt::u8 : dt::s8,
                         memory::dims{p_.a_rs, p_.a_cs});
      wei = b_fixed_ ? memory::desc({p_.k, p_.n}, dt::s8, memory::format_tag::any)
                     : memory::desc({p_.k, p_.n}, dt::s8, memory::dims{p_.b_rs, p_.b_cs});
      dst = memory::desc({p_.m, p_.n}, dt::s32, memory::dims{p_.n, 1});
    }
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei, dst), attr, eng);
    prim_ = dnnl::matmul(pd);
    wei_desc_ = pd.weights_desc();
    src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(wei_desc_, eng, DNNL_MEMORY_NONE);
    dst_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    size_t bytes = align64(pd.scratchpad_desc().get_size());
    if (float_) {
      a_offset_ = bytes;
      bytes += align64(size_t(p_.m * k_pad_) * sizeof(float));
      c_offset_ = bytes;
      bytes += align64(size_t(p_.m * p_.n) * sizeof(float));
      b_offset_ = bytes;
      if (!b_fixed_) bytes += align64(size_t(k_pad_ * p_.n) * sizeof(float));
    }
    out_info->scratch_bytes = bytes;
    if (!b_fixed_) return ok_status();
    if (float_)
      packed_float_.assign(size_t(k_pad_ * p_.n), 0.0f);
    else
      packed_int8_.assign(wei_desc_.get_size(), 0);
    return pack(call, call.inputs[1].data);
  }

  /// The weight B into its packed form (int8 route: oneDNN's layout; float route: float32
  /// [k_pad, N], zero rows past K).
  Status pack(const KernelCall& call, const void* data) {
    if (float_) {
      widen_b(data, packed_float_.data());
    } else {
      dnnl::engine& eng = onednn_engine(call);
      memory from(memory::desc({p_.k, p_.n}, dt::s8, memory::dims{p_.b_rs, p_.b_cs}), eng,
                  const_cast<void*>(data));
      memory to(wei_desc_, eng, packed_int8_.data());
      dnnl::reorder reorder(dnnl::reorder::primitive_desc(eng, from.get_desc(), eng, wei_desc_));
      const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}};
      TIR_RETURN_IF_ERROR(onednn_execute(call, reorder, args));
    }
    packed_from_ = data;
    return ok_status();
  }

  /// A [M, K] (strided) -> float32 [M, k_pad], zeros past K.
  void widen_a(const Tensor& in, float* a) const {
    for (int64_t i = 0; i < p_.m; ++i) {
      float* row = a + i * k_pad_;
      if (p_.unsigned_a) {
        const uint8_t* q = in.data_as<const uint8_t>() + i * p_.a_rs;
        for (int64_t k = 0; k < p_.k; ++k) row[k] = float(q[k * p_.a_cs]);
      } else {
        const int8_t* q = in.data_as<const int8_t>() + i * p_.a_rs;
        for (int64_t k = 0; k < p_.k; ++k) row[k] = float(q[k * p_.a_cs]);
      }
      std::fill(row + p_.k, row + k_pad_, 0.0f);
    }
  }

  /// B [K, N] (strided) -> float32 [k_pad, N], zero rows past K.
  void widen_b(const void* data, float* b) const {
    const int8_t* q = static_cast<const int8_t*>(data);
    for (int64_t k = 0; k < p_.k; ++k)
      for (int64_t j = 0; j < p_.n; ++j) b[k * p_.n + j] = float(q[k * p_.b_rs + j * p_.b_cs]);
    std::fill(b + p_.k * p_.n, b + k_pad_ * p_.n, 0.0f);
  }

  IntMmParams p_;
  bool b_fixed_ = false;  // B's bytes known at prepare: packed once
  bool float_ = false;    // the float32 route (int8 pairs saturate on this CPU)
  int64_t kc_ = 0, chunks_ = 1, k_pad_ = 0;
  dnnl::matmul prim_;
  memory::desc wei_desc_;
  memory src_, wei_, dst_, scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
  std::vector<float> packed_float_;
  std::vector<uint8_t> packed_int8_;
  const void* packed_from_ = nullptr;
  size_t a_offset_ = 0, c_offset_ = 0, b_offset_ = 0;  // in the run scratch (float route)
};

}  // namespace

void register_int_mm_onednn(KernelRegistry& registry) {
  for (const char* op : {"aten::_int_mm", "tir::int_mm_weight"})
    for (DType d : {DType::kInt8, DType::kUInt8})
      registry.add({{op, DeviceType::kCpu, d, KernelImpl::kOptimized, &make_kernel<IntMm>}});
}

}  // namespace tir::kernels
