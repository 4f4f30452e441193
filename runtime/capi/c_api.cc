// tir's C ABI (include/tir/tir.h) over the C++ Session API. Every entry point catches
// exceptions (std::bad_alloc, mostly) and turns them into TIR_INTERNAL, so nothing escapes
// into C. The implementation lives in runtime/ because the top-level layout is fixed by
// DESIGN.md and runtime/ already holds the public API; nothing in runtime/ includes it.
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "core/version.h"
#include "include/tir/tir.h"
#include "runtime/capi/c_api_util.h"
#include "runtime/exec/session.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/weight_set.h"

using tir::DType;
using tir::make_error;
using tir::Status;
using tir::StatusCode;
using tir::capi::fail;
using tir::capi::guarded;
using tir::capi::options_of;

static_assert(int(StatusCode::kOk) == TIR_OK &&
              int(StatusCode::kInvalidArgument) == TIR_INVALID_ARGUMENT &&
              int(StatusCode::kNotFound) == TIR_NOT_FOUND &&
              int(StatusCode::kUnsupported) == TIR_UNSUPPORTED &&
              int(StatusCode::kCorrupt) == TIR_CORRUPT && int(StatusCode::kIo) == TIR_IO &&
              int(StatusCode::kInternal) == TIR_INTERNAL);
static_assert(int(DType::kFloat32) == TIR_DTYPE_FLOAT32 && int(DType::kInt64) == TIR_DTYPE_INT64 &&
              int(DType::kBool) == TIR_DTYPE_BOOL && int(DType::kBFloat16) == TIR_DTYPE_BFLOAT16 &&
              int(DType::kUndefined) == TIR_DTYPE_UNDEFINED &&
              int(DType::kComplexFloat) == TIR_DTYPE_COMPLEX64 &&
              int(DType::kComplexDouble) == TIR_DTYPE_COMPLEX128);
static_assert(TIR_MAX_RANK == tir::kMaxRank);

struct tir_session {
  std::unique_ptr<tir::Session> session;
  tir::WeightSetOptions weight_options;
  std::vector<tir::Tensor> bound;  // per input; data == nullptr while unbound
  std::vector<bool> is_bound;
  std::span<const tir::Tensor> outputs;  // of the last successful run
  /// Per input the program writes (user_input_mutation): the handle's copy of the caller's
  /// bytes, which the run reads and then overwrites (the caller's buffer is never written).
  std::vector<std::vector<uint8_t>> written;
  std::vector<tir::Tensor> written_views;  // their tensors after the last successful run
  bool has_run = false;
};

namespace {

/// A view of `t` (memory the session owns) for the caller.
void fill_view(const tir::Tensor& t, tir_tensor_view* out_view) {
  out_view->data = t.data;
  out_view->dtype = static_cast<tir_dtype>(t.dtype);
  out_view->rank = t.rank;
  out_view->dims = t.sizes.data();
  out_view->nbytes = t.nbytes();
}

bool is_known_dtype(tir_dtype d) {
  return d != TIR_DTYPE_UNDEFINED && tir::dtype_size(static_cast<DType>(d)) != 0;
}

/// A DataSource over memory the caller keeps alive (tir_session_open_from_memory).
class BorrowedSource final : public tir::DataSource {
 public:
  BorrowedSource(const void* data, size_t size, std::string name)
      : bytes_(static_cast<const uint8_t*>(data), size), name_(std::move(name)) {}
  std::span<const uint8_t> bytes() const override { return bytes_; }
  const std::string& name() const override { return name_; }

