#include "tooling/layouts/layout_pack.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <span>

#include "core/precision.h"
#include "core/printable.h"
#include "ir/model.h"
#include "ir/sym_expr.h"
#include "kernels/packed_cache.h"
#include "runtime/exec/session.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/host_tensor.h"
#include "runtime/weights/layout_cache.h"
#include "runtime/weights/weight_set.h"
#include "tooling/cli/number_flags.h"
#include "tooling/cli/parse_command_line.h"

namespace tir::tools {
namespace {

using Dims = std::map<std::string, int64_t, std::less<>>;

Result<Dims> parse_dims(const std::vector<std::string>& items) {
  Dims dims;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    int64_t value = 0;
    bool parsed = eq != std::string::npos && eq > 0 && eq + 1 < item.size();
    if (parsed) {
      try {
        size_t used = 0;
        value = std::stoll(item.substr(eq + 1), &used);
        parsed = used == item.size() - eq - 1;
      } catch (const std::exception&) {
        parsed = false;
      }
    }
    if (!parsed)
      return Status(StatusCode::kInvalidArgument,
                    "--dim '" + item + "': expected NAME=VALUE, VALUE an integer");
    dims[item.substr(0, eq)] = value;
  }
  return dims;
}

/// A symbol's value when --dim does not give one, at least: the rows from which float32 GEMMs
/// pack (a sequence length; a batch).
constexpr int64_t kDefaultRows = 16;

/// The value of each of `method`'s symbols for the runs: from `dims`, else the export-time
/// example, at least kDefaultRows, within the symbol's range.
Result<std::vector<int64_t>> symbol_values(const ir::fb::Method& method, const Dims& dims,
                                           std::string* described) {
  std::vector<int64_t> values;
  if (!method.symbols()) return values;
  for (const ir::fb::Symbol* s : *method.symbols()) {
    const std::string name(ir::str(s->name()));
    int64_t v = std::max<int64_t>({s->hint(), kDefaultRows, s->min()});
    if (auto it = dims.find(name); it != dims.end()) {
      v = it->second;
      if (v < s->min() || v > s->max())
        return Status(StatusCode::kInvalidArgument,
                      "--dim " + name + "=" + std::to_string(v) + ": outside the symbol's range [" +
                          std::to_string(s->min()) + ", " +
                          (s->max() == INT64_MAX ? std::string("inf") : std::to_string(s->max())) +
                          "] in method '" + std::string(ir::str(method.name())) + "'");
    }
    v = std::min(v, s->max());
    values.push_back(v);
    *described += (described->empty() ? "" : ", ") + name + "=" + std::to_string(v);
  }
  return values;
}

/// Zero inputs for the session's user inputs at the symbol values `symbols`.
Result<std::vector<HostTensor>> zero_inputs(const Session& session, const ir::fb::Method& method,
                                            std::span<const int64_t> symbols) {
  std::vector<HostTensor> inputs;
  for (const IoSpec& spec : session.inputs()) {
    const ir::fb::Value* value = nullptr;
    if (method.inputs())
      for (int32_t v : *method.inputs())
        if (ir::str(method.values()->Get(v)->name()) == spec.name) value = method.values()->Get(v);
    if (value == nullptr)
      return Status(StatusCode::kInternal, "input '" + spec.name + "' is not in the method");
    if (value->kind() == ir::fb::ValueKind::SymInt) {
      HostTensor t(DType::kInt64, std::span<const int64_t>());
      if (value->expr()) {
        TIR_ASSIGN_OR_RETURN(*t.data<int64_t>(), ir::eval_sym_expr(*value->expr(), symbols));
      }
      inputs.push_back(std::move(t));
      continue;
    }
    std::vector<int64_t> shape;
    if (value->sizes())
      for (const ir::fb::Dim* d : *value->sizes()) {
        TIR_ASSIGN_OR_RETURN(const int64_t size, ir::eval_dim(*d, symbols));
        shape.push_back(size);
      }
    inputs.emplace_back(spec.dtype, shape);
  }
  return inputs;
}

/// Runs `name` twice on zero inputs (float32 GEMMs pack from the second run).
Status run_method(const LayoutPackOptions& o, std::shared_ptr<const DataSource> model,
                  std::shared_ptr<const WeightSet> set, const ir::fb::Method& method,
                  const Dims& dims, std::ostream& out) {
  const std::string name(ir::str(method.name()));
  std::string described;
  TIR_ASSIGN_OR_RETURN(std::vector<int64_t> symbols, symbol_values(method, dims, &described));
  SessionOptions so;
  so.method = name;
  TIR_ASSIGN_OR_RETURN(so.precision, precision_from_name(o.dtype));
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::create(model, set, so));
  TIR_ASSIGN_OR_RETURN(std::vector<HostTensor> inputs, zero_inputs(*session, method, symbols));
  std::vector<Tensor> views;
  for (const HostTensor& t : inputs) views.push_back(t.view());
  const kernels::PackedCounts before = kernels::packed_counts();
  for (int run = 0; run < 2; ++run) {
    auto got = session->run(views);
    if (!got.ok())
      return Status(got.status().code(), "method '" + name + "' on zero inputs (" +
                                             (described.empty() ? "no symbols" : described) +
                                             "): " + got.status().message());
  }
  const kernels::PackedCounts after = kernels::packed_counts();
  out << "method " << name << " (" << (described.empty() ? "static shapes" : described)
      << "): " << after.packed - before.packed << " weights packed, "
      << after.loaded - before.loaded << " already in the cache\n";
  return ok_status();
}

}  // namespace

