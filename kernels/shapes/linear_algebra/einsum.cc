#include "kernels/shapes/linear_algebra/einsum.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <string_view>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

constexpr int kLetters = 52;  // a-z, A-Z; label ids from kLetters on are ellipsis dims

int letter(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + c - 'A';
  return -1;
}

/// One side of the equation: labels in order, kEllipsis where "..." stands.
constexpr int kEllipsis = -2;
Result<std::vector<int>> parse_term(const KernelCall& call, std::string_view t) {
  std::vector<int> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == ' ') continue;
    if (t.substr(i, 3) == "...") {
      if (std::count(out.begin(), out.end(), kEllipsis))
        return op_error(call, StatusCode::kInvalidArgument, "more than one ellipsis in '", t, "'");
      out.push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int l = letter(t[i]);
    if (l < 0)
      return op_error(call, StatusCode::kInvalidArgument, "invalid subscript '", t[i],
                      "' in the equation");
    out.push_back(l);
  }
  return out;
}

std::string label_name(int lab) {
  if (lab >= kLetters) return "...";
  return std::string(1, char(lab < 26 ? 'a' + lab : 'A' + lab - 26));
}

/// The operands' terms of the equation (left of "->").
Result<std::vector<std::vector<int>>> parse_operands(const KernelCall& call, std::string_view eq,
                                                     size_t arrow) {
  std::vector<std::vector<int>> terms;
  for (size_t start = 0;;) {
    const size_t comma = eq.find(',', start);
    const size_t end = std::min(comma, std::min(arrow, eq.size()));
    TIR_ASSIGN_OR_RETURN(auto t, parse_term(call, eq.substr(start, end - start)));
    terms.push_back(std::move(t));
    if (comma == std::string_view::npos || comma > arrow) return terms;
    start = comma + 1;
  }
}

/// Checks each operand's rank and dtype against its term; returns the ellipsis dims (the most
/// any operand covers).
Result<int> check_operands(const KernelCall& call, const std::vector<std::vector<int>>& terms,
                           std::span<const int64_t> slots) {
  if (terms.size() != slots.size())
    return op_error(call, StatusCode::kInvalidArgument, "the equation has ", terms.size(),
                    " operands but ", slots.size(), " tensors are given");
  int ell = 0;
  const DType dtype = call.inputs[size_t(slots[0])].dtype;
  for (size_t k = 0; k < terms.size(); ++k) {
    const Tensor& t = call.inputs[size_t(slots[k])];
    const int named =
        int(terms[k].size()) - int(std::count(terms[k].begin(), terms[k].end(), kEllipsis));
    const bool has = named != int(terms[k].size());
    if (has ? t.rank < named : t.rank != named)
      return op_error(call, StatusCode::kInvalidArgument, "operand ", k, " ", shape_str(t.shape()),
                      " does not have the ", named, " dims its subscripts name");
    if (has) ell = std::max(ell, t.rank - named);
    if (t.dtype != dtype)
      return op_error(call, StatusCode::kInvalidArgument, "operands of dtypes ", dtype_name(dtype),
                      " and ", dtype_name(t.dtype));
    TIR_RETURN_IF_ERROR(require_contiguous(call, t, "tensors"));
  }
  if (!dtype_is_float(dtype))
    return op_error(call, StatusCode::kUnsupported, "einsum of ", dtype_name(dtype),
                    " tensors (floating point only)");
  return ell;
}