 private:
  std::span<const uint8_t> bytes_;
  std::string name_;
};

/// The caller's bytes as they are where 64-byte aligned, else an aligned copy.
std::shared_ptr<const tir::DataSource> memory_source(const void* data, size_t size,
                                                     const char* name) {
  if (reinterpret_cast<uintptr_t>(data) % 64 == 0)
    return std::make_shared<BorrowedSource>(data, size, name);
  const auto* p = static_cast<const uint8_t*>(data);
  return tir::data_source_from_buffer(std::vector<uint8_t>(p, p + size), name);
}

tir_status finish_open(tir::Result<std::unique_ptr<tir::Session>> session,
                       const tir::WeightSetOptions& weight_options, tir_session** out_session) {
  if (!session.ok()) return fail(session.status());
  auto handle = std::make_unique<tir_session>();
  handle->session = std::move(session).value();
  handle->weight_options = weight_options;
  const size_t n = handle->session->inputs().size();
  handle->bound.resize(n);
  handle->is_bound.assign(n, false);
  *out_session = handle.release();
  return TIR_OK;
}

tir_status io_info(const std::vector<tir::IoSpec>& specs, size_t index, const char* what,
                   tir_io_info* out_info) {
  if (index >= specs.size())
    return fail(StatusCode::kInvalidArgument, std::string(what) + " index " +
                                                  std::to_string(index) + " out of range (" +
                                                  std::to_string(specs.size()) + " " + what + "s)");
  const tir::IoSpec& s = specs[index];
  out_info->name = s.name.c_str();
  out_info->dtype = static_cast<tir_dtype>(s.dtype);
  out_info->rank = static_cast<int32_t>(s.shape.size());
  out_info->dims = s.shape.data();
  return TIR_OK;
}

tir_status bind(tir_session* h, size_t index, tir_dtype dtype, const int64_t* dims, int32_t rank,
                const void* data, size_t nbytes) {
  const auto& specs = h->session->inputs();
  if (index >= specs.size())
    return fail(StatusCode::kInvalidArgument, "input index " + std::to_string(index) +
                                                  " out of range (the method has " +
                                                  std::to_string(specs.size()) + " inputs)");
  const tir::IoSpec& spec = specs[index];
  const std::string label = "input '" + spec.name + "'";
  if (!is_known_dtype(dtype))
    return fail(make_error(StatusCode::kInvalidArgument, label, ": unknown dtype ", int(dtype)));
  if (static_cast<DType>(dtype) != spec.dtype)
    return fail(make_error(StatusCode::kInvalidArgument, label, ": dtype ",
                           tir::dtype_name(static_cast<DType>(dtype)), ", expected ",
                           tir::dtype_name(spec.dtype)));
  if (rank < 0 || rank > tir::kMaxRank || (rank > 0 && !dims))
    return fail(make_error(StatusCode::kInvalidArgument, label, ": bad rank ", rank,
                           rank > 0 && !dims ? " with null dims" : ""));
  if (static_cast<size_t>(rank) != spec.shape.size())
    return fail(make_error(StatusCode::kInvalidArgument, label, ": rank ", rank, ", expected ",
                           spec.shape.size(), " (", tir::shape_str(spec.shape), ")"));
  std::span<const int64_t> shape(dims, static_cast<size_t>(rank));
  for (int32_t i = 0; i < rank; ++i) {
    if (dims[i] < 0)
      return fail(make_error(StatusCode::kInvalidArgument, label, ": dim ", i, " is ", dims[i]));
    if (spec.shape[i] >= 0 && dims[i] != spec.shape[i])
      return fail(make_error(StatusCode::kInvalidArgument, label, ": dim ", i, " = ", dims[i],
                             ", expected ", spec.shape[i], " (shape ", tir::shape_str(shape),
                             ", expected ", tir::shape_str(spec.shape), ")"));
  }
  tir::Tensor t = tir::make_tensor(static_cast<DType>(dtype), shape, const_cast<void*>(data));
  if (nbytes < t.nbytes())
    return fail(make_error(StatusCode::kInvalidArgument, label, ": buffer of ", nbytes,
                           " bytes, shape ", tir::shape_str(shape), " needs ", t.nbytes()));
  if (!data && t.nbytes() > 0)
    return fail(make_error(StatusCode::kInvalidArgument, label, ": data is null"));
  h->bound[index] = t;
  h->is_bound[index] = true;
  return TIR_OK;
}

tir_status install(tir_session* h, tir::Result<std::shared_ptr<const tir::WeightSet>> set) {
  if (!set.ok()) return fail(set.status());
  const Status st = h->session->swap_weights(std::move(set).value());
  return st.ok() ? TIR_OK : fail(st);
}

}  // namespace

