#include "importer/import_pt2.h"

#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>

#include "core/atomic_file.h"
#include "importer/graph_builder.h"
#include "importer/op_check.h"
#include "importer/program_json.h"
#include "importer/pt2_archive.h"
#include "importer/weight_extract.h"
#include "importer/weight_order.h"
#include "importer/weight_writer.h"
#include "ir/model.h"

namespace tir::importer {
namespace {

constexpr uint64_t kMaxConstantBytes = uint64_t{1} << 30;
constexpr char kProducer[] = "tirc 0.1.0";

void say(const ImportOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

/// xxh3 of a tensor's bytes in its archive.
Result<uint64_t> source_hash(const Pt2Archive& archive, const TensorSource& src) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  TIR_RETURN_IF_ERROR(stream_tensor_source(archive, src, [&](std::span<const uint8_t> chunk) {
    XXH3_64bits_update(state.get(), chunk.data(), chunk.size());
    return ok_status();
  }));
  return uint64_t{XXH3_64bits_digest(state.get())};
}

}  // namespace

Result<ImportSummary> import_pt2(const ImportOptions& o) {
  namespace fs = std::filesystem;
  std::vector<MethodSource> sources = o.methods;
  if (sources.empty()) sources.push_back({"forward", o.input, o.input_bytes});
  TIR_RETURN_IF_ERROR(check_custom_op_names(o.custom_ops));
  ImportSummary sum;
  sum.model_path = o.model_path.empty()
                       ? fs::path(sources[0].path).replace_extension(".tir").string()
                       : o.model_path;
  sum.weights_path = o.weights_path.empty()
                         ? fs::path(sum.model_path).replace_extension(".bin").string()
                         : o.weights_path;
  if (fs::weakly_canonical(sum.model_path) == fs::weakly_canonical(sum.weights_path))
    return make_error(StatusCode::kInvalidArgument, "model and weights would both be written to '",
                      sum.model_path, "'");
  for (const std::string* out : {&sum.model_path, &sum.weights_path}) {
    std::error_code ec;
    if (fs::is_directory(*out, ec))
      return make_error(StatusCode::kInvalidArgument, "'", *out,
                        "' is a directory; name the file to write");
    for (const MethodSource& source : sources)
      if (source.bytes.empty() &&
          fs::weakly_canonical(*out, ec) == fs::weakly_canonical(source.path, ec))
        return make_error(StatusCode::kInvalidArgument, "'", *out,
                          "' is an input program; writing there would destroy it");
  }

  ModelTables tables;
  std::vector<std::unique_ptr<Pt2Archive>> archives;
  std::vector<NodeOp> node_ops;
  std::vector<flatbuffers::Offset<fb::Method>> methods;
  for (const MethodSource& source : sources) {
    TIR_ASSIGN_OR_RETURN(std::unique_ptr<Pt2Archive> archive,
                         source.bytes.empty() ? Pt2Archive::open(source.path)
                                              : Pt2Archive::open_bytes(source.path, source.bytes));
    const int index = static_cast<int>(archives.size());
    const bool several = archive->model_names().size() > 1;
    for (const std::string& model : archive->model_names()) {
      const std::string name = several ? model : source.name;
      if (std::find(sum.methods.begin(), sum.methods.end(), name) != sum.methods.end())
        return make_error(StatusCode::kInvalidArgument, "'", source.path, "': method name '", name,
                          "' is used twice; name the programs with NAME=FILE.pt2");
      TIR_ASSIGN_OR_RETURN(Program program, read_program(*archive, model));
      sum.torch_version = program.torch_version;
      say(o, "read '" + source.path + "' (model '" + program.model_name + "', torch " +
                 program.torch_version + ")");
      TIR_ASSIGN_OR_RETURN(GraphPlan plan, build_method(program, *archive, index, name, &tables));
      say(o, "built method '" + name + "': " + std::to_string(plan.num_nodes) + " nodes, " +
                 std::to_string(plan.num_values) + " values");
      sum.methods.push_back(name);
      sum.nodes += plan.num_nodes;
      sum.values += plan.num_values;
      methods.push_back(plan.method);
      node_ops.insert(node_ops.end(), plan.node_ops.begin(), plan.node_ops.end());
    }
    archives.push_back(std::move(archive));
  }
  if (o.check_kernels) {
    TIR_RETURN_IF_ERROR(check_ops(node_ops, sources.size() == 1 ? sources[0].path : sum.model_path,
                                  DeviceType::kCpu, o.custom_ops));
    say(o, "checked ops: every op has a CPU kernel");
  }
  // A weight several programs name is stored once, so it must be the same tensor in each.
  for (const auto& [idx, other] : tables.shared_weights) {
    const WeightPlan& w = tables.weights[idx];
    TIR_ASSIGN_OR_RETURN(uint64_t first, source_hash(*archives[w.source.archive], w.source));
    TIR_ASSIGN_OR_RETURN(uint64_t again, source_hash(*archives[other.archive], other));
    if (first != again)
      return make_error(StatusCode::kInvalidArgument, "'", sources[other.archive].path,
                        "': weight '", w.spec.name, "' has other values than in '",
                        sources[w.source.archive].path,
                        "' (one weight file holds each weight once; import them separately)");
  }
  sum.shared_weights = tables.shared_weights.size();

  // Weights stream straight from the archives into the weight file, in the order the
  // methods first read them (a streaming run then reads the file front to back).
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<WeightWriter> ww, WeightWriter::create(sum.weights_path));
  const std::vector<size_t> order =
      weight_first_use_order(*tables.fbb, methods, tables.weights.size());
  std::vector<size_t> written_at(tables.weights.size());
  uint64_t total_bytes = 0, done_bytes = 0;
  for (const WeightPlan& w : tables.weights) total_bytes += w.source.byte_size;
  for (size_t k = 0; k < order.size(); ++k) {
    const WeightPlan& w = tables.weights[order[k]];
    written_at[order[k]] = k;
    TIR_RETURN_IF_ERROR(ww->add(w.spec, w.source.byte_size, [&](const ChunkSink& sink) {
      if (!o.weight_progress)
        return stream_tensor_source(*archives[w.source.archive], w.source, sink);
      const ChunkSink counted = [&](std::span<const uint8_t> chunk) {
        TIR_RETURN_IF_ERROR(sink(chunk));
        done_bytes += chunk.size();
        o.weight_progress(done_bytes, total_bytes);
        return ok_status();
      };
      return stream_tensor_source(*archives[w.source.archive], w.source, counted);
    }));
    sum.weight_bytes += w.source.byte_size;
    sum.weight_aliases += w.spec.aliases.size();
  }
  TIR_ASSIGN_OR_RETURN(const uint64_t signature, ww->finish());
  sum.weights = tables.weights.size();
  say(o, "wrote weights: " + std::to_string(sum.weights) + " tensors, " +
             std::to_string(sum.weight_bytes) + " bytes");

