// Reference kernels of aten::_int_mm and tir::int_mm_weight (kernels/shapes/linear_algebra/
// int_mm.h): out[i, j] = sum_k a[i, k] * b[k, j] in int32, as torch's CPU _int_mm.
#include "kernels/shapes/linear_algebra/int_mm.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

template <typename A>
void int_mm(const IntMmParams& p, const A* a, const int8_t* b, int32_t* out) {
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      int32_t acc = 0;
      for (int64_t k = 0; k < p.k; ++k)
        acc += int32_t(a[i * p.a_rs + k * p.a_cs]) * int32_t(b[k * p.b_rs + j * p.b_cs]);
      out[i * p.n + j] = acc;
    }
}

class IntMmRef final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo*) override {
    TIR_ASSIGN_OR_RETURN(p_, int_mm_prepare(call));
    return ok_status();
  }
  Status run(const KernelCall& call, void*) override {
    const int8_t* b = call.inputs[1].data_as<const int8_t>();
    int32_t* out = call.outputs[0].data_as<int32_t>();
    if (p_.unsigned_a)
      int_mm(p_, call.inputs[0].data_as<const uint8_t>(), b, out);
    else
      int_mm(p_, call.inputs[0].data_as<const int8_t>(), b, out);
    return ok_status();
  }

 private:
  IntMmParams p_;
};

}  // namespace

void register_int_mm_ref(KernelRegistry& registry) {
  for (const char* op : {"aten::_int_mm", "tir::int_mm_weight"})
    for (DType d : {DType::kInt8, DType::kUInt8})
      registry.add({{op, DeviceType::kCpu, d, KernelImpl::kReference, &make_kernel<IntMmRef>}});
}

}  // namespace tir::kernels
