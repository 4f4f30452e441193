#include "importer/weight_extract.h"

#include <vector>

#include "importer/program_json.h"
#include "importer/weight_order.h"
#include "importer/weight_writer.h"

namespace tir::importer {

Status stream_tensor_source(const Pt2Archive& archive, const TensorSource& src,
                            const ChunkSink& sink) {
  if (!src.zeros) return archive.stream(src.member, src.offset, src.byte_size, sink);
  static const std::vector<uint8_t> kZeros(size_t{1} << 16, 0);
  for (uint64_t left = src.byte_size; left > 0;) {
    const size_t n = left < kZeros.size() ? size_t(left) : kZeros.size();
    TIR_RETURN_IF_ERROR(sink({kZeros.data(), n}));
    left -= n;
  }
  return ok_status();
}

Result<ExtractSummary> extract_weights(const std::string& pt2_path, const std::string& out_path,
                                       const std::function<void(const std::string&)>& progress) {
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<Pt2Archive> archive, Pt2Archive::open(pt2_path));
  if (archive->model_names().size() != 1)
    return make_error(StatusCode::kUnsupported, "'", pt2_path, "': archive holds ",
                      archive->model_names().size(), " models; extract takes an archive with one");
  TIR_ASSIGN_OR_RETURN(Program program, read_program(*archive, archive->model_names()[0]));
  say("read '" + pt2_path + "' (model '" + program.model_name + "', torch " +
      program.torch_version + ")");
  // The graph decides which tensors are weights and in which order (the signature): first
  // use, as `tirc import` writes them.
  TIR_ASSIGN_OR_RETURN(GraphPlan plan, build_graph(program, *archive, "forward"));
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<WeightWriter> ww, WeightWriter::create(out_path));
  ExtractSummary sum;
  const flatbuffers::Offset<fb::Method> methods[] = {plan.method};
  for (size_t i : weight_first_use_order(*plan.fbb, methods, plan.weights.size())) {
    const WeightPlan& w = plan.weights[i];
    TIR_RETURN_IF_ERROR(ww->add(w.spec, w.source.byte_size, [&](const ChunkSink& sink) {
      return stream_tensor_source(*archive, w.source, sink);
    }));
    sum.bytes += w.source.byte_size;
  }
  TIR_ASSIGN_OR_RETURN(sum.signature, ww->finish());
  TIR_RETURN_IF_ERROR(ww->commit());
  sum.tensors = plan.weights.size();
  return sum;
}

}  // namespace tir::importer