extern "C" {

const char* tir_version(void) { return tir::version_string(); }
uint32_t tir_api_version(void) { return TIR_API_VERSION; }
const char* tir_last_error(void) { return tir::capi::last_error.c_str(); }

const char* tir_status_name(tir_status status) {
  // A C caller may pass any int; in C++ reading an enum outside its range is undefined, so
  // the value is read as the int it was passed as.
  int code = 0;
  static_assert(sizeof status == sizeof code);
  std::memcpy(&code, &status, sizeof code);
  if (code < TIR_OK || code > TIR_INTERNAL) return "unknown status";
  static const char* const kNames[] = {
      "ok", "invalid argument", "not found", "unsupported", "corrupt", "io", "internal"};
  return kNames[code];
}

size_t tir_dtype_size(tir_dtype dtype) {
  return dtype == TIR_DTYPE_UNDEFINED ? 0 : tir::dtype_size(static_cast<DType>(dtype));
}

tir_status tir_session_options_create(tir_session_options** out_options) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(out_options, __func__);
    *out_options = new tir_session_options();
    return TIR_OK;
  });
}

void tir_session_options_free(tir_session_options* options) { delete options; }

tir_status tir_session_options_set_method(tir_session_options* options, const char* method) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(options, __func__);
    TIR_C_CHECK_ARG(method, __func__);
    options->options.method = method;
    return TIR_OK;
  });
}

tir_status tir_session_options_set_threads(tir_session_options* options, int threads) {
  TIR_C_CHECK_ARG(options, __func__);
  if (threads < 0)
    return fail(make_error(StatusCode::kInvalidArgument, "threads = ", threads, ", expected >= 0"));
  options->threads = threads;
  return TIR_OK;
}

tir_status tir_session_options_set_precision(tir_session_options* options,
                                             tir_precision precision) {
  TIR_C_CHECK_ARG(options, __func__);
  switch (precision) {
    case TIR_PRECISION_F32:
      options->options.precision = tir::Precision::kFloat32;
      break;
    case TIR_PRECISION_BF16:
      options->options.precision = tir::Precision::kBFloat16;
      break;
    case TIR_PRECISION_INT8:
      options->options.precision = tir::Precision::kInt8;
      break;
    default:
      return fail(make_error(StatusCode::kInvalidArgument, "unknown precision ", int(precision),
                             " (expected TIR_PRECISION_F32, TIR_PRECISION_BF16 or "
                             "TIR_PRECISION_INT8)"));
  }
  return TIR_OK;
}

tir_status tir_session_options_set_fuse(tir_session_options* options, int fuse) {
  TIR_C_CHECK_ARG(options, __func__);
  options->options.fuse = fuse != 0;
  return TIR_OK;
}

tir_status tir_session_options_set_verify_checksums(tir_session_options* options, int verify) {
  TIR_C_CHECK_ARG(options, __func__);
  options->options.weights.verify_checksums = verify != 0;
  return TIR_OK;
}

tir_status tir_session_options_set_seed(tir_session_options* options, uint64_t seed) {
  TIR_C_CHECK_ARG(options, __func__);
  options->options.seed = seed;
  return TIR_OK;
}

tir_status tir_session_open(const char* model_path, const char* weights_path,
                            const tir_session_options* options, tir_session** out_session) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(out_session, __func__);
    *out_session = nullptr;
    TIR_C_CHECK_ARG(model_path, __func__);
    TIR_C_CHECK_ARG(weights_path, __func__);
    if (options) tir::set_num_threads(options->threads);
    const tir::SessionOptions& o = options_of(options);
    return finish_open(tir::Session::open(model_path, weights_path, o), o.weights, out_session);
  });
}