  flatbuffers::FlatBufferBuilder& fbb = *tables.fbb;
  std::vector<flatbuffers::Offset<fb::WeightRef>> refs;
  for (size_t i = 0; i < tables.weights.size(); ++i) {
    const WeightPlan& w = tables.weights[i];
    refs.push_back(fb::CreateWeightRef(
        fbb, fbb.CreateString(w.spec.name), fbb.CreateVectorOfStrings(w.spec.aliases),
        ir::to_fb_dtype(w.spec.dtype), fbb.CreateVector(w.spec.shape), w.source.byte_size,
        ww->written()[written_at[i]].xxh3, w.is_buffer));
  }
  std::vector<flatbuffers::Offset<fb::Constant>> consts;
  for (const ConstantPlan& c : tables.constants) {
    if (c.source.byte_size > kMaxConstantBytes)
      return make_error(StatusCode::kUnsupported, "'", sources[c.source.archive].path,
                        "': constant '", c.name, "' has ", c.source.byte_size,
                        " bytes, too large to store in the model");
    std::vector<uint8_t> bytes;
    bytes.reserve(size_t(c.source.byte_size));
    TIR_RETURN_IF_ERROR(stream_tensor_source(
        *archives[c.source.archive], c.source, [&](std::span<const uint8_t> chunk) {
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
  const std::string producer = std::string(kProducer) + " from torch " + sum.torch_version;
  fbb.Finish(
      fb::CreateModel(fbb, ir::kModelVersion, fbb.CreateString(producer), fbb.CreateVector(methods),
                      fbb.CreateVector(refs), fbb.CreateVector(consts), signature),
      fb::ModelIdentifier());

  // What we wrote must pass the reader's own checks.
  const std::vector<uint8_t> model_bytes = ir::model_seal({fbb.GetBufferPointer(), fbb.GetSize()});
  if (auto view = ir::ModelView::open(model_bytes, sum.model_path); !view.ok())
    return Status(StatusCode::kInternal,
                  "importer produced an invalid model: " + view.status().message());
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> mf, AtomicFile::create(sum.model_path));
  TIR_RETURN_IF_ERROR(mf->write(model_bytes));
  TIR_RETURN_IF_ERROR(mf->sync());
  // The pair is replaced all-or-nothing: the old weight file is kept under a second name
  // until the model is in place, and put back if that fails.
  // Named like a temporary, so an import killed here leaves nothing the next one keeps.
  const std::string backup = sum.weights_path + ".tmp." + std::to_string(::getpid()) + ".old";
  const bool had_old = ::link(sum.weights_path.c_str(), backup.c_str()) == 0;
  if (Status s = ww->commit(); !s.ok()) {
    if (had_old) ::unlink(backup.c_str());
    return s;
  }
  if (Status s = mf->commit(); !s.ok()) {
    if (had_old)
      ::rename(backup.c_str(), sum.weights_path.c_str());
    else
      ::unlink(sum.weights_path.c_str());
    return s;
  }
  if (had_old) ::unlink(backup.c_str());
  say(o, "wrote model: " + std::to_string(model_bytes.size()) + " bytes");
  return sum;
}

}  // namespace tir::importer
