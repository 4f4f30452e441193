#include "importer/weight_extract.h"

#include <vector>

#include "importer/program_json.h"
#include "importer/weight_order.h"
#include "importer/weight_writer.h"

namespace tir::importer {

namespace {

/// A strided view's elements in row-major order, gathered from the storage bytes it spans
/// (read whole: at most the member's size), handed on in chunks.
Status stream_strided(const Pt2Archive& archive, const TensorSource& src, const ChunkSink& sink) {
  std::vector<uint8_t> storage;
  storage.reserve(size_t(src.span_bytes));
  TIR_RETURN_IF_ERROR(
      archive.stream(src.member, src.offset, src.span_bytes, [&](std::span<const uint8_t> c) {
        storage.insert(storage.end(), c.begin(), c.end());
        return ok_status();
      }));
  const size_t rank = src.view_sizes.size(), item = size_t(src.item_bytes);
  std::vector<int64_t> index(rank, 0);
  std::vector<uint8_t> chunk;
  chunk.reserve(size_t{1} << 16);
  for (uint64_t left = src.byte_size / item; left > 0; --left) {
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d) at += index[d] * src.view_strides[d];
    const uint8_t* from = storage.data() + size_t(at) * item;
    chunk.insert(chunk.end(), from, from + item);
    if (chunk.size() + item > chunk.capacity()) {
      TIR_RETURN_IF_ERROR(sink(chunk));
      chunk.clear();
    }
    for (size_t d = rank; d-- > 0;) {  // the next index, last dim fastest
      if (++index[d] < src.view_sizes[d]) break;
      index[d] = 0;
    }
  }
  return chunk.empty() ? ok_status() : sink(chunk);
}

}  // namespace

Status stream_tensor_source(const Pt2Archive& archive, const TensorSource& src,
                            const ChunkSink& sink) {
  if (!src.zeros && !src.view_strides.empty()) return stream_strided(archive, src, sink);
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
