// The C ABI's custom ops (include/tir/tir.h, "custom ops"): a tir_custom_op's C callbacks
// wrapped as a kernels::Kernel, registered in a copy of the global registry that the options'
// CPU device runs.
#include <cstring>
#include <string>

#include "include/tir/tir.h"
#include "kernels/kernel_util.h"
#include "runtime/capi/c_api_util.h"
#include "runtime/devices/device.h"

using tir::DType;
using tir::make_error;
using tir::Status;
using tir::StatusCode;
using tir::capi::fail;
using tir::capi::guarded;
using tir::kernels::KernelCall;

/// One callback's view of a kernel call.
struct tir_custom_call {
  const KernelCall* call = nullptr;
  bool preparing = false;
  std::string error;
  std::string node, op;  // NUL-terminated copies, made when asked for
};

namespace {

/// The callbacks of one tir_custom_op, with its strings owned.
struct CustomOpDesc {
  std::string name;
  tir_status (*prepare)(tir_custom_call*, void*) = nullptr;
  tir_status (*run)(tir_custom_call*, void*) = nullptr;
  void* user_data = nullptr;
};

class CCustomKernel final : public tir::kernels::Kernel {
 public:
  explicit CCustomKernel(std::shared_ptr<const CustomOpDesc> desc) : desc_(std::move(desc)) {}

  Status prepare(const KernelCall& call, tir::kernels::PrepareInfo*) override {
    for (size_t k = 0; k < call.inputs.size(); ++k)
      if (!call.inputs[k].is_contiguous())
        return tir::kernels::op_error(call, StatusCode::kUnsupported, "input ", k,
                                      " is not contiguous");
    for (tir::Tensor& t : call.outputs) t = tir::Tensor{};
    TIR_RETURN_IF_ERROR(invoke(call, true));
    for (size_t k = 0; k < call.outputs.size(); ++k)
      if (call.outputs[k].dtype == DType::kUndefined)
        return tir::kernels::op_error(call, StatusCode::kInvalidArgument,
                                      "the custom op's prepare did not set output ", k);
    return tir::ok_status();
  }
  Status run(const KernelCall& call, void*) override { return invoke(call, false); }

 private:
  Status invoke(const KernelCall& call, bool preparing) const {
    tir_custom_call c;
    c.call = &call;
    c.preparing = preparing;
    const tir_status st = (preparing ? desc_->prepare : desc_->run)(&c, desc_->user_data);
    int code = 0;  // read as the int C passed: a value outside the enum is no UB then
    static_assert(sizeof st == sizeof code);
    std::memcpy(&code, &st, sizeof code);
    if (code == TIR_OK) return tir::ok_status();
    const bool known = code >= TIR_INVALID_ARGUMENT && code <= TIR_INTERNAL;
    return tir::kernels::op_error(
        call, known ? static_cast<StatusCode>(code) : StatusCode::kInternal,
        c.error.empty() ? std::string(preparing ? "prepare" : "run") + " failed" : c.error);
  }

  std::shared_ptr<const CustomOpDesc> desc_;
};

tir_tensor_view view_of(const tir::Tensor& t) {
  tir_tensor_view v;
  v.data = t.data;
  v.dtype = static_cast<tir_dtype>(t.dtype);
  v.rank = t.rank;
  v.dims = t.sizes.data();
  v.nbytes = t.nbytes();
  return v;
}

tir_status add_custom_op(tir_session_options* options, const tir_custom_op* op) {
  TIR_C_CHECK_ARG(options, "tir_session_options_add_custom_op");
  TIR_C_CHECK_ARG(op, "tir_session_options_add_custom_op");
  TIR_C_CHECK_ARG(op->name, "tir_session_options_add_custom_op");
  if (!op->prepare || !op->run)
    return fail(make_error(StatusCode::kInvalidArgument, "custom op '", op->name,
                           "': prepare and run are both required"));
  if (op->num_dtypes > 0 && !op->dtypes)
    return fail(make_error(StatusCode::kInvalidArgument, "custom op '", op->name,
                           "': num_dtypes is ", op->num_dtypes, " with null dtypes"));
  tir::kernels::CustomKernel kernel;
  kernel.op = op->name;
  for (size_t k = 0; k < op->num_dtypes; ++k) {
    if (op->dtypes[k] == TIR_DTYPE_UNDEFINED ||
        tir::dtype_size(static_cast<DType>(op->dtypes[k])) == 0)
      return fail(make_error(StatusCode::kInvalidArgument, "custom op '", op->name,
                             "': unknown dtype ", int(op->dtypes[k])));
    kernel.dtypes.push_back(static_cast<DType>(op->dtypes[k]));
  }
  auto desc = std::make_shared<const CustomOpDesc>(
      CustomOpDesc{op->name, op->prepare, op->run, op->user_data});
  kernel.make = [desc]() -> std::unique_ptr<tir::kernels::Kernel> {
    return std::make_unique<CCustomKernel>(desc);
  };
  // A new registry and device each time: sessions open on the old ones keep pointers into them.
  auto registry = std::make_shared<tir::kernels::KernelRegistry>(
      options->registry ? *options->registry : tir::kernels::KernelRegistry::global());
  if (Status st = registry->add_custom(std::move(kernel)); !st.ok()) return fail(st);
  options->registry = registry;
  options->options.devices = {tir::make_cpu_device(registry)};
  return TIR_OK;
}

const tir::kernels::Arg* named_arg(const tir_custom_call* call, const char* name) {
  return call && call->call && name ? tir::kernels::find_arg(call->call->args, name) : nullptr;
}

}  // namespace