tir_status tir_session_open_from_memory(const void* model_data, size_t model_size,
                                        const void* weights_data, size_t weights_size,
                                        const tir_session_options* options,
                                        tir_session** out_session) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(out_session, __func__);
    *out_session = nullptr;
    TIR_C_CHECK_ARG(model_data, __func__);
    TIR_C_CHECK_ARG(weights_data, __func__);
    if (options) tir::set_num_threads(options->threads);
    const tir::SessionOptions& o = options_of(options);
    auto weights = tir::WeightSet::from_source(
        memory_source(weights_data, weights_size, "<weights in memory>"), o.weights);
    if (!weights.ok()) return fail(weights.status());
    return finish_open(
        tir::Session::create(memory_source(model_data, model_size, "<model in memory>"),
                             std::move(weights).value(), o),
        o.weights, out_session);
  });
}

void tir_session_free(tir_session* session) { delete session; }

tir_status tir_session_method(const tir_session* session, const char** out_name) {
  TIR_C_CHECK_ARG(session, __func__);
  TIR_C_CHECK_ARG(out_name, __func__);
  *out_name = session->session->method_name().c_str();
  return TIR_OK;
}

tir_status tir_session_input_count(const tir_session* session, size_t* out_count) {
  TIR_C_CHECK_ARG(session, __func__);
  TIR_C_CHECK_ARG(out_count, __func__);
  *out_count = session->session->inputs().size();
  return TIR_OK;
}

tir_status tir_session_output_count(const tir_session* session, size_t* out_count) {
  TIR_C_CHECK_ARG(session, __func__);
  TIR_C_CHECK_ARG(out_count, __func__);
  *out_count = session->session->outputs().size();
  return TIR_OK;
}

tir_status tir_session_input_info(const tir_session* session, size_t index, tir_io_info* out_info) {
  TIR_C_CHECK_ARG(session, __func__);
  TIR_C_CHECK_ARG(out_info, __func__);
  return guarded(__func__,
                 [&] { return io_info(session->session->inputs(), index, "input", out_info); });
}

tir_status tir_session_output_info(const tir_session* session, size_t index,
                                   tir_io_info* out_info) {
  TIR_C_CHECK_ARG(session, __func__);
  TIR_C_CHECK_ARG(out_info, __func__);
  return guarded(__func__,
                 [&] { return io_info(session->session->outputs(), index, "output", out_info); });
}

tir_status tir_session_input_index(const tir_session* session, const char* name,
                                   size_t* out_index) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(session, __func__);
    TIR_C_CHECK_ARG(name, __func__);
    TIR_C_CHECK_ARG(out_index, __func__);
    const int i = session->session->input_index(name);
    if (i < 0) {
      std::string names;
      for (const tir::IoSpec& s : session->session->inputs())
        names += (names.empty() ? "" : ", ") + s.name;
      return fail(make_error(StatusCode::kNotFound, "method '", session->session->method_name(),
                             "' has no input '", name, "' (it has: ", names, ")"));
    }
    *out_index = static_cast<size_t>(i);
    return TIR_OK;
  });
}

tir_status tir_session_bind_input(tir_session* session, size_t index, tir_dtype dtype,
                                  const int64_t* dims, int32_t rank, const void* data,
                                  size_t nbytes) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(session, __func__);
    return bind(session, index, dtype, dims, rank, data, nbytes);
  });
}

tir_status tir_session_bind_input_by_name(tir_session* session, const char* name, tir_dtype dtype,
                                          const int64_t* dims, int32_t rank, const void* data,
                                          size_t nbytes) {
  return guarded(__func__, [&] {
    size_t index = 0;
    if (const tir_status st = tir_session_input_index(session, name, &index); st != TIR_OK)
      return st;
    return bind(session, index, dtype, dims, rank, data, nbytes);
  });
}

tir_status tir_session_run(tir_session* session) {
  return tir_session_run_adapter(session, nullptr);
}

