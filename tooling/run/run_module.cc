#include "tooling/run/run_module.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "kernels/packed_cache.h"
#include "runtime/exec/profiler.h"
#include "runtime/exec/session.h"
#include "runtime/weights/npy.h"
#include "runtime/weights/streaming_weights.h"
#include "tooling/run/layer_profile.h"
#include "tooling/run/session_graph.h"

namespace tir::tools {
namespace {

using Clock = std::chrono::steady_clock;
/// About when the process started: static initialization, before main (tirrun is linked
/// statically, so only the kernel's exec and the loader come before it).
const Clock::time_point g_process_start = Clock::now();

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

Status run_module_load_inputs(const RunModuleOptions& o, const Session& s,
                              std::vector<HostTensor>* out) {
  const size_t n = s.inputs().size();
  std::vector<bool> given(n, false);
  out->resize(n);
  if (o.positional_inputs.size() > n)
    return make_error(StatusCode::kInvalidArgument, "got ", o.positional_inputs.size(),
                      " positional inputs but method '", s.method_name(), "' takes ", n);
  for (size_t k = 0; k < o.positional_inputs.size(); ++k) {
    TIR_ASSIGN_OR_RETURN((*out)[k], npy_read(o.positional_inputs[k]));
    given[k] = true;
  }
  for (const std::string& spec : o.named_inputs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error(StatusCode::kInvalidArgument, "input '", spec, "' is not NAME=FILE.npy");
    const std::string name = spec.substr(0, eq);
    const int k = s.input_index(name);
    if (k < 0) {
      std::string names;
      for (const IoSpec& io : s.inputs()) names += (names.empty() ? "" : ", ") + io.name;
      return make_error(StatusCode::kInvalidArgument, "method '", s.method_name(),
                        "' has no input '", name, "' (inputs: ", names, ")");
    }
    if (given[k]) return make_error(StatusCode::kInvalidArgument, "input '", name, "' given twice");
    TIR_ASSIGN_OR_RETURN((*out)[k], npy_read(spec.substr(eq + 1)));
    given[k] = true;
  }
  for (size_t k = 0; k < n; ++k)
    if (!given[k])
      return make_error(StatusCode::kInvalidArgument, "missing input '", s.inputs()[k].name, "' (",
                        dtype_name(s.inputs()[k].dtype), shape_str(s.inputs()[k].shape),
                        "); pass -i ", s.inputs()[k].name, "=FILE.npy");
  return ok_status();
}

namespace {

std::string preview(const Tensor& t) {
  std::ostringstream os;
  os << std::setprecision(6);
  const int64_t n = std::min<int64_t>(t.numel(), 5);
  for (int64_t i = 0; i < n; ++i) {
    if (i) os << ", ";
    switch (t.dtype) {
      case DType::kFloat32:
        os << t.data_as<float>()[i];
        break;
      case DType::kFloat64:
        os << t.data_as<double>()[i];
        break;
      case DType::kInt64:
        os << t.data_as<int64_t>()[i];
        break;
      case DType::kInt32:
        os << t.data_as<int32_t>()[i];
        break;
      case DType::kBool:
        os << (t.data_as<uint8_t>()[i] ? "true" : "false");
        break;
      case DType::kComplexFloat:
        os << t.data_as<float>()[2 * i] << std::showpos << t.data_as<float>()[2 * i + 1]
           << std::noshowpos << "j";
        break;
      case DType::kComplexDouble:
        os << t.data_as<double>()[2 * i] << std::showpos << t.data_as<double>()[2 * i + 1]
           << std::noshowpos << "j";
        break;
      default:
        os << "?";
        break;
    }
  }
  if (t.numel() > n) os << ", ...";
  return os.str();
}

Status write_layer_profile(const RunModuleOptions& o, const Profiler& profiler) {
  TIR_ASSIGN_OR_RETURN(auto bytes, data_source_mmap(o.model_path));
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(bytes->bytes(), o.model_path));
  const ir::fb::Method* method = view.method(o.method);
  if (!method) return make_error(StatusCode::kNotFound, "no method '", o.method, "'");
  TIR_ASSIGN_OR_RETURN(LayerProfileTable table,
                       layer_profile_build(view, *method, profiler, o.profile_depth));
  return layer_profile_write(o.profile_layers_path, table);
}

/// The process's peak resident set so far (getrusage), in KiB.
long peak_rss_kb() {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

}  // namespace

Status run_module(const RunModuleOptions& o, std::ostream& out) {
  if (o.pipeline && !o.adapter.empty())
    return make_error(StatusCode::kUnsupported, "--adapter does not apply to --pipeline runs");
  if (o.pipeline) return run_pipeline_module(o, out);
  set_num_threads(o.threads);
  SessionOptions so;
  so.method = o.method;
  so.weights.verify_checksums = o.verify_checksums;
  so.weights.verify_in_background = true;  // float tensors checked during the first run
  so.weights.verify_threads = o.threads;   // 0: all cores
  so.weights.layout_cache = o.layout_cache;
  so.fuse = o.fuse;
  so.max_loop_iterations = o.max_loop_iterations;
  so.device = o.device;
  so.seed = o.seed;
  TIR_ASSIGN_OR_RETURN(so.precision, precision_from_name(o.dtype));
  WeightSetOptions open_options = so.weights;
  if (!o.weight_budget.empty()) {  // streamed: tensors are verified and inflated as read
    TIR_ASSIGN_OR_RETURN(so.weight_budget, parse_byte_size(o.weight_budget));
    so.direct_io = o.direct_io;
    so.weight_io_threads = o.weight_io_threads;
    open_options.verify_checksums = false;
    open_options.decode = false;
  }
  const auto t_load = Clock::now();
  std::vector<std::string> layers = {o.weights_path};
  layers.insert(layers.end(), o.overlay_paths.begin(), o.overlay_paths.end());
  TIR_ASSIGN_OR_RETURN(auto weights, WeightSet::open_layers(layers, open_options));
  TIR_ASSIGN_OR_RETURN(auto model, data_source_mmap(o.model_path));
  TIR_ASSIGN_OR_RETURN(auto session, Session::create(std::move(model), std::move(weights), so));
  const std::string adapter = o.adapter.empty() ? "" : "adapter";
  if (!adapter.empty()) TIR_RETURN_IF_ERROR(session->load_adapter(adapter, o.adapter));
  const double load_ms = ms_since(t_load);
  if (!o.dot_path.empty()) {
    TIR_RETURN_IF_ERROR(session_graph_save(*session, o.model_path, o.dot_path, o.svg_path));
    out << "graph of method " << session->method_name() << " (" << session->num_fused_groups()
        << " fused groups): " << o.dot_path << (o.svg_path.empty() ? "" : ", " + o.svg_path)
        << "\n";
    if (o.named_inputs.empty() && o.positional_inputs.empty()) return ok_status();
  }

  std::vector<HostTensor> inputs;
  TIR_RETURN_IF_ERROR(run_module_load_inputs(o, *session, &inputs));
  std::vector<Tensor> views;
  for (const HostTensor& h : inputs) views.push_back(h.view());

  // The profile covers the repeated runs (steady state), else the first one.
  Profiler profiler;
  const bool profile = !o.profile_path.empty() || !o.profile_layers_path.empty();
  if (profile && o.repeat == 0) TIR_RETURN_IF_ERROR(session->set_profiler(&profiler));
  const auto t_first = Clock::now();
  TIR_ASSIGN_OR_RETURN(auto outputs, session->run(views, adapter));
  const double first_ms = ms_since(t_first);
  const double start_to_first_ms = ms_since(g_process_start);
  // Wall clock at the first output, so a harness that spawned this process can measure its
  // cold start (process start to first output) on the same clock.
  const double first_output_unix_ms =
      std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  if (profile && o.repeat > 0) TIR_RETURN_IF_ERROR(session->set_profiler(&profiler));
  std::vector<double> times;
  for (int r = 0; r < o.repeat; ++r) {
    const auto t0 = Clock::now();
    TIR_ASSIGN_OR_RETURN(outputs, session->run(views, adapter));
    times.push_back(ms_since(t0));
  }
  const std::vector<double> times_in_order = times;
  std::sort(times.begin(), times.end());
  if (profile) {
    TIR_RETURN_IF_ERROR(session->set_profiler(nullptr));
    if (!o.profile_path.empty()) TIR_RETURN_IF_ERROR(profiler.write_chrome_trace(o.profile_path));
    if (!o.profile_layers_path.empty()) TIR_RETURN_IF_ERROR(write_layer_profile(o, profiler));
  }

  // Inputs the program writes (user_input_mutation): their values after the last run.
  std::vector<size_t> mutated;
  for (size_t k = 0; k < session->inputs().size(); ++k)
    if (session->inputs()[k].mutated) mutated.push_back(k);
  const auto mutated_path = [&](size_t k) {
    return o.output_dir + "/input_" + std::to_string(k) + ".npy";  // names may hold anything
  };
  if (!o.output_dir.empty()) {
    ::mkdir(o.output_dir.c_str(), 0755);  // an existing directory is fine
    for (size_t k = 0; k < outputs.size(); ++k)
      TIR_RETURN_IF_ERROR(
          npy_write(o.output_dir + "/output_" + std::to_string(k) + ".npy", outputs[k]));
    for (size_t k : mutated) TIR_RETURN_IF_ERROR(npy_write(mutated_path(k), views[k]));
  }

  if (o.json) {
    out << "{\"method\": \"" << session->method_name() << "\", \"dtype\": \""
        << precision_name(session->precision()) << "\", \"dtype_asked\": \""
        << precision_name(so.precision) << "\", \"device\": \"" << o.device
        << "\", \"copies\": " << session->num_copies() << ", \"nodes\": " << session->num_nodes()
        << ", \"arena_bytes\": " << session->arena_bytes() << ", \"load_ms\": " << load_ms
        << ", \"first_run_ms\": " << first_ms
        << ", \"start_to_first_output_ms\": " << start_to_first_ms
        << ", \"packed_at_run\": " << kernels::packed_counts().packed
        << ", \"packed_from_disk\": " << kernels::packed_counts().loaded
        << ", \"weight_budget\": " << so.weight_budget << ", \"peak_rss_kb\": " << peak_rss_kb()
        << std::setprecision(16) << ", \"first_output_unix_ms\": " << first_output_unix_ms
        << std::setprecision(6) << ", \"times_ms\": [";
    for (size_t r = 0; r < times_in_order.size(); ++r) out << (r ? ", " : "") << times_in_order[r];
    out << "]";
    if (!times.empty())
      out << ", \"median_ms\": " << times[times.size() / 2] << ", \"min_ms\": " << times.front()
          << ", \"max_ms\": " << times.back();
    if (profile)
      out << ", \"profile\": {\"trace\": \"" << o.profile_path
          << "\", \"runs\": " << profiler.num_runs() << ", \"run_ms\": " << profiler.run_ms()
          << ", \"node_ms\": " << profiler.node_ms() << "}";
    out << ", \"outputs\": [";
    for (size_t k = 0; k < outputs.size(); ++k)
      out << (k ? ", " : "") << "{\"dtype\": \"" << dtype_name(outputs[k].dtype)
          << "\", \"shape\": " << shape_str(outputs[k].shape()) << "}";
    out << "], \"mutated_inputs\": [";
    for (size_t k = 0; k < mutated.size(); ++k) out << (k ? ", " : "") << mutated[k];
    out << "]}\n";
    return ok_status();
  }
  out << "model   " << o.model_path << " (method " << session->method_name() << ", "
      << session->num_nodes() << " nodes, arena " << session->arena_bytes() << " bytes, compute "
      << precision_name(session->precision());
  if (session->precision() != so.precision)
    out << ", " << precision_name(so.precision) << " asked: not native on this CPU";
  out << ")\n";
  if (o.device != "cpu")
    out << "devices " << session->placement_summary() << "; " << session->num_copies()
        << " copies\n";
  out << "weights " << session->weights()->path() << " (" << session->weights()->size()
      << " tensors, " << session->weights()->total_bytes() << " bytes)\n";
  if (!adapter.empty()) out << "adapter " << o.adapter << "\n";
  for (size_t k = 0; k < outputs.size(); ++k) {
    out << "output " << k << "  " << dtype_name(outputs[k].dtype) << shape_str(outputs[k].shape())
        << "  [" << preview(outputs[k]) << "]";
    if (!o.output_dir.empty()) out << "  -> " << o.output_dir << "/output_" << k << ".npy";
    out << "\n";
  }
  for (size_t k : mutated) {
    out << "input  " << session->inputs()[k].name
        << "  written by the program: " << dtype_name(views[k].dtype) << shape_str(views[k].shape())
        << "  [" << preview(views[k]) << "]";
    if (!o.output_dir.empty()) out << "  -> " << mutated_path(k);
    out << "\n";
  }
  out << std::fixed << std::setprecision(3) << "time    load " << load_ms << " ms, first run "
      << first_ms << " ms";
  if (!times.empty())
    out << ", " << times.size() << " runs: median " << times[times.size() / 2] << " ms, min "
        << times.front() << " ms, max " << times.back() << " ms";
  out << "\n";
  if (profile) {
    out << "\n";
    profiler.print_tables(out, size_t(o.profile_top));
    if (!o.profile_path.empty()) out << "trace   " << o.profile_path << "\n";
    if (!o.profile_layers_path.empty())
      out << "layers  " << o.profile_layers_path << " (depth " << o.profile_depth << ", "
          << profiler.num_runs() << " runs)\n";
  }
  return ok_status();
}

}  // namespace tir::tools
