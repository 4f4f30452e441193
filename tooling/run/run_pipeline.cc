// `tirrun staged.tir --pipeline --microbatches M`: load the stages, split the inputs, run the
// pipeline (tooling/run/pipeline_run.h), write the outputs, summarise per stage.
#include <sys/stat.h>

#include <algorithm>
#include <iomanip>
#include <ostream>

#include "runtime/weights/npy.h"
#include "tooling/run/pipeline_run.h"
#include "tooling/run/run_module.h"

namespace tir::tools {

Status run_pipeline_module(const RunModuleOptions& o, std::ostream& out) {
  if (!o.profile_path.empty() || !o.profile_layers_path.empty())
    return make_error(StatusCode::kInvalidArgument,
                      "--profile and --profile-layers profile one method; not with --pipeline");
  SessionOptions so;
  so.weights.verify_checksums = o.verify_checksums;
  so.weights.verify_threads = o.threads;
  so.fuse = o.fuse;
  so.max_loop_iterations = o.max_loop_iterations;
  TIR_ASSIGN_OR_RETURN(so.precision, precision_from_name(o.dtype));
  std::vector<std::string> layers = {o.weights_path};
  layers.insert(layers.end(), o.overlay_paths.begin(), o.overlay_paths.end());
  TIR_ASSIGN_OR_RETURN(auto weights, WeightSet::open_layers(layers, so.weights));
  TIR_ASSIGN_OR_RETURN(auto model, data_source_mmap(o.model_path));
  TIR_ASSIGN_OR_RETURN(StagedModel staged, staged_model_open(model, weights, so));
  const size_t n = staged.stages.size();
  std::vector<HostTensor> inputs;
  TIR_RETURN_IF_ERROR(run_module_load_inputs(o, *staged.stages[0], &inputs));
  TIR_ASSIGN_OR_RETURN(auto parts,
                       split_microbatches(inputs, staged.stages[0]->inputs(), o.microbatches));
  const int per_stage = o.threads > 0 ? std::max(1, o.threads / int(n)) : 0;
  ThreadPipeline pipeline(std::move(staged), 2, per_stage);
  std::vector<PipelineStats> runs;
  std::vector<std::vector<HostTensor>> results;
  for (int r = 0; r <= o.repeat; ++r) {
    PipelineStats stats;
    TIR_ASSIGN_OR_RETURN(results, pipeline.run(parts, &stats));
    runs.push_back(stats);
  }
  TIR_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, concat_microbatches(results));
  if (!o.output_dir.empty()) {
    ::mkdir(o.output_dir.c_str(), 0755);
    for (size_t k = 0; k < outputs.size(); ++k)
      TIR_RETURN_IF_ERROR(
          npy_write(o.output_dir + "/output_" + std::to_string(k) + ".npy", outputs[k].view()));
  }
  // Steady state: the median of the repeated runs (the first when there are none).
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const size_t first = runs.size() > 1 ? 1 : 0;
  std::sort(order.begin() + first, order.end(),
            [&](size_t a, size_t b) { return runs[a].wall_ms < runs[b].wall_ms; });
  const PipelineStats& med = runs[order[first + (order.size() - first) / 2]];
  if (o.json) {
    out << "{\"stages\": " << n << ", \"microbatches\": " << o.microbatches
        << ", \"wall_ms\": " << med.wall_ms << ", \"first_wall_ms\": " << runs[0].wall_ms
        << ", \"busy_ms\": [";
    for (size_t k = 0; k < n; ++k) out << (k ? ", " : "") << med.busy_ms[k];
    out << "], \"outputs\": [";
    for (size_t k = 0; k < outputs.size(); ++k)
      out << (k ? ", " : "") << "{\"dtype\": \"" << dtype_name(outputs[k].view().dtype)
          << "\", \"shape\": " << shape_str(outputs[k].view().shape()) << "}";
    out << "]}\n";
    return ok_status();
  }
  out << "pipeline " << o.model_path << ": " << n << " stages, " << o.microbatches
      << " micro-batches, " << (per_stage ? std::to_string(per_stage) : "default")
      << " threads per stage\n";
  out << std::fixed << std::setprecision(3);
  for (size_t k = 0; k < n; ++k) out << "stage" << k << "  busy " << med.busy_ms[k] << " ms\n";
  for (size_t k = 0; k < outputs.size(); ++k) {
    out << "output " << k << "  " << dtype_name(outputs[k].view().dtype)
        << shape_str(outputs[k].view().shape());
    if (!o.output_dir.empty()) out << "  -> " << o.output_dir << "/output_" << k << ".npy";
    out << "\n";
  }
  out << "time    first " << runs[0].wall_ms << " ms";
  if (runs.size() > 1) out << ", " << runs.size() - 1 << " runs: median " << med.wall_ms << " ms";
  out << "\n";
  return ok_status();
}

}  // namespace tir::tools