Status pack_layouts(const LayoutPackOptions& o, std::ostream& out) {
  TIR_ASSIGN_OR_RETURN(const Dims dims, parse_dims(o.dims));
  set_num_threads(o.threads);
  WeightSetOptions wo;
  wo.layout_cache = true;
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> set, WeightSet::open(o.weights_path, wo));
  if (set->format() != WeightFormat::kTir)
    return Status(StatusCode::kInvalidArgument,
                  "'" + o.weights_path +
                      "': a layout cache is kept beside a tir weight file only (convert it "
                      "with `tirc weights pack SOURCE -o w.bin` first)");
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const DataSource> model, data_source_mmap(o.model_path));
  TIR_ASSIGN_OR_RETURN(const ir::ModelView view, ir::ModelView::open(model->bytes(), o.model_path));
  std::vector<const ir::fb::Method*> methods;
  for (const std::string& name : o.methods) {
    const ir::fb::Method* m = view.method(name);
    if (m == nullptr)
      return Status(StatusCode::kNotFound, "'" + o.model_path + "' has no method '" + name +
                                               "' (it has: " + view.method_names() + ")");
    methods.push_back(m);
  }
  if (methods.empty() && view.model().methods())
    for (const ir::fb::Method* m : *view.model().methods()) methods.push_back(m);
  for (const auto& [name, value] : dims) {
    bool found = false;
    for (const ir::fb::Method* m : methods)
      if (m->symbols())
        for (const ir::fb::Symbol* s : *m->symbols()) found = found || ir::str(s->name()) == name;
    if (!found)
      return Status(StatusCode::kInvalidArgument,
                    "--dim " + name + ": no method to run has a symbol of that name");
  }
  const kernels::PackedCounts before = kernels::packed_counts();
  for (const ir::fb::Method* m : methods)
    TIR_RETURN_IF_ERROR(run_method(o, model, set, *m, dims, out));
  TIR_RETURN_IF_ERROR(set->save_layouts());
  const kernels::PackedCounts after = kernels::packed_counts();
  const std::string path = layout_cache_path(o.weights_path);
  if (after.packed == before.packed && after.loaded == before.loaded) {
    out << "nothing to pack: at these sizes this CPU's kernels read every weight in place (" << path
        << " not written)\n";
    return ok_status();
  }
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(path, ec);
  out << "layout cache " << path << ": " << (ec ? 0 : bytes) / (1 << 20) << " MiB, "
      << after.packed - before.packed << " weights packed now, " << after.loaded - before.loaded
      << " were there already\n";
  return ok_status();
}

int pack_layouts_main(int argc, char** argv) {
  LayoutPackOptions o;
  CLI::App app{
      "tirrun pack-layouts: write a weight file's layout cache (WEIGHTS.layout) ahead of time: "
      "the GEMM weights packed into the layouts this CPU's kernels read, mapped by later "
      "processes instead of packed. Runs each method twice on zero inputs."};
  app.name("tirrun pack-layouts");
  app.footer("Guide: docs/guide/weights.md (the layout cache)");
  app.add_option("model", o.model_path, "Model file written by `tirc import`")->required();
  app.add_option("--weights,-w", o.weights_path, "tir weight file (w.bin)")->required();
  app.add_option("--method,-m", o.methods, "Method to run (repeatable; default: every one)");
  app.add_option("--dim", o.dims,
                 "A symbol's value for the runs, NAME=VALUE (repeatable; default: its "
                 "export-time example). GEMMs pack for inputs of at least 16 rows (int8: 2)");
  app.add_option("--dtype", o.dtype, "The precision the model will run in")
      ->check(CLI::IsMember({"f32", "bf16", "int8"}))
      ->capture_default_str();
  app.add_option("--threads,-t", o.threads, "CPU threads (0: library default)")
      ->check(tir::tools::whole_number(0, INT32_MAX));
  if (auto code = parse_command_line(app, argc, argv, "tirrun pack-layouts")) return *code;
  return exit_status(pack_layouts(o, std::cout));
}

}  // namespace tir::tools
