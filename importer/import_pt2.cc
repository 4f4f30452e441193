#include "importer/import_pt2.h"

#include <unistd.h>

#include <filesystem>

#include "importer/graph_builder.h"
#include "importer/op_check.h"
#include "importer/program_json.h"
#include "importer/pt2_archive.h"
#include "importer/weight_writer.h"
#include "ir/model.h"
#include "runtime/core/atomic_file.h"

namespace tir::importer {
namespace {

constexpr uint64_t kMaxConstantBytes = uint64_t{1} << 30;
constexpr char kProducer[] = "tirc 0.1.0";

Status stream_tensor(const Pt2Archive& archive, const TensorSource& src, const ChunkSink& sink) {
  if (!src.zeros) return archive.stream(src.member, src.offset, src.byte_size, sink);
  static const std::vector<uint8_t> kZeros(size_t{1} << 16, 0);
  for (uint64_t left = src.byte_size; left > 0;) {
    const size_t n = left < kZeros.size() ? size_t(left) : kZeros.size();
    TIR_RETURN_IF_ERROR(sink({kZeros.data(), n}));
    left -= n;
  }
  return ok_status();
}

void say(const ImportOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

}  // namespace

Result<ImportSummary> import_pt2(const ImportOptions& o) {
  namespace fs = std::filesystem;
  ImportSummary sum;
  sum.model_path =
      o.model_path.empty() ? fs::path(o.input).replace_extension(".tir").string() : o.model_path;
  sum.weights_path = o.weights_path.empty()
                         ? fs::path(sum.model_path).replace_extension(".bin").string()
                         : o.weights_path;
  if (fs::weakly_canonical(sum.model_path) == fs::weakly_canonical(sum.weights_path))
    return make_error(StatusCode::kInvalidArgument, "model and weights would both be written to '",
                      sum.model_path, "'");

  TIR_ASSIGN_OR_RETURN(std::unique_ptr<Pt2Archive> archive, Pt2Archive::open(o.input));
  if (archive->model_names().size() != 1) {
    std::string names;
    for (const std::string& n : archive->model_names()) names += (names.empty() ? "" : ", ") + n;
    return make_error(StatusCode::kUnsupported, "'", o.input, "': archive holds ",
                      archive->model_names().size(), " models (", names,
                      "); importing several is not supported yet");
  }
  TIR_ASSIGN_OR_RETURN(Program program, read_program(*archive, archive->model_names()[0]));
  sum.torch_version = program.torch_version;
  say(o, "read '" + o.input + "' (model '" + program.model_name + "', torch " +
             program.torch_version + ")");

  TIR_ASSIGN_OR_RETURN(GraphPlan plan, build_graph(program, *archive, "forward"));
  sum.nodes = plan.node_ops.size();
  sum.values = plan.num_values;
  say(o, "built graph: " + std::to_string(sum.nodes) + " nodes, " + std::to_string(sum.values) +
             " values");
  if (o.check_kernels) {
    TIR_RETURN_IF_ERROR(check_ops(plan.node_ops, o.input));
    say(o, "checked ops: every op has a CPU kernel");
  }

  // Weights stream straight from the archive into the weight file.
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<WeightWriter> ww, WeightWriter::create(sum.weights_path));
  for (const WeightPlan& w : plan.weights) {
    TIR_RETURN_IF_ERROR(ww->add(w.spec, w.source.byte_size, [&](const ChunkSink& sink) {
      return stream_tensor(*archive, w.source, sink);
    }));
    sum.weight_bytes += w.source.byte_size;
    sum.weight_aliases += w.spec.aliases.size();
  }
  TIR_ASSIGN_OR_RETURN(const uint64_t signature, ww->finish());
  sum.weights = plan.weights.size();
  say(o, "wrote weights: " + std::to_string(sum.weights) + " tensors, " +
             std::to_string(sum.weight_bytes) + " bytes");

  flatbuffers::FlatBufferBuilder& fbb = *plan.fbb;
  std::vector<flatbuffers::Offset<fb::WeightRef>> refs;
  for (size_t i = 0; i < plan.weights.size(); ++i) {
    const WeightPlan& w = plan.weights[i];
    refs.push_back(fb::CreateWeightRef(
        fbb, fbb.CreateString(w.spec.name), fbb.CreateVectorOfStrings(w.spec.aliases),
        ir::to_fb_dtype(w.spec.dtype), fbb.CreateVector(w.spec.shape), w.source.byte_size,
        ww->written()[i].xxh3, w.is_buffer));
  }
  std::vector<flatbuffers::Offset<fb::Constant>> consts;
  for (const ConstantPlan& c : plan.constants) {
    if (c.source.byte_size > kMaxConstantBytes)
      return make_error(StatusCode::kUnsupported, "'", o.input, "': constant '", c.name, "' has ",
                        c.source.byte_size, " bytes, too large to store in the model");
    std::vector<uint8_t> bytes;
    bytes.reserve(size_t(c.source.byte_size));
    TIR_RETURN_IF_ERROR(stream_tensor(*archive, c.source, [&](std::span<const uint8_t> chunk) {
      bytes.insert(bytes.end(), chunk.begin(), chunk.end());
      return ok_status();
    }));
    const auto name = fbb.CreateString(c.name);
    const auto shape = fbb.CreateVector(c.shape);
    // force_align: 64 exceeds FLATBUFFERS_MAX_ALIGNMENT (32) of flatbuffers 2.0.8, whose
    // ForceVectorAlignment asserts on it; PreAlign does the same padding without the check.
    fbb.PreAlign(bytes.size(), 64);
    const auto data = fbb.CreateVector(bytes);
    consts.push_back(fb::CreateConstant(fbb, name, ir::to_fb_dtype(c.dtype), shape, data));
    sum.constant_bytes += bytes.size();
  }
  sum.constants = consts.size();
  const std::vector<flatbuffers::Offset<fb::Method>> methods = {plan.method};
  const std::string producer = std::string(kProducer) + " from torch " + program.torch_version;
  fbb.Finish(
      fb::CreateModel(fbb, ir::kModelVersion, fbb.CreateString(producer), fbb.CreateVector(methods),
                      fbb.CreateVector(refs), fbb.CreateVector(consts), signature),
      fb::ModelIdentifier());

  // What we wrote must pass the reader's own checks.
  const std::span<const uint8_t> model_bytes(fbb.GetBufferPointer(), fbb.GetSize());
  if (auto view = ir::ModelView::open(model_bytes, sum.model_path); !view.ok())
    return Status(StatusCode::kInternal,
                  "importer produced an invalid model: " + view.status().message());
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> mf, AtomicFile::create(sum.model_path));
  TIR_RETURN_IF_ERROR(mf->write(model_bytes));
  TIR_RETURN_IF_ERROR(mf->sync());
  TIR_RETURN_IF_ERROR(ww->commit());
  if (Status s = mf->commit(); !s.ok()) {
    ::unlink(sum.weights_path.c_str());  // keep the pair all-or-nothing
    return s;
  }
  say(o, "wrote model: " + std::to_string(model_bytes.size()) + " bytes");
  return sum;
}

}  // namespace tir::importer
