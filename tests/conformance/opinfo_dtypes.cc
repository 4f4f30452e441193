#include "tests/conformance/opinfo_dtypes.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "kernels/ops/catalogue.h"
#include "runtime/passes/narrow_dtypes.h"
#include "tests/conformance/conformance_run.h"

namespace tir::conformance {
namespace {

DType dtype_named(const std::string& s) {
  for (int v = 0; v < 16; ++v)
    if (dtype_valid(v) && dtype_name(DType(v)) == s) return DType(v);
  return DType::kUndefined;
}

/// The dtypes an "any dtype" kernel takes: those of kernels::visit_dtype.
bool any_kernel_takes(DType d) {
  return d == DType::kBool || d == DType::kInt32 || d == DType::kInt64 || d == DType::kFloat32 ||
         d == DType::kFloat64;
}

/// A kernel of the row (reference or optimized CPU) takes `d` as it is.
bool kernel_takes(const kernels::OpRow& row, DType d) {
  if (row.caps.all_dtypes) return true;
  for (kernels::Backend b : {kernels::Backend::kReference, kernels::Backend::kCpu}) {
    const kernels::DTypeSet s = row.dtypes(b);
    if (s.contains(d) || (s.contains(DType::kUndefined) && any_kernel_takes(d))) return true;
  }
  return false;
}

std::string how_runs(const kernels::OpRow& row, kernels::Family family, DType d) {
  if (d == DType::kUndefined) return "";
  if (kernel_takes(row, d)) return "kernel";
  if (narrow_dtype_widened(row, family, d) && kernel_takes(row, wide_compute_dtype(d)))
    return std::string(dtype_name(wide_compute_dtype(d)));
  return "";
}

nlohmann::json read_json(const std::string& path, std::vector<std::string>* errors) {
  std::ifstream f(path);
  if (!f) {
    errors->push_back("cannot read " + path);
    return {};
  }
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded()) errors->push_back(path + " is not JSON");
  return j;
}

}  // namespace

std::vector<OpInfoDtype> opinfo_dtypes(const std::string& data_dir,
                                       std::vector<std::string>* out_errors) {
  const nlohmann::json table = read_json(data_dir + "/opinfo_dtypes.json", out_errors);
  const nlohmann::json excl = read_json(data_dir + "/opinfo_dtype_exclusions.json", out_errors);
  if (!table.is_object() || !excl.is_object()) return {};
  std::map<std::string, std::string> by_dtype;                       // dtype -> reason
  std::map<std::pair<std::string, std::string>, std::string> by_op;  // (op, dtype) -> reason
  for (const auto& r : excl.value("by_dtype", nlohmann::json::array()))
    for (const auto& d : r["dtypes"]) by_dtype[d.get<std::string>()] = r["reason"];
  for (const auto& r : excl.value("by_op", nlohmann::json::array()))
    for (const auto& op : r["ops"])
      for (const auto& d : r["dtypes"])
        by_op[{op.get<std::string>(), d.get<std::string>()}] = r["reason"];
  std::vector<OpInfoDtype> out;
  std::set<std::pair<std::string, std::string>> listed;
  const nlohmann::json& ops = table["ops"];
  for (const kernels::FamilyTable& t : kernels::op_catalogue()) {
    for (const kernels::OpRow& row : t.rows) {
      const std::string op(row.op);
      if (!ops.contains(op)) {
        out_errors->push_back(op +
                              " is not in opinfo_dtypes.json: rerun "
                              "tests/conformance/gen_opinfo_dtypes.py");
        continue;
      }
      for (const auto& d : ops[op]["dtypes"]) {
        OpInfoDtype p{op, d.get<std::string>(), "", ""};
        p.how = how_runs(row, t.family, dtype_named(p.dtype));
        listed.insert({p.op, p.dtype});
        const auto named = by_op.find({p.op, p.dtype});
        if (named != by_op.end()) {
          p.excluded = named->second;
        } else if (by_dtype.count(p.dtype)) {
          p.excluded = by_dtype[p.dtype];
        }
        if (!p.how.empty() && named != by_op.end())
          out_errors->push_back("the exclusion of " + p.op + " in " + p.dtype +
                                " is stale: tir runs it (" + p.how + ")");
        out.push_back(std::move(p));
      }
    }
  }
  for (const auto& [key, reason] : by_op)
    if (!listed.count(key))
      out_errors->push_back("the exclusion of " + key.first + " in " + key.second +
                            " names a pair torch's OpInfo does not list");
  return out;
}

