// Optimized GEMM family on the oneDNN matmul primitive: aten::linear, aten::addmm, aten::mm.
//
// In float32 the first run reads weights in place (linear's [N, K] weight is described to
// oneDNN as a transposed [K, N] matrix), so a one-shot run pays nothing for packing; the
// second run packs a weight B into the blocked layout oneDNN prefers, if it prefers one
// (pack_policy: AVX-512, not AVX2), and uses a primitive for it from then on (GPT-2 small:
// ~17% faster steady state, one extra copy of the GEMM weights in memory; TIR_GEMM_PACK=0
// turns it off), when A has at least kMinPackedRows rows (a decode step's GEMV never packs). A
// swapped weight is packed again. Packed bytes that are already there (a layout cache file beside
// the weight file, runtime/weights/layout_cache.h, or another session's) are used from the first
// run, and the plain weight's pages are let go. In bf16 (KernelCall::precision), A is converted per
// run and B, when it is a weight, packed to bf16 once (kernels/cpu/onednn/onednn_operand.h);
// accumulation and output stay float32. A weight stored int4 runs on its 4-bit codes
// (kernels/cpu/int4/gemm_int4.h). In int8 (KernelCall::precision, or a weight stored int8)
// the node runs on int8 weights and per-run quantized activations (kernels/cpu/int8/gemm_int8.h). A
// float16/bfloat16 weight (a half-precision program's) is read as stored
// (kernels/cpu/onednn/gemm_half_weight.h). addmm's alpha is an output scale; beta*self is either a
// row-broadcast bias (alpha == beta == 1) or, in general, self broadcast into the output followed
// by a sum post-op.
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "kernels/cpu/int4/gemm_int4.h"
#include "kernels/cpu/int8/gemm_int8.h"
#include "kernels/cpu/onednn/gemm_half_weight.h"
#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/cpu/onednn/onednn_epilogue.h"
#include "kernels/cpu/onednn/onednn_operand.h"
#include "kernels/cpu/register.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

using dnnl::memory;

/// Fewer rows of A than this (an LLM's decode step: one) and the product is bound by reading
/// B, which the plain layout streams as fast: packing would only add a second copy of every
/// weight and the time to make it at the second step (Llama-shaped 1.2 B at 2 threads: decode
/// 1.9 tokens/s packed vs 3.3 plain over 39 tokens, peak RSS 9.7 vs 4.9 GB).
constexpr int64_t kMinPackedRows = 16;

/// Which layouts a float32 weight is packed into (TIR_GEMM_PACK, read at each prepare).
/// Unset or "1": a blocked layout oneDNN prefers (its AVX-512 matmul: GPT-2 small ~17% faster
/// steady state). "0": none. "all": also a plain one: on AVX2, oneDNN 2.6 asks for B as a
/// row-major [K, N], i.e. the linear's [N, K] weight transposed, which its gemm reads up to 2x
/// slower than the weight in place (bench/gemm_bench.cc, AMD EPYC Zen 3, 2 threads: 64 x 2048
/// x 8192 65 vs 132 GFLOP/s, 128 x 768 x 3072 83 vs 154), so it is not done by default; the
/// layout cache's tests use it to exercise packing on every CPU.
enum class PackPolicy { kOff, kBlocked, kAll };

PackPolicy pack_policy() {
  const char* v = std::getenv("TIR_GEMM_PACK");
  if (v == nullptr) return PackPolicy::kBlocked;
  const std::string_view s(v);
  return s == "0" ? PackPolicy::kOff : s == "all" ? PackPolicy::kAll : PackPolicy::kBlocked;
}

/// A layout with inner blocks (AB16b64a), not a permutation of plain dims.
bool is_blocked(const memory::desc& d) {
  return d.data.format_kind == dnnl_blocked && d.data.format_desc.blocking.inner_nblks > 0;
}