extern "C" {

tir_status tir_session_options_add_custom_op(tir_session_options* options,
                                             const tir_custom_op* op) {
  return guarded(__func__, [&] { return add_custom_op(options, op); });
}

const char* tir_custom_call_node(const tir_custom_call* call) {
  if (!call || !call->call) return "";
  auto* c = const_cast<tir_custom_call*>(call);
  c->node.assign(call->call->node);
  return c->node.c_str();
}

const char* tir_custom_call_op(const tir_custom_call* call) {
  if (!call || !call->call) return "";
  auto* c = const_cast<tir_custom_call*>(call);
  c->op.assign(call->call->op);
  return c->op.c_str();
}

size_t tir_custom_call_input_count(const tir_custom_call* call) {
  return call && call->call ? call->call->inputs.size() : 0;
}

size_t tir_custom_call_output_count(const tir_custom_call* call) {
  return call && call->call ? call->call->outputs.size() : 0;
}

tir_status tir_custom_call_input(const tir_custom_call* call, size_t index,
                                 tir_tensor_view* out_view) {
  TIR_C_CHECK_ARG(call, __func__);
  TIR_C_CHECK_ARG(out_view, __func__);
  if (!call->call || index >= call->call->inputs.size())
    return fail(
        make_error(StatusCode::kInvalidArgument, __func__, ": input ", index, " out of range"));
  *out_view = view_of(call->call->inputs[index]);
  return TIR_OK;
}

tir_status tir_custom_call_set_output(tir_custom_call* call, size_t index, tir_dtype dtype,
                                      const int64_t* dims, int32_t rank) {
  TIR_C_CHECK_ARG(call, __func__);
  if (!call->call || !call->preparing || index >= call->call->outputs.size())
    return fail(
        make_error(StatusCode::kInvalidArgument, __func__, ": output ", index,
                   call->call && !call->preparing ? " set outside prepare" : " out of range"));
  if (dtype == TIR_DTYPE_UNDEFINED || tir::dtype_size(static_cast<DType>(dtype)) == 0)
    return fail(make_error(StatusCode::kInvalidArgument, __func__, ": unknown dtype ", int(dtype)));
  if (rank < 0 || rank > tir::kMaxRank || (rank > 0 && !dims))
    return fail(make_error(StatusCode::kInvalidArgument, __func__, ": bad rank ", rank));
  for (int32_t i = 0; i < rank; ++i)
    if (dims[i] < 0)
      return fail(make_error(StatusCode::kInvalidArgument, __func__, ": dim ", i, " is ", dims[i]));
  call->call->outputs[index] = tir::make_tensor(
      static_cast<DType>(dtype), std::span<const int64_t>(dims, size_t(rank)), nullptr);
  return TIR_OK;
}

tir_status tir_custom_call_output(const tir_custom_call* call, size_t index,
                                  tir_tensor_view* out_view) {
  TIR_C_CHECK_ARG(call, __func__);
  TIR_C_CHECK_ARG(out_view, __func__);
  if (!call->call || index >= call->call->outputs.size())
    return fail(
        make_error(StatusCode::kInvalidArgument, __func__, ": output ", index, " out of range"));
  *out_view = view_of(call->call->outputs[index]);
  return TIR_OK;
}

void* tir_custom_call_output_data(const tir_custom_call* call, size_t index) {
  if (!call || !call->call || call->preparing || index >= call->call->outputs.size())
    return nullptr;
  return call->call->outputs[index].data;
}

tir_status tir_custom_call_arg_int(const tir_custom_call* call, const char* name,
                                   int64_t* out_value) {
  TIR_C_CHECK_ARG(out_value, __func__);
  const tir::kernels::Arg* a = named_arg(call, name);
  if (!a) return TIR_NOT_FOUND;
  if (a->kind != tir::kernels::ArgKind::kInt && a->kind != tir::kernels::ArgKind::kBool)
    return fail(make_error(StatusCode::kInvalidArgument, "argument '", name, "' is not an int"));
  *out_value = a->i;
  return TIR_OK;
}

tir_status tir_custom_call_arg_float(const tir_custom_call* call, const char* name,
                                     double* out_value) {
  TIR_C_CHECK_ARG(out_value, __func__);
  const tir::kernels::Arg* a = named_arg(call, name);
  if (!a) return TIR_NOT_FOUND;
  if (a->kind != tir::kernels::ArgKind::kFloat && a->kind != tir::kernels::ArgKind::kInt)
    return fail(make_error(StatusCode::kInvalidArgument, "argument '", name, "' is not a float"));
  *out_value = a->scalar();
  return TIR_OK;
}

void tir_custom_call_set_error(tir_custom_call* call, const char* message) {
  if (call) call->error = message ? message : "";
}

}  // extern "C"