std::vector<OpInfoDtypeRun> run_opinfo_dtype_samples(const std::string& data_dir,
                                                     const std::vector<OpInfoDtype>& pairs) {
  std::vector<OpInfoDtypeRun> runs(pairs.size());
  std::vector<std::string> errors;
  const std::string dir = data_dir + "/op_suite";
  const nlohmann::json m = read_json(dir + "/manifest.json", &errors);
  if (!m.is_object()) return runs;
  std::map<std::pair<std::string, std::string>, std::vector<const nlohmann::json*>> samples;
  for (const auto& c : m["cases"]) samples[{c["op"], c["dtype"]}].push_back(&c);
  std::map<std::string, std::string> refused;
  for (const auto& r : m.value("refused", nlohmann::json::array()))
    refused[r["op"].get<std::string>() + " " + r["dtype"].get<std::string>()] = r["reason"];
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].how.empty()) continue;
    OpInfoDtypeRun& run = runs[i];
    for (const nlohmann::json* c : samples[{pairs[i].op, pairs[i].dtype}]) {
      const CaseResult r = run_case(dir, *c);
      ++run.samples;
      run.passed += r.passed;
      if (!r.passed && run.failure.empty()) run.failure = r.case_name + ": " + r.reason;
    }
    if (run.samples == 0) {
      const auto why = refused.find(pairs[i].op + " " + pairs[i].dtype);
      run.failure = "no sample" + (why == refused.end() ? "" : ": " + why->second);
    }
  }
  return runs;
}

std::string render_opinfo_dtypes_markdown(const std::vector<OpInfoDtype>& pairs,
                                          const std::vector<OpInfoDtypeRun>& runs,
                                          const std::string& torch) {
  struct Tally {
    int pairs = 0, kernel = 0, widened = 0, excluded = 0, gaps = 0, sampled = 0, passed = 0;
  };
  std::map<std::string, Tally> by_dtype;
  std::map<std::string, int> reasons;
  std::set<std::string> rows;
  Tally all;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const OpInfoDtype& p = pairs[i];
    rows.insert(p.op);
    for (Tally* t : {&by_dtype[p.dtype], &all}) {
      ++t->pairs;
      t->kernel += p.how == "kernel";
      t->widened += !p.how.empty() && p.how != "kernel";
      t->excluded += p.how.empty() && !p.excluded.empty();
      t->gaps += p.how.empty() && p.excluded.empty();
      t->sampled += runs[i].samples > 0;
      t->passed += runs[i].samples > 0 && runs[i].passed == runs[i].samples;
    }
    if (p.how.empty() && !p.excluded.empty()) ++reasons[p.excluded];
  }
  std::ostringstream os;
  os << "\n## Every dtype torch's OpInfo lists, per catalogue row\n\n"
     << "`tests/conformance/gen_opinfo_dtypes.py` records in `tests/data/opinfo_dtypes.json`, "
        "for each catalogue row, the dtypes torch's OpInfo database (torch "
     << torch
     << ") says its op takes on the CPU. tir runs a pair with a kernel of the row, or through "
        "the narrow-dtype pass (`runtime/passes/narrow_dtypes.h`: float16 and bfloat16 computed "
        "in float32, narrow integers in int64, the result rounded or wrapped back); any other "
        "pair is excluded with a reason in `tests/data/opinfo_dtype_exclusions.json` "
        "(`op_suite` fails on a pair that is neither). The op suite samples each pair tir runs "
        "with a one-op program of that row and dtype (`tests/conformance/gen_op_samples.py`), "
        "run on the CPU device against torch eager's outputs (float64 within rtol 1e-9, atol "
        "1e-12; float16 and bfloat16 within one rounding step; integers and bools exactly). "
        "Counted by `tests/conformance/conformance_test` with the rest of this page.\n\n"
     << "**" << all.pairs << " row x dtype pairs over " << rows.size()
     << " rows: " << all.kernel + all.widened << " run by tir (" << all.kernel << " by a kernel, "
     << all.widened << " widened), " << all.excluded << " excluded, " << all.gaps << " neither; "
     << all.sampled << " sampled, " << all.passed << " pass.**\n\n"
     << "| dtype | pairs | kernel | widened | excluded | sampled | pass |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const auto& [d, t] : by_dtype)
    os << "| " << d << " | " << t.pairs << " | " << t.kernel << " | " << t.widened << " | "
       << t.excluded << " | " << t.sampled << " | " << t.passed << " |\n";
  os << "\n### Excluded, by reason\n\n";
  if (reasons.empty()) os << "None.\n";
  for (const auto& [reason, n] : reasons) os << "- " << n << " pairs: " << reason << "\n";
  os << "\n### Run by tir, not sampled or not passing\n\n";
  bool any = false;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].how.empty() || (runs[i].samples > 0 && runs[i].passed == runs[i].samples))
      continue;
    std::string why = runs[i].failure;
    for (char& ch : why)
      if (ch == '|' || ch == '\n') ch = ' ';
    os << "- `" << pairs[i].op << "` " << pairs[i].dtype << ": " << why << "\n";
    any = true;
  }
  if (!any) os << "None.\n";
  return os.str();
}

}  // namespace tir::conformance