template <Result<GemmParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
class GemmOneDnn final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, Prepare(call, out_info));
    fallback_ = p_.m == 0 || p_.n == 0 || p_.k == 0;
    // An int8-stored B bound without its float32 bytes, which this node needs after all
    // (not int8 here, or not as stored): ask for them; the runtime prepares it again.
    int4_ = !fallback_ && Int4Gemm::wanted(call, p_);
    needs_float_ = call.inputs[p_.b_input].data == nullptr && call.input_quantization(p_.b_input) &&
                   (fallback_ || !(int4_ || Int8Gemm::reads_stored(call, p_)));
    if (needs_float_) {
      out_info->needs_float_inputs |= uint64_t{1} << std::min<size_t>(p_.b_input, 63);
      return ok_status();
    }
    if (fallback_) return ok_status();
    if (int4_) return int4_gemm_.build(call, p_, &out_info->scratch_bytes);
    half_ = HalfWeightGemm::wanted(p_);
    if (half_) {
      return onednn_guard(call,
                          [&] { return half_gemm_.build(call, p_, &out_info->scratch_bytes); });
    }
    int8_ = Int8Gemm::wanted(call, p_);
    if (int8_) {
      size_t scratch = 0;
      const Status s = onednn_guard(call, [&] { return int8_gemm_.build(call, p_, &scratch); });
      if (s.ok()) {
        out_info->scratch_bytes = scratch;
        return s;
      }
      onednn_note_int8_unavailable(call, s.message().c_str());
      int8_ = false;
    }
    return onednn_guard(call, [&] { return build(call, out_info); });
  }

  Status run(const KernelCall& call, void* scratch) override {
    if (needs_float_)
      return op_error(call, StatusCode::kInternal, "run without the weight's float32 bytes");
    if (fallback_) {
      ref_gemm(p_, call, scratch);
      return ok_status();
    }
    if (int4_) return int4_gemm_.run(call, scratch);
    if (half_) return half_gemm_.run(call, scratch);
    if (int8_) return int8_gemm_.run(call, scratch);
    float* out = call.outputs[0].data_as<float>();
    const float* c = p_.c_input >= 0 ? call.inputs[p_.c_input].data_as<const float>() : nullptr;
    if (mode_ == Mode::kSum) gemm_copy_c(p_, c, out);
    return onednn_guard(call, [&]() -> Status {
      void* a = call.inputs[p_.a_input].data;
      void* b = call.inputs[p_.b_input].data;
      if (bf16_) {
        TIR_ASSIGN_OR_RETURN(a, a_bf16_.convert(call, a, scratch));
        TIR_ASSIGN_OR_RETURN(b, b_bf16_.convert(call, b, scratch));
      }
      if (pack_pending_ && ++runs_ > 1) TIR_RETURN_IF_ERROR(start_packed(call));
      src_.set_data_handle(a);
      dst_.set_data_handle(out);
      if (mode_ == Mode::kBias) bias_.set_data_handle(const_cast<float*>(c));
      if (packed_) {
        TIR_ASSIGN_OR_RETURN(b, b_packed_.convert(call, b, scratch));
        packed_wei_.set_data_handle(b);
        packed_scratchpad_.set_data_handle(scratch);
        TIR_RETURN_IF_ERROR(onednn_execute(call, packed_prim_, packed_args_));
        onednn_finish_activation(call.epilogue, call.outputs[0]);
        return ok_status();
      }
      wei_.set_data_handle(b);
      scratchpad_.set_data_handle(scratch);
      TIR_RETURN_IF_ERROR(onednn_execute(call, prim_, args_));
      onednn_finish_activation(call.epilogue, call.outputs[0]);
      return ok_status();
    });
  }

 private:
  using Mode = GemmCMode;

  /// From the second run on: the primitive for packed weights (JIT-compiled now) and B packed
  /// into memory this kernel owns.
  Status start_packed(const KernelCall& call) {
    dnnl::engine& eng = onednn_engine(call);
    pack_pending_ = false;
    packed_prim_ = dnnl::matmul(packed_pd_);
    size_t unused_scratch = 0;
    TIR_RETURN_IF_ERROR(
        b_packed_.init(call, wei_f32_, packed_pd_.weights_desc(), p_.b_input, &unused_scratch));
    packed_wei_ = memory(packed_pd_.weights_desc(), eng, DNNL_MEMORY_NONE);
    packed_scratchpad_ = memory(packed_pd_.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    packed_args_ = args_;
    for (dnnl_exec_arg_t& a : packed_args_) {
      if (a.arg == DNNL_ARG_WEIGHTS) a.memory = packed_wei_.get();
      if (a.arg == DNNL_ARG_SCRATCHPAD) a.memory = packed_scratchpad_.get();
    }
    packed_ = true;
    return ok_status();
  }

  Status build(const KernelCall& call, PrepareInfo* out_info) {
    dnnl::engine& eng = onednn_engine(call);
    const memory::dim m = p_.m, k = p_.k, n = p_.n;
    using dt = memory::data_type;
    const memory::desc src_f32({m, k}, dt::f32, memory::dims{k, 1});
    const memory::desc wei_f32({k, n}, dt::f32,
                               p_.b_transposed ? memory::dims{1, k} : memory::dims{n, 1});
    const memory::desc dst_md({m, n}, dt::f32, memory::dims{n, 1});
    mode_ = gemm_c_mode(p_);
    memory::desc bias_md;
    if (mode_ == Mode::kBias) {
      const memory::dim bn = p_.c_col_stride == 0 ? 1 : n;
      bias_md = memory::desc({1, bn}, memory::data_type::f32, memory::dims{bn, 1});
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (p_.alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(p_.alpha)});
    dnnl::post_ops ops;
    if (mode_ == Mode::kSum) ops.append_sum(static_cast<float>(p_.beta));
    onednn_append_activation(ops, call.epilogue);  // after the sum: act(alpha*A*B + beta*C)
    if (ops.len() > 0) attr.set_post_ops(ops);
    dnnl::matmul::primitive_desc pd;
    bf16_ = false;
    if (call.precision == Precision::kBFloat16) {
      // bf16 A and B (B in the layout oneDNN prefers: packed once), f32 bias and output.
      try {
        pd = dnnl::matmul::primitive_desc(
            dnnl::matmul::desc(memory::desc({m, k}, dt::bf16, memory::dims{k, 1}),
                               memory::desc({k, n}, dt::bf16, memory::format_tag::any), bias_md,
                               dst_md),
            attr, eng);
        bf16_ = true;
      } catch (const dnnl::error& e) {
        onednn_note_bf16_unavailable(call, e.what());
      }
    }
    if (!bf16_)
      pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_f32, wei_f32, bias_md, dst_md), attr,
                                        eng);
    // A float32 weight B (bytes known now) is packed from the second run on, if oneDNN
    // prefers another layout for it; both primitives share the scratch. Packed bytes already
    // at hand: no primitive for the plain layout is made (JIT-compiled) at all.
    const size_t primitive_scratch =
        plan_packing(call, pd, src_f32, wei_f32, bias_md, dst_md, attr);
    const bool ready =
        pack_pending_ && onednn_pack_ready(call, p_.b_input, wei_f32, packed_pd_.weights_desc());
    if (!ready) prim_ = dnnl::matmul(pd);
    src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(pd.weights_desc(), eng, DNNL_MEMORY_NONE);
    dst_ = memory(dst_md, eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    if (mode_ == Mode::kBias) {
      bias_ = memory(bias_md, eng, DNNL_MEMORY_NONE);
      args_.push_back({DNNL_ARG_BIAS, bias_.get()});
    }
    if (ready) TIR_RETURN_IF_ERROR(use_stored(call, out_info));
    size_t scratch = primitive_scratch;
    if (bf16_) {
      scratch = align64(scratch);
      TIR_RETURN_IF_ERROR(a_bf16_.init(call, src_f32, pd.src_desc(), p_.a_input, &scratch));
      TIR_RETURN_IF_ERROR(b_bf16_.init(call, wei_f32, pd.weights_desc(), p_.b_input, &scratch));
    }
    out_info->scratch_bytes = scratch;
    return ok_status();
  }

  /// Decides whether B is packed (pack_pending_), describing the packed primitive; returns
  /// the scratch both primitives need.
  size_t plan_packing(const KernelCall& call, const dnnl::matmul::primitive_desc& pd,
                      const memory::desc& src, const memory::desc& wei, const memory::desc& bias,
                      const memory::desc& dst, const dnnl::primitive_attr& attr) {
    runs_ = 0;
    packed_ = pack_pending_ = false;
    wei_f32_ = wei;
    const size_t scratch = pd.scratchpad_desc().get_size();
    if (bf16_ || !packs(call)) return scratch;
    const memory::desc any({p_.k, p_.n}, memory::data_type::f32, memory::format_tag::any);
    packed_pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, any, bias, dst), attr,
                                              onednn_engine(call));
    const memory::desc packed = packed_pd_.weights_desc();
    pack_pending_ = packed != wei && (is_blocked(packed) || pack_policy() == PackPolicy::kAll);
    return pack_pending_ ? std::max(scratch, packed_pd_.scratchpad_desc().get_size()) : scratch;
  }

  /// B packed already (a layout cache file, another session): read from the first run on.
  /// The plain weight's pages go before the packed ones are read (their checksum, on first
  /// use), so the two are never resident together.
  Status use_stored(const KernelCall& call, PrepareInfo* out_info) {
    if (const WeightPages* pages = call.weight_pages())
      pages->drop(call.input_key(p_.b_input), 0, SIZE_MAX);
    TIR_RETURN_IF_ERROR(start_packed(call));
    if (p_.b_input < 64) out_info->packed_inputs |= uint64_t{1} << p_.b_input;
    return ok_status();
  }

  /// Whether a float32 B is worth packing: a weight (bytes known now), enough rows of A.
  bool packs(const KernelCall& call) const {
    return pack_policy() != PackPolicy::kOff && p_.m >= kMinPackedRows &&
           call.inputs[p_.b_input].data != nullptr;
  }

  GemmParams p_;
  bool fallback_ = false;
  bool needs_float_ = false;  // prepared without B's float32 bytes, which it needs
  bool bf16_ = false;
  bool int8_ = false;  // computing in int8 (kernels/cpu/int8/gemm_int8.h)
  Int8Gemm int8_gemm_;
  bool int4_ = false;  // B stored int4, read as stored (kernels/cpu/int4/gemm_int4.h)
  Int4Gemm int4_gemm_;
  bool half_ = false;  // B float16/bfloat16 (kernels/cpu/onednn/gemm_half_weight.h)
  HalfWeightGemm half_gemm_;
  // Float32 weight packing (from the second run): pending until then, packed_ after.
  bool pack_pending_ = false, packed_ = false;
  int runs_ = 0;
  memory::desc wei_f32_;
  dnnl::matmul::primitive_desc packed_pd_;
  dnnl::matmul packed_prim_;
  OnednnOperand b_packed_;
  memory packed_wei_, packed_scratchpad_;
  std::vector<dnnl_exec_arg_t>
      packed_args_;  // computing in bf16 (asked for, and oneDNN has an implementation)
  OnednnOperand a_bf16_, b_bf16_;
  Mode mode_ = Mode::kNone;
  dnnl::matmul prim_;
  memory src_, wei_, dst_, bias_, scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
};

}  // namespace

void register_gemm_onednn(KernelRegistry& registry) {
  registry.add({
      {"aten::linear", kCpu, kF32, kOpt, &make_kernel<GemmOneDnn<gemm_prepare_linear>>},
      {"aten::addmm", kCpu, kF32, kOpt, &make_kernel<GemmOneDnn<gemm_prepare_addmm>>},
      {"aten::mm", kCpu, kF32, kOpt, &make_kernel<GemmOneDnn<gemm_prepare_mm>>},
  });
}
}  // namespace tir::kernels
