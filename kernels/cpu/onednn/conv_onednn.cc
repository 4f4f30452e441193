// Optimized convolution on oneDNN: aten::conv1d, conv2d, conv3d, convolution (1-D as 2-D with
// H = 1; 3-D over NCDHW, never int8 or channels-last).
//
// The primitive picks its own (blocked) layouts; NCHW activations are reordered into and
// out of them through the scratch buffer. Weights are reordered once in `prepare` when
// their bytes are already there, keyed by the weight's data pointer: if `run` sees a
// different pointer (weights swapped) it packs those bytes again, so results are always
// computed from the current weights. A packed weight of the weight set is shared by every
// session and thread through its packed cache, and kept for later processes in the layout
// cache file beside the weight file (pack_shared). Weights whose bytes prepare does not see
// (streamed) are reordered into scratch on every run; only they get scratch for it. Prepare reports
// the weights it packed (PrepareInfo::packed_inputs), so the runtime may drop their mapped pages.
//
// A folded batch norm (KernelCall::batch_norm) is computed into weights and a bias the kernel
// owns, w' = w * scale and b' = b * scale + shift per output channel (conv_batch_norm_channel),
// then packed. The fold is keyed by the six source pointers (conv weight and bias, the norm's
// four tensors): prepare folds, and `run` folds again if any of them changed.
//
// A fused residual (KernelCall::residual) is a sum post-op before the activation: `run` first
// reorders the residual into the primitive's dst layout (or copies it into the output when dst
// is plain NCHW) and the convolution accumulates onto it. oneDNN 2.6 has a binary_add post-op
// too, but with a full-tensor src1 (plain or in dst's layout) every 3x3 and 1x1 conv falls back
// to x64:gemm:jit (3-17x slower than brgconv) and Winograd refuses it; sum keeps both.
//
// In int8 (KernelCall::precision, or a weight stored int8) the node runs on int8 weights and
// per-run quantized activations (kernels/cpu/int8/conv_int8_onednn.h). In bf16
// (KernelCall::precision, which the session sets only where the CPU computes bf16 natively:
// AVX512-BF16, AMX) source and weights are bfloat16 in the primitive's layouts (the source
// converted by the reorder into that layout that float32 runs too, the weights packed once,
// shared through the packed cache under a key of their own), bias, accumulation and the
// output float32: every kind of convolution the primitive takes (grouped, depthwise, 1x1,
// 3-D). Where oneDNN has no bf16 convolution for the shape on this CPU the node computes in
// float32 and says so once.
#include <xxhash.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "kernels/cpu/int8/conv_int8_onednn.h"
#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/cpu/onednn/onednn_epilogue.h"
#include "kernels/cpu/onednn/onednn_operand.h"
#include "kernels/cpu/register.h"
#include "kernels/packed_cache.h"
#include "kernels/reference/reference_kernels.h"

namespace tir::kernels {
namespace {

/// False when the environment sets TIR_CONV_WINOGRAD=0 (direct convolution everywhere: for
/// comparing the two, or if Winograd's rounding differs too much for a model).
bool winograd_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("TIR_CONV_WINOGRAD");
    return v == nullptr || std::string_view(v) != "0";
  }();
  return enabled;
}

using dnnl::memory;

/// The convolution's shapes: src [N, C, H, W], dst [N, OC, OH, OW] and the weights
/// [OC, C, KH, KW], or [G, OC/G, C/G, KH, KW] with groups.
struct ConvDims {
  memory::dims src, dst, wei;
};

ConvDims conv_dims(const ConvParams& p) {
  if (p.three_d)  // src [N, C, D, H, W], dst [N, OC, OD, OH, OW], weights with KD
    return {memory::dims{p.n, p.c, p.d, p.h, p.w}, memory::dims{p.n, p.oc, p.od, p.oh, p.ow},
            p.groups > 1 ? memory::dims{p.groups, p.oc / p.groups, p.c / p.groups, p.kd, p.kh, p.kw}
                         : memory::dims{p.oc, p.c, p.kd, p.kh, p.kw}};
  return {memory::dims{p.n, p.c, p.h, p.w}, memory::dims{p.n, p.oc, p.oh, p.ow},
          p.groups > 1 ? memory::dims{p.groups, p.oc / p.groups, p.c / p.groups, p.kh, p.kw}
                       : memory::dims{p.oc, p.c, p.kh, p.kw}};
}