tir_status tir_session_run_adapter(tir_session* session, const char* adapter) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(session, __func__);
    session->has_run = false;
    for (size_t i = 0; i < session->bound.size(); ++i)
      if (!session->is_bound[i])
        return fail(make_error(StatusCode::kInvalidArgument, "input '",
                               session->session->inputs()[i].name, "' (index ", i,
                               ") is not bound"));
    std::vector<tir::Tensor> inputs = session->bound;
    const auto& specs = session->session->inputs();
    session->written.resize(specs.size());
    session->written_views.assign(specs.size(), tir::Tensor{});
    for (size_t i = 0; i < specs.size(); ++i) {
      if (!specs[i].mutated) continue;
      const auto* p = static_cast<const uint8_t*>(inputs[i].data);
      session->written[i].assign(p, p + inputs[i].nbytes());
      inputs[i].data = session->written[i].data();
      session->written_views[i] = inputs[i];
    }
    auto outputs = session->session->run(inputs, adapter ? adapter : "");
    if (!outputs.ok()) return fail(outputs.status());
    session->outputs = *outputs;
    session->has_run = true;
    return TIR_OK;
  });
}

tir_status tir_session_output(const tir_session* session, size_t index, tir_tensor_view* out_view) {
  TIR_C_CHECK_ARG(session, __func__);
  TIR_C_CHECK_ARG(out_view, __func__);
  if (!session->has_run)
    return fail(StatusCode::kInvalidArgument,
                "no outputs: tir_session_run has not succeeded on this session");
  if (index >= session->outputs.size())
    return fail(make_error(StatusCode::kInvalidArgument, "output index ", index, " out of range (",
                           session->outputs.size(), " outputs)"));
  fill_view(session->outputs[index], out_view);
  return TIR_OK;
}

tir_status tir_session_input_written(const tir_session* session, size_t index, int* out_written) {
  TIR_C_CHECK_ARG(session, __func__);
  TIR_C_CHECK_ARG(out_written, __func__);
  const auto& specs = session->session->inputs();
  if (index >= specs.size())
    return fail(make_error(StatusCode::kInvalidArgument, "input index ", index, " out of range (",
                           specs.size(), " inputs)"));
  *out_written = specs[index].mutated ? 1 : 0;
  return TIR_OK;
}

tir_status tir_session_written_input(const tir_session* session, size_t index,
                                     tir_tensor_view* out_view) {
  TIR_C_CHECK_ARG(session, __func__);
  TIR_C_CHECK_ARG(out_view, __func__);
  const auto& specs = session->session->inputs();
  if (index >= specs.size())
    return fail(make_error(StatusCode::kInvalidArgument, "input index ", index, " out of range (",
                           specs.size(), " inputs)"));
  if (!specs[index].mutated)
    return fail(make_error(StatusCode::kInvalidArgument, "input '", specs[index].name,
                           "' is not written by the program"));
  if (!session->has_run)
    return fail(StatusCode::kInvalidArgument,
                "no written inputs: tir_session_run has not succeeded on this session");
  fill_view(session->written_views[index], out_view);
  return TIR_OK;
}

tir_status tir_session_swap_weights(tir_session* session, const char* weights_path) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(session, __func__);
    TIR_C_CHECK_ARG(weights_path, __func__);
    return install(session, tir::WeightSet::open(weights_path, session->weight_options));
  });
}

tir_status tir_session_load_adapter(tir_session* session, const char* name, const char* path) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(session, __func__);
    TIR_C_CHECK_ARG(name, __func__);
    TIR_C_CHECK_ARG(path, __func__);
    const tir::Status s = session->session->load_adapter(name, path);
    return s.ok() ? TIR_OK : fail(s);
  });
}

tir_status tir_session_unload_adapter(tir_session* session, const char* name) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(session, __func__);
    TIR_C_CHECK_ARG(name, __func__);
    const tir::Status s = session->session->unload_adapter(name);
    return s.ok() ? TIR_OK : fail(s);
  });
}

tir_status tir_session_swap_weights_overlay(tir_session* session, const char* const* paths,
                                            size_t count) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(session, __func__);
    TIR_C_CHECK_ARG(paths, __func__);
    if (count == 0) return fail(StatusCode::kInvalidArgument, "overlay: no weight files (count 0)");
    std::vector<std::string> layers;
    for (size_t i = 0; i < count; ++i) {
      if (!paths[i])
        return fail(make_error(StatusCode::kInvalidArgument, "overlay: paths[", i, "] is null"));
      layers.emplace_back(paths[i]);
    }
    return install(session, tir::WeightSet::open_layers(layers, session->weight_options));
  });
}

}  // extern "C"