/// Binds operand k's dims to their labels: sizes (size 1 broadcasts), strides (a label
/// repeated in the operand adds up: its diagonal) and each label's occurrences.
Status bind_operand(const KernelCall& call, size_t k, const std::vector<int>& term, int ell,
                    EinsumParams* p, std::vector<int>* count) {
  const Tensor& t = call.inputs[size_t(p->inputs[k])];
  std::vector<int64_t> stride(p->size.size(), 0);
  int dim = 0;
  for (int l : term) {
    const int first = l == kEllipsis ? kLetters + ell - (t.rank - (int(term.size()) - 1)) : l;
    const int last = l == kEllipsis ? kLetters + ell : l + 1;
    for (int lab = first; lab < last; ++lab, ++dim) {
      const int64_t n = t.sizes[dim];
      int64_t& s = p->size[size_t(lab)];
      if (s != -1 && n != s && n != 1 && s != 1)
        return op_error(call, StatusCode::kInvalidArgument, "subscript ", label_name(lab),
                        " has size ", n, " in operand ", k, " but ", s, " elsewhere");
      if (s == -1 || s == 1) s = n;
      if (n != 1) stride[size_t(lab)] += t.strides[dim];
      ++(*count)[size_t(lab)];
    }
  }
  p->stride.push_back(std::move(stride));
  return ok_status();
}

/// The output's labels: as written after "->", or torch's implicit order (the ellipsis
/// dims, then the labels that occur once, alphabetically, upper case first).
Status output_labels(const KernelCall& call, std::string_view eq, size_t arrow, int ell,
                     const std::vector<int>& count, EinsumParams* p) {
  if (arrow == std::string_view::npos) {
    for (int e = 0; e < ell; ++e) p->out_labels.push_back(kLetters + e);
    std::vector<int> once;
    for (int l = 0; l < kLetters; ++l)
      if (count[size_t(l)] == 1) once.push_back(l);
    std::sort(once.begin(), once.end(),
              [](int a, int b) { return label_name(a)[0] < label_name(b)[0]; });
    p->out_labels.insert(p->out_labels.end(), once.begin(), once.end());
    return ok_status();
  }
  TIR_ASSIGN_OR_RETURN(auto out, parse_term(call, eq.substr(arrow + 2)));
  for (int l : out) {
    if (l == kEllipsis) {
      for (int e = 0; e < ell; ++e) p->out_labels.push_back(kLetters + e);
    } else if (p->size[size_t(l)] == -1 ||
               std::count(p->out_labels.begin(), p->out_labels.end(), l)) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "output subscript appears in no operand or twice: '", eq, "'");
    } else {
      p->out_labels.push_back(l);
    }
  }
  return ok_status();
}

}  // namespace

Result<EinsumParams> einsum_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.size() < 2 || call.args[0].kind != ArgKind::kString ||
      call.args[1].kind != ArgKind::kTensors || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expects (equation, tensors, path)");
  return einsum_plan(call, call.args[0].s, call.args[1].ints);
}

Result<EinsumParams> einsum_plan(const KernelCall& call, std::string_view eq,
                                 std::span<const int64_t> slots) {
  const size_t arrow = eq.find("->");
  TIR_ASSIGN_OR_RETURN(auto terms, parse_operands(call, eq, arrow));
  TIR_ASSIGN_OR_RETURN(const int ell, check_operands(call, terms, slots));
  EinsumParams p;
  p.dtype = call.inputs[size_t(slots[0])].dtype;
  p.size.assign(size_t(kLetters + ell), -1);
  p.inputs.assign(slots.begin(), slots.end());
  std::vector<int> count(p.size.size(), 0);
  for (size_t k = 0; k < terms.size(); ++k)
    TIR_RETURN_IF_ERROR(bind_operand(call, k, terms[k], ell, &p, &count));
  TIR_RETURN_IF_ERROR(output_labels(call, eq, arrow, ell, count, &p));
  std::vector<int64_t> shape;
  for (int l : p.out_labels) shape.push_back(p.size[size_t(l)]);
  for (size_t l = 0; l < p.size.size(); ++l)
    if (p.size[l] != -1 && !std::count(p.out_labels.begin(), p.out_labels.end(), int(l)))
      p.sum_labels.push_back(int(l));
  if (shape.size() > size_t(kMaxRank))
    return op_error(call, StatusCode::kUnsupported, "an output of rank ", shape.size());
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(shape);
  return p;
}

}  // namespace tir::kernels
