#include "tooling/inspect/op_coverage.h"

#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/model.h"
#include "kernels/ops/catalogue.h"

namespace tir::tools {
namespace {

constexpr const char* kCoreAtenOps[] = {
#include "importer/core_aten_ops.inc"
};

struct OpInfo {
  std::string family;  // the catalogue family; for ops without a kernel, what runs them
  std::set<std::string> dtypes;
  bool optimized = false;
  bool reference = false;
  bool runtime = false;   // control flow: the executor runs it, no kernel
  bool importer = false;  // shape arithmetic: the importer replaces it by its expression
  /// Per backend (reference, cpu, cuda): the dtypes its kernels take ("any": every dtype).
  std::map<std::string, std::vector<std::string>> backends;
};

/// Ops that output only SymInts: the importer never emits them, every use reads the
/// expression over the graph's symbols instead (importer/node_builder.cc).
constexpr const char* kImporterResolved[] = {
    "aten::sym_numel",
    "aten::sym_size.int",
    "aten::sym_storage_offset",
    "aten::sym_stride.int",
};

bool is_backward(std::string_view op) { return op.find("_backward") != std::string_view::npos; }

/// op -> what the op catalogue lists for it on the CPU (reference and optimized kernels).
std::map<std::string, OpInfo> cpu_ops() {
  std::map<std::string, OpInfo> ops;
  for (const kernels::FamilyTable& table : kernels::op_catalogue())
    for (const kernels::OpRow& row : table.rows) {
      if (row.reference.empty() && row.cpu.empty()) continue;
      OpInfo& info = ops[std::string(row.op)];
      info.family = kernels::family_name(table.family);
      for (const kernels::DTypeSet set : {row.reference, row.cpu})
        set.for_each([&](DType d) {
          info.dtypes.insert(d == DType::kUndefined ? "any" : std::string(dtype_name(d)));
        });
      info.optimized = !row.cpu.empty();
      info.reference = !row.reference.empty();
      for (kernels::Backend b :
           {kernels::Backend::kReference, kernels::Backend::kCpu, kernels::Backend::kCuda}) {
        std::vector<std::string>& names = info.backends[std::string(kernels::backend_name(b))];
        row.dtypes(b).for_each([&](DType d) {
          names.push_back(d == DType::kUndefined ? "any" : std::string(dtype_name(d)));
        });
      }
    }
  for (std::string_view op : {ir::kCondOp, ir::kWhileLoopOp, ir::kScanOp, ir::kMapOp}) {
    OpInfo& info = ops[std::string(op)];
    info.family = "control_flow";
    info.dtypes.insert("any");
    info.runtime = true;
  }
  for (const char* op : kImporterResolved) {
    OpInfo& info = ops[op];
    info.family = "shape_arithmetic";
    info.dtypes.insert("any");
    info.importer = true;
  }
  return ops;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

/// The catalogue's families (kernels/ops/<family>.cc) with their op counts.
void write_families(const std::map<std::string, OpInfo>& ops, std::ostream& out) {
  out << "## Families\n\nThe op catalogue (`kernels/ops/`) groups ops by what they compute, one "
         "table per family; a row per ATen overload lists the dtypes each backend implements.\n\n"
      << "| family | ops | with optimized CPU kernels |\n|---|---|---|\n";
  for (const kernels::FamilyTable& table : kernels::op_catalogue()) {
    size_t n = 0, optimized = 0;
    for (const auto& [op, info] : ops)
      if (info.family == kernels::family_name(table.family)) {
        ++n;
        optimized += info.optimized;
      }
    out << "| " << kernels::family_name(table.family) << " | " << n << " | " << optimized << " |\n";
  }
  out << "\n";
}

}  // namespace

Status list_ops(OpListFormat format, std::ostream& out) {
  const auto ops = cpu_ops();
  if (format == OpListFormat::kJson) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& [op, info] : ops)
      j.push_back({{"op", op},
                   {"family", info.family},
                   {"device", "cpu"},
                   {"dtypes", info.dtypes},
                   {"optimized", info.optimized},
                   {"reference", info.reference},
                   {"runtime", info.runtime},
                   {"importer", info.importer},
                   {"backends", info.backends}});
    out << j.dump(1) << "\n";
    return ok_status();
  }
  if (format == OpListFormat::kText) {
    for (const auto& [op, info] : ops)
      out << op << "  cpu  " << join(info.dtypes)
          << (info.runtime     ? "  runtime"
              : info.importer  ? "  importer"
              : info.optimized ? "  optimized"
                               : "  reference only")
          << "  " << info.family << "\n";
    out << ops.size() << " ops\n";
    return ok_status();
  }
  if (format == OpListFormat::kMissing) {
    size_t n = 0;
    for (const char* op : kCoreAtenOps)
      if (!is_backward(op) && !ops.count(op)) {
        out << op << "\n";
        ++n;
      }
    out << n << " core ATen ops (backward ops excluded) have no CPU kernel\n";
    return ok_status();
  }
  size_t covered = 0, aten = 0, forward = 0, forward_covered = 0;
  for (const char* op : kCoreAtenOps) {
    covered += ops.count(op);
    if (is_backward(op)) continue;
    ++forward;
    forward_covered += ops.count(op);
  }
  for (const auto& entry : ops) aten += entry.first.starts_with("aten::") && !entry.second.importer;
  const size_t ncore = sizeof(kCoreAtenOps) / sizeof(kCoreAtenOps[0]);
  out << "# Op coverage\n\nGenerated by `tirc ops --markdown`; do not edit. The core ATen op "
         "set comes from torch's operator registry (`importer/gen_core_aten_ops.py`).\n\n"
      << "tir has CPU kernels for " << aten << " ATen ops, covering " << covered << " of " << ncore
      << " core ATen ops";
  size_t control_flow = 0;
  for (const auto& entry : ops) control_flow += entry.second.runtime;
  if (const size_t n = control_flow; n > 0)
    out << ", plus " << n << (n == 1 ? " control-flow op" : " control-flow ops");
  out << ". Without the backward ops: " << forward_covered << " of " << forward << " ("
      << (forward ? forward_covered * 100 / forward : 0)
      << "%). Shape arithmetic (`sym_size.int`, ...) counts as covered: the importer replaces "
         "it by its expression.\n\n";
  write_families(ops, out);
  out << "## Supported ops (CPU)\n\n"
      << "| op | family | dtypes | kernel |\n|---|---|---|---|\n";
  for (const auto& [op, info] : ops)
    out << "| `" << op << "` | " << info.family << " | " << join(info.dtypes) << " | "
        << (info.runtime     ? "runtime (control flow)"
            : info.importer  ? "importer (shape arithmetic)"
            : info.optimized ? "oneDNN/Eigen + reference"
                             : "reference")
        << " |\n";
  out << "\n## Core ATen ops\n\n| op | CPU |\n|---|---|\n";
  for (const char* op : kCoreAtenOps)
    out << "| `" << op << "` | " << (ops.count(op) ? "yes" : "-") << " |\n";
  return ok_status();
}

}  // namespace tir::tools
