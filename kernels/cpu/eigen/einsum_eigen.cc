// Optimized float32 einsum of two operands as a batched GEMM (kernels/shapes/linear_algebra/
// einsum.h). Each label is a batch dim (in the output and both operands), a row dim (the
// output and the first operand), a column dim (the output and the second) or a depth dim
// (summed, in both). The operands are gathered into [batch, rows, depth] and
// [batch, depth, cols] in scratch (their strides may describe diagonals and broadcasts), each
// batch is one Eigen product, and the result goes to the output in its label order (directly
// when that order is batch, rows, cols). Other equations (one or three operands, a summed
// label only one operand has, float64) run the reference loops.
#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/register.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/linear_algebra/einsum.h"

namespace tir::kernels {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Map = Eigen::Map<RowMajor>;
using ConstMap = Eigen::Map<const RowMajor>;

/// The labels of each GEMM role, and the role sizes; `ok` false: not a GEMM.
struct GemmPlan {
  bool ok = false;
  std::vector<int> batch, rows, cols, depth;
  int64_t nb = 1, m = 1, n = 1, k = 1;
  bool direct = false;  // the output's label order is batch, rows, cols
};

GemmPlan plan_gemm(const EinsumParams& p) {
  GemmPlan g;
  if (p.inputs.size() != 2 || p.dtype != DType::kFloat32 || p.added >= 0 || p.alpha != 1) return g;
  const auto& sa = p.stride[0];
  const auto& sb = p.stride[1];
  for (int l : p.out_labels) {
    const size_t i = size_t(l);
    const bool in_b = sb[i] != 0 || p.size[i] == 1;
    if (sa[i] != 0 && in_b) {
      g.batch.push_back(l);
      g.nb *= p.size[i];
    } else if (sa[i] != 0 || !in_b) {
      g.rows.push_back(l);
      g.m *= p.size[i];
    } else {
      g.cols.push_back(l);
      g.n *= p.size[i];
    }
  }
  for (int l : p.sum_labels) {
    const size_t i = size_t(l);
    if (p.size[i] != 1 && (sa[i] == 0 || sb[i] == 0)) return g;  // a sum over one operand
    g.depth.push_back(l);
    g.k *= p.size[i];
  }
  std::vector<int> order = g.batch;
  order.insert(order.end(), g.rows.begin(), g.rows.end());
  order.insert(order.end(), g.cols.begin(), g.cols.end());
  g.direct = order == p.out_labels;
  g.ok = true;
  return g;
}

/// Calls f(offset) for each multi-index over `labels` in row-major order, where offset is
/// the sum of index * strides[label].
template <typename F>
void for_each_offset(const EinsumParams& p, const std::vector<int>& labels,
                     const std::vector<int64_t>& strides, F&& f) {
  int64_t count = 1;
  for (int l : labels) count *= p.size[size_t(l)];
  std::vector<int64_t> at(labels.size(), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < count; ++i) {
    f(off);
    for (size_t d = labels.size(); d-- > 0;) {
      const size_t l = size_t(labels[d]);
      off += strides[l];
      if (++at[d] < p.size[l]) break;
      off -= at[d] * strides[l];
      at[d] = 0;
    }
  }
}

std::vector<int> concat(std::initializer_list<const std::vector<int>*> parts) {
  std::vector<int> out;
  for (const auto* v : parts) out.insert(out.end(), v->begin(), v->end());
  return out;
}

class EinsumEigen final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, einsum_prepare(call, out_info));
    g_ = plan_gemm(p_);
    if (!g_.ok) return ok_status();
    a_bytes_ = align64(size_t(g_.nb * g_.m * g_.k) * sizeof(float));
    b_bytes_ = align64(size_t(g_.nb * g_.k * g_.n) * sizeof(float));
    const size_t c_bytes = g_.direct ? 0 : size_t(g_.nb * g_.m * g_.n) * sizeof(float);
    out_info->scratch_bytes = std::max(out_info->scratch_bytes, a_bytes_ + b_bytes_ + c_bytes);
    a_labels_ = concat({&g_.batch, &g_.rows, &g_.depth});
    b_labels_ = concat({&g_.batch, &g_.depth, &g_.cols});
    c_labels_ = concat({&g_.batch, &g_.rows, &g_.cols});
    out_strides_.assign(p_.size.size(), 0);
    int64_t s = 1;
    for (size_t d = p_.out_labels.size(); d-- > 0;) {
      out_strides_[size_t(p_.out_labels[d])] = s;
      s *= p_.size[size_t(p_.out_labels[d])];
    }
    return ok_status();
  }

  Status run(const KernelCall& call, void* scratch) override {
    if (!g_.ok) {
      ref_einsum(p_, call, scratch);
      return ok_status();
    }
    float* y = call.outputs[0].data_as<float>();
    if (g_.nb * g_.m * g_.n == 0) return ok_status();
    if (g_.k == 0) {  // an empty sum
      std::fill(y, y + g_.nb * g_.m * g_.n, 0.f);
      return ok_status();
    }
    auto* a = static_cast<float*>(scratch);
    auto* b = reinterpret_cast<float*>(static_cast<char*>(scratch) + a_bytes_);
    float* c =
        g_.direct ? y : reinterpret_cast<float*>(static_cast<char*>(scratch) + a_bytes_ + b_bytes_);
    gather(call, 0, a_labels_, a);
    gather(call, 1, b_labels_, b);
    const int64_t m = g_.m, n = g_.n, k = g_.k;
    auto product = [&](int64_t i) {
      Map(c + i * m * n, m, n).noalias() =
          ConstMap(a + i * m * k, m, k) * ConstMap(b + i * k * n, k, n);
    };
    if (g_.nb == 1) {
      product(0);  // Eigen threads the one product itself
    } else {
      parallel_chunks(g_.nb, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t i = b0; i < b1; ++i) product(i);
      });
    }
    if (!g_.direct) {
      const float* from = c;
      for_each_offset(p_, c_labels_, out_strides_, [&](int64_t off) { y[off] = *from++; });
    }
    return ok_status();
  }

 private:
  void gather(const KernelCall& call, size_t operand, const std::vector<int>& labels,
              float* to) const {
    const float* x = call.inputs[size_t(p_.inputs[operand])].data_as<const float>();
    for_each_offset(p_, labels, p_.stride[operand], [&](int64_t off) { *to++ = x[off]; });
  }

  EinsumParams p_;
  GemmPlan g_;
  size_t a_bytes_ = 0, b_bytes_ = 0;
  std::vector<int> a_labels_, b_labels_, c_labels_;  // A, B and the product, in GEMM order
  std::vector<int64_t> out_strides_;
};

}  // namespace

void register_einsum_eigen(KernelRegistry& registry) {
  registry.add({
      {"aten::einsum", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<EinsumEigen>},
  });
}

}  // namespace tir::kernels