/// Stride, dilation (oneDNN counts from 0) and padding per spatial dim: D, H, W or H, W.
struct ConvGeometry {
  memory::dims stride, dil, pad;
};

ConvGeometry conv_geometry(const ConvParams& p) {
  ConvGeometry g{{p.stride[0], p.stride[1]}, {p.dil[0] - 1, p.dil[1] - 1}, {p.pad[0], p.pad[1]}};
  if (p.three_d) {
    g.stride.insert(g.stride.begin(), p.stride_d);
    g.dil.insert(g.dil.begin(), p.dil_d - 1);
    g.pad.insert(g.pad.begin(), p.pad_d);
  }
  return g;
}

/// The layouts the graph's tensors lie in: src and dst as in memory (onednn_activation_f32), the
/// weights plain.
struct PlainDescs {
  memory::desc src, dst, wei;
};

template <Result<ConvParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
class ConvOneDnn final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, Prepare(call, out_info));
    if (call.channels_last && call.outputs[0].rank == 4)
      call.outputs[0].set_channels_last_strides();
    fallback_ = p_.n == 0;
    if (fallback_) return ok_status();
    int8_ = !p_.three_d && Int8Conv::wanted(call, p_);
    if (int8_) {
      const PrepareInfo before = *out_info;
      const Status s = onednn_guard(call, [&] { return int8_conv_.build(call, p_, out_info); });
      if (s.ok() && int8_conv_.fast()) return s;
      if (!s.ok()) onednn_note_int8_unavailable(call, s.message().c_str());
      int8_ = false;
      *out_info = before;
    }
    return onednn_guard(call, [&] { return build(call, out_info); });
  }

  Status run(const KernelCall& call, void* scratch) override {
    if (fallback_) {
      ref_conv2d(p_, call, scratch);
      return ok_status();
    }
    if (int8_) return int8_conv_.run(call, scratch);
    return onednn_guard(call, [&]() -> Status {
      char* s = static_cast<char*>(scratch);
      const Tensor& w = call.inputs[p_.weight];
      if (call.batch_norm.present() && fold_sources(call) != folded_from_)
        TIR_RETURN_IF_ERROR(fold(call));
      user_src_.set_data_handle(call.inputs[p_.input].data);
      user_dst_.set_data_handle(call.outputs[0].data);
      user_wei_.set_data_handle(w.data);
      scratchpad_.set_data_handle(s);
      if (src_reorder_) {
        src_.set_data_handle(s + src_off_);
        TIR_RETURN_IF_ERROR(onednn_execute(call, src_reorder_, src_args_));
      } else {
        src_.set_data_handle(call.inputs[p_.input].data);
      }
      if (call.batch_norm.present()) {
        wei_.set_data_handle(packs_ ? packed_.get_data_handle() : folded_wei_.data());
      } else if (!packs_) {
        wei_.set_data_handle(w.data);
      } else if (wei_reorder_) {  // bytes unknown at prepare: converted on every run
        wei_.set_data_handle(s + wei_off_);
        TIR_RETURN_IF_ERROR(onednn_execute(call, wei_reorder_, wei_args_));
      } else {
        if (w.data != packed_from_) {  // not the bytes prepare packed (weights swapped)
          TIR_RETURN_IF_ERROR(pack_weights(call, w.data));
          packed_from_ = w.data;
        }
        wei_.set_data_handle(packed_.get_data_handle());
      }
      if (call.batch_norm.present())
        bias_.set_data_handle(folded_bias_.data());
      else if (p_.bias >= 0)
        bias_.set_data_handle(call.inputs[p_.bias].data);
      dst_.set_data_handle(dst_reorder_ ? s + dst_off_ : call.outputs[0].data);
      if (call.residual >= 0) {  // the sum post-op adds the convolution onto dst
        const Tensor& r = call.inputs[call.residual];
        if (res_reorder_) {
          user_res_.set_data_handle(r.data);
          TIR_RETURN_IF_ERROR(onednn_execute(call, res_reorder_, res_args_));
        } else if (void* to = dst_.get_data_handle(); r.data != to) {
          std::memcpy(to, r.data, r.nbytes());  // already in dst's layout
        }
      }
      TIR_RETURN_IF_ERROR(onednn_execute(call, prim_, args_));
      if (dst_reorder_) TIR_RETURN_IF_ERROR(onednn_execute(call, dst_reorder_, dst_args_));
      onednn_finish_activation(call.epilogue, call.outputs[0]);
      return ok_status();
    });
  }

 private:
  using Sources = std::array<const void*, 6>;
  Sources fold_sources(const KernelCall& call) const {
    const BatchNormFold& bn = call.batch_norm;
    const auto data = [&](int idx) -> const void* {
      return idx >= 0 ? call.inputs[idx].data : nullptr;
    };
    return {data(p_.weight), data(p_.bias), data(bn.weight),
            data(bn.bias),   data(bn.mean), data(bn.var)};
  }

  /// Folds the batch norm into folded_wei_ / folded_bias_ and packs the weights when the
  /// primitive wants another layout (then no plain folded copy is kept: only the packed one is
  /// read; where the layout allows, the fold goes piece by piece into it, see pack_pieces).
  /// Needs the tensors' bytes.
  Status fold(const KernelCall& call) {
    const float* w = call.inputs[p_.weight].data_as<const float>();
    const float* b = p_.bias >= 0 ? call.inputs[p_.bias].data_as<const float>() : nullptr;
    for (int64_t oc = 0; oc < p_.oc; ++oc) {
      const ChannelAffine norm = conv_batch_norm_channel(call, oc);
      folded_bias_[oc] = static_cast<float>((b ? b[oc] : 0.0) * norm.scale + norm.shift);
    }
    folded_from_ = fold_sources(call);
    const auto fold_all = [&] {
      folded_wei_.resize(size_t(p_.oc * (p_.c / p_.groups) * p_.kd * p_.kh * p_.kw));
      const size_t per_oc = folded_wei_.size() / size_t(p_.oc);
      for (int64_t oc = 0; oc < p_.oc; ++oc) fold_channel(call, w, oc, &folded_wei_[oc * per_oc]);
    };
    if (!packs_) {
      fold_all();
      return ok_status();
    }
    return pack_shared(call, [&](const memory& to) -> Status {
      if (const int64_t piece = pack_piece_channels(); piece > 0)
        return pack_pieces(call, piece, to);
      fold_all();
      drop_weight_pages(call, call.inputs[p_.weight].nbytes());  // the folded copy has them
      const Status s = pack(call, folded_wei_.data(), to);
      std::vector<float>().swap(folded_wei_);
      return s;
    });
  }

  /// packed_ made for the current weights (and batch norm) by `fill`, which packs into the
  /// memory it is given. When the weight is one of the weight set's, the packed copy is shared
  /// through its packed cache (one copy for every session and thread; storable, so a layout
  /// cache file keeps it for later processes, runtime/weights/layout_cache.h), keyed by both
  /// layouts and, with a batch norm, the bytes it folds in; else this kernel owns it. A copy
  /// made elsewhere lets the plain weight's mapped pages go.
  Status pack_shared(const KernelCall& call, const std::function<Status(const memory&)>& fill) {
    dnnl::engine& eng = onednn_engine(call);
    const memory::desc md = wei_.get_desc();
    const WeightKey key = call.input_key(p_.weight);
    if (call.packed_cache() == nullptr || !key.valid()) {
      packed_owner_.reset();
      packed_ = memory(md, eng);
      return fill(packed_);
    }
    bool made = false;
    const auto make = [&]() -> Result<PackedEntry> {
      made = true;
      auto m = std::make_shared<memory>(md, eng);
      TIR_RETURN_IF_ERROR(fill(*m));
      const std::span<const uint8_t> bytes(static_cast<const uint8_t*>(m->get_data_handle()),
                                           md.get_size());
      return PackedEntry{std::shared_ptr<void>(std::move(m)), bytes};
    };
    const auto wrap = [&](std::span<const uint8_t> bytes) -> Result<std::shared_ptr<void>> {
      return std::shared_ptr<void>(
          std::make_shared<memory>(md, eng, const_cast<uint8_t*>(bytes.data())));
    };
    std::string how = onednn_pack_key(user_wei_.get_desc(), md) + "conv";
    if (call.batch_norm.present()) how += batch_norm_key(call);
    TIR_ASSIGN_OR_RETURN(packed_owner_,
                         call.packed_cache()->get_storable(key, how, md.get_size(), wrap, make));
    packed_ = *std::static_pointer_cast<memory>(packed_owner_);
    if (!made) drop_weight_pages(call, call.inputs[p_.weight].nbytes());
    return ok_status();
  }

  /// What a folded batch norm adds to the packed weights' key: xxh3 of the bytes it folds in
  /// (the norm's four tensors; eps).
  std::string batch_norm_key(const KernelCall& call) const {
    const BatchNormFold& bn = call.batch_norm;
    std::string key = " bn";
    for (int idx : {bn.weight, bn.bias, bn.mean, bn.var}) {
      const uint64_t h =
          idx < 0 ? 0 : XXH3_64bits(call.inputs[idx].data, call.inputs[idx].nbytes());
      key.append(reinterpret_cast<const char*>(&h), sizeof(h));
    }
    key.append(reinterpret_cast<const char*>(&bn.eps), sizeof(bn.eps));
    return key;
  }

  /// Output channel `oc`'s weights w * scale (the batch norm's) into `to`.
  void fold_channel(const KernelCall& call, const float* w, int64_t oc, float* to) const {
    const ChannelAffine norm = conv_batch_norm_channel(call, oc);
    const int64_t per_oc = (p_.c / p_.groups) * p_.kd * p_.kh * p_.kw;
    const float* from = w + oc * per_oc;
    for (int64_t k = 0; k < per_oc; ++k) to[k] = static_cast<float>(from[k] * norm.scale);
  }

  /// Lets the mapped pages of the weight's first `bytes` bytes go (WeightServices::weight_pages).
  void drop_weight_pages(const KernelCall& call, size_t bytes) const {
    if (const WeightPages* pages = call.weight_pages())
      pages->drop(call.input_key(p_.weight), 0, bytes);
  }

  /// Output channels per piece when packed_ can be filled piece by piece: a blocked layout
  /// without padding, cut at whole blocks of output channels, about kPieceBytes of plain
  /// weights a piece. 0: only whole (Winograd's layouts, groups, padded channels).
  int64_t pack_piece_channels() const {
    static constexpr int64_t kPieceBytes = int64_t{1} << 20;
    const dnnl_memory_desc_t& md = wei_.get_desc().data;
    if (p_.groups != 1 || md.format_kind != dnnl_blocked || md.ndims != 4) return 0;
    for (int d = 0; d < md.ndims; ++d)
      if (md.padded_dims[d] != md.dims[d]) return 0;
    int64_t block = 1;  // output channels in one block of the layout
    const dnnl_blocking_desc_t& blocking = md.format_desc.blocking;
    for (int i = 0; i < blocking.inner_nblks; ++i)
      if (blocking.inner_idxs[i] == 0) block *= blocking.inner_blks[i];
    if (p_.oc % block != 0) return 0;
    const int64_t block_bytes = block * p_.c * p_.kh * p_.kw * int64_t(sizeof(float));
    return std::min(p_.oc, std::max<int64_t>(1, kPieceBytes / block_bytes) * block);
  }

  /// Packs the weights `piece` output channels at a time (folding the batch norm into a
  /// piece-sized buffer first when there is one) and lets each piece's mapped pages go once
  /// packed, so a conv's prepare holds the packed copy plus about one piece, not the mapped,
  /// folded and packed copies in full. The same bytes as packing the whole: a reorder between
  /// f32 layouts only moves values.
  Status pack_pieces(const KernelCall& call, int64_t piece, const memory& to) {
    dnnl::engine& eng = onednn_engine(call);
    const float* w = call.inputs[p_.weight].data_as<const float>();
    const int64_t per_oc = p_.c * p_.kh * p_.kw;
    const bool norm = call.batch_norm.present();
    std::vector<float> folded(norm ? size_t(piece * per_oc) : 0);
    const memory::desc packed_md = to.get_desc();
    for (int64_t o0 = 0; o0 < p_.oc; o0 += piece) {
      const int64_t n = std::min(piece, p_.oc - o0);
      const float* from = w + o0 * per_oc;
      if (norm) {
        for (int64_t oc = 0; oc < n; ++oc) fold_channel(call, w, o0 + oc, &folded[oc * per_oc]);
        from = folded.data();
      }
      const memory::dims dims{n, p_.c, p_.kh, p_.kw};
      memory src(onednn_plain_f32(dims), eng, const_cast<float*>(from));
      memory dst(packed_md.submemory_desc(dims, {o0, 0, 0, 0}), eng, to.get_data_handle());
      const dnnl::reorder reorder(src, dst);
      const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, src.get()}, {DNNL_ARG_TO, dst.get()}};
      TIR_RETURN_IF_ERROR(onednn_execute(call, reorder, args));
      drop_weight_pages(call, size_t((o0 + n) * per_oc) * sizeof(float));
    }
    return ok_status();
  }

  /// Winograd F(2x2, 3x3) for dense 3x3 stride-1 convolutions (2.25x fewer multiplies; on
  /// AVX-512 0.53 against 0.86 ms for ResNet's 64x56x56 layer, 0.53 against 0.81 ms at
  /// 512x7x7, 2 threads), where oneDNN has it for the shape and post-ops; direct otherwise.
  template <typename Desc>
  dnnl::convolution_forward::primitive_desc primitive_desc(const KernelCall& call, const Desc& desc,
                                                           const dnnl::primitive_attr& attr) {
    dnnl::engine& eng = onednn_engine(call);
    const bool winograd_shape = !p_.three_d && p_.groups == 1 && p_.kh == 3 && p_.kw == 3 &&
                                p_.stride[0] == 1 && p_.stride[1] == 1 && p_.dil[0] == 1 &&
                                p_.dil[1] == 1;
    if (winograd_shape && winograd_enabled()) {
      try {
        return {desc(dnnl::algorithm::convolution_winograd), attr, eng};
      } catch (const dnnl::error&) {  // no Winograd kernel here (channels, ISA, post-ops)
      }
    }
    return {desc(dnnl::algorithm::convolution_direct), attr, eng};
  }

  Status build(const KernelCall& call, PrepareInfo* out_info) {
    const bool norm = call.batch_norm.present();
    dnnl::engine& eng = onednn_engine(call);
    const ConvDims dims = conv_dims(p_);
    const memory::desc bias_md = p_.bias >= 0 || norm ? onednn_plain_f32({p_.oc}) : memory::desc();
    bf16_ = call.precision == Precision::kBFloat16;
    dnnl::convolution_forward::primitive_desc pd;
    try {
      pd = describe(call, dims, bias_md);
    } catch (const dnnl::error& e) {
      if (!bf16_) throw;
      onednn_note_bf16_unavailable(call, e.what());  // float32 then
      bf16_ = false;
      pd = describe(call, dims, bias_md);
    }
    prim_ = dnnl::convolution_forward(pd);

    const PlainDescs plain{onednn_activation_f32(call.inputs[p_.input], dims.src),
                           onednn_activation_f32(call.outputs[0], dims.dst),
                           onednn_plain_f32(dims.wei)};
    make_memories(eng, pd, plain);

    size_t off = align64(pd.scratchpad_desc().get_size());
    src_reorder_ = {};
    wei_reorder_ = {};
    dst_reorder_ = {};
    if (pd.src_desc() != plain.src) {
      src_reorder_ = dnnl::reorder(user_src_, src_);
      src_args_ = {{DNNL_ARG_FROM, user_src_.get()}, {DNNL_ARG_TO, src_.get()}};
      src_off_ = off;
      off += align64(pd.src_desc().get_size());
    }
    TIR_RETURN_IF_ERROR(prepare_weights(call, pd, plain.wei, &off, out_info));
    prepare_output(call, pd, plain.dst, dims.dst, &off);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    if (p_.bias >= 0 || norm) {
      bias_ = memory(bias_md, eng, DNNL_MEMORY_NONE);
      args_.push_back({DNNL_ARG_BIAS, bias_.get()});
    }
    out_info->scratch_bytes = off;
    return prepare_fold(call, out_info);
  }

  /// The primitive description: layouts of oneDNN's choosing, a user scratchpad, and the fused
  /// residual (a sum) and activation as post-ops.
  dnnl::convolution_forward::primitive_desc describe(const KernelCall& call, const ConvDims& dims,
                                                     const memory::desc& bias_md) {
    const auto any = [](const memory::dims& d, memory::data_type t) {
      return memory::desc(d, t, memory::format_tag::any);
    };
    const memory::data_type in_type = bf16_ ? memory::data_type::bf16 : memory::data_type::f32;
    const ConvGeometry geo = conv_geometry(p_);
    const auto desc = [&](dnnl::algorithm alg) {
      return dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, alg, any(dims.src, in_type), any(dims.wei, in_type),
          bias_md, any(dims.dst, memory::data_type::f32), geo.stride, geo.dil, geo.pad, geo.pad);
    };
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (call.epilogue || call.residual >= 0) {
      dnnl::post_ops ops;
      if (call.residual >= 0) ops.append_sum(1.f);  // dst = conv + dst (holding the residual)
      onednn_append_activation(ops, call.epilogue);
      attr.set_post_ops(ops);
    }
    return primitive_desc(call, desc, attr);
  }

  /// The memory objects, without data yet: the graph's tensors (user_*) and the primitive's
  /// operands in its layouts.
  void make_memories(dnnl::engine& eng, const dnnl::convolution_forward::primitive_desc& pd,
                     const PlainDescs& plain) {
    user_src_ = memory(plain.src, eng, DNNL_MEMORY_NONE);
    user_dst_ = memory(plain.dst, eng, DNNL_MEMORY_NONE);
    user_wei_ = memory(plain.wei, eng, DNNL_MEMORY_NONE);
    src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(pd.weights_desc(), eng, DNNL_MEMORY_NONE);
    dst_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
  }

  /// Weights in the primitive's layout: read as they are, packed now (bytes known), packed by
  /// fold() (batch norm), or reordered into scratch at *off on every run (bytes unknown).
  Status prepare_weights(const KernelCall& call,
                         const dnnl::convolution_forward::primitive_desc& pd,
                         const memory::desc& wei_plain, size_t* off, PrepareInfo* out_info) {
    const bool norm = call.batch_norm.present();
    packed_from_ = nullptr;
    packs_ = pd.weights_desc() != wei_plain;
    packed_ = {};
    packed_owner_.reset();
    if (!packs_) return ok_status();
    const void* wdata = call.inputs[p_.weight].data;
    if (norm) {
      // fold() packs
    } else if (wdata != nullptr) {  // weights known now: pack once
      TIR_RETURN_IF_ERROR(pack_weights(call, wdata));
      packed_from_ = wdata;
      out_info->packed_inputs |= uint64_t{1} << p_.weight;
    } else {  // converted into scratch on every run
      wei_reorder_ = dnnl::reorder(user_wei_, wei_);
      wei_args_ = {{DNNL_ARG_FROM, user_wei_.get()}, {DNNL_ARG_TO, wei_.get()}};
      wei_off_ = *off;
      *off += align64(pd.weights_desc().get_size());
    }
    return ok_status();
  }

  /// The output: reordered out of the primitive's layout through scratch at *off unless it is
  /// the graph's; a fused residual reordered into that layout (or copied, if it is the same).
  void prepare_output(const KernelCall& call, const dnnl::convolution_forward::primitive_desc& pd,
                      const memory::desc& dst_plain, const memory::dims& dst_dims, size_t* off) {
    res_reorder_ = {};
    if (pd.dst_desc() != dst_plain) {
      dst_reorder_ = dnnl::reorder(dst_, user_dst_);
      dst_args_ = {{DNNL_ARG_FROM, dst_.get()}, {DNNL_ARG_TO, user_dst_.get()}};
      dst_off_ = *off;
      *off += align64(pd.dst_desc().get_size());
    }
    if (call.residual >= 0) {  // into dst's layout unless it is there already (then a copy)
      const memory::desc res_md = onednn_activation_f32(call.inputs[call.residual], dst_dims);
      if (res_md != pd.dst_desc()) {
        user_res_ = memory(res_md, onednn_engine(call), DNNL_MEMORY_NONE);
        res_reorder_ = dnnl::reorder(user_res_, dst_);
        res_args_ = {{DNNL_ARG_FROM, user_res_.get()}, {DNNL_ARG_TO, dst_.get()}};
      }
    }
  }

  /// A folded batch norm: the bias it folds into, and the fold itself when it can be done now.
  Status prepare_fold(const KernelCall& call, PrepareInfo* out_info) {
    folded_from_ = {};
    if (!call.batch_norm.present()) return ok_status();
    folded_bias_.assign(size_t(p_.oc), 0.f);
    // Frozen tensors (the fusion pass folds no others) have their bytes now: fold once.
    // Otherwise the first run folds.
    const BatchNormFold& bn = call.batch_norm;
    const int sources[] = {p_.weight, p_.bias, bn.weight, bn.bias, bn.mean, bn.var};
    for (int idx : sources)
      if (idx >= 0 && call.inputs[idx].data == nullptr) return ok_status();
    TIR_RETURN_IF_ERROR(fold(call));
    for (int idx : sources)  // run reads only the folded copies
      if (idx >= 0 && idx < 64) out_info->packed_inputs |= uint64_t{1} << idx;
    return ok_status();
  }

  /// packed_ from the plain weights at `plain` (pack_shared).
  Status pack_weights(const KernelCall& call, const void* plain) {
    return pack_shared(call, [&](const memory& to) -> Status {
      if (const int64_t piece = pack_piece_channels(); piece > 0)
        return pack_pieces(call, piece, to);
      return pack(call, plain, to);
    });
  }

  /// Reorders the plain weights at `plain` into `to`. The reorder primitive lives only for
  /// this call: oneDNN's Winograd weight reorder holds a workspace about as large as the
  /// packed weights for as long as it exists (67 MB for ResNet-18 at batch 1).
  Status pack(const KernelCall& call, const void* plain, const memory& to) {
    user_wei_.set_data_handle(const_cast<void*>(plain));
    const dnnl::reorder reorder(user_wei_, to);
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, user_wei_.get()}, {DNNL_ARG_TO, to.get()}};
    return onednn_execute(call, reorder, args);
  }

  ConvParams p_;
  bool fallback_ = false;
  bool int8_ = false;  // computing in int8 (kernels/cpu/int8/conv_int8_onednn.h)
  bool bf16_ = false;  // bf16 source and weights (asked for, and oneDNN has a primitive)
  Int8Conv int8_conv_;
  dnnl::convolution_forward prim_;
  dnnl::reorder src_reorder_, wei_reorder_, dst_reorder_, res_reorder_;
  memory user_src_, user_wei_, user_dst_, user_res_, src_, wei_, dst_, bias_, scratchpad_, packed_;
  std::shared_ptr<void> packed_owner_;  // packed_'s bytes when the packed cache holds them
  const void* packed_from_ = nullptr;
  bool packs_ = false;  // the primitive reads weights in another layout than the graph's
  std::vector<float> folded_wei_, folded_bias_;  // batch norm folded in (plain layout)
  Sources folded_from_{};                        // what they were folded from
  size_t src_off_ = 0, wei_off_ = 0, dst_off_ = 0;
  std::vector<dnnl_exec_arg_t> args_, src_args_, wei_args_, dst_args_, res_args_;
};

}  // namespace

void register_conv_onednn(KernelRegistry& registry) {
  registry.add({
      {"aten::conv1d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<ConvOneDnn<conv_prepare_conv2d>>},
      {"aten::conv2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<ConvOneDnn<conv_prepare_conv2d>>},
      {"aten::conv3d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<ConvOneDnn<conv_prepare_conv3d>>},
      {"aten::convolution", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<ConvOneDnn<conv_prepare_convolution>>},
  });
}
}  // namespace tir::kernels
