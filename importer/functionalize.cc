#include "importer/functionalize.h"

#include <array>

#include "importer/aten_schema.h"

namespace tir::importer {

std::string functional_op_name(std::string_view op) {
  if (!op.starts_with("aten::")) return "";
  const std::string_view rest = op.substr(6);
  const size_t dot = rest.find('.');
  const std::string_view base = rest.substr(0, dot);
  if (base.size() < 2 || base.back() != '_' || base.starts_with("__")) return "";
  std::string out = "aten::";
  out += base.substr(0, base.size() - 1);
  if (dot == std::string_view::npos) return out;
  // Overload names mostly match ("add_.Tensor" -> "add.Tensor"); where torch named them
  // otherwise the functional overload is "Tensor_<name>" ("pow_.Scalar" ->
  // "pow.Tensor_Scalar") or the default one ("floor_divide_.Tensor" -> "floor_divide"): the
  // first whose arguments are the in-place op's.
  const std::string_view overload = rest.substr(dot + 1);
  const AtenSchema* in_place = find_aten_schema(op);
  const auto same_args = [&](const AtenSchema& f) {
    if (!in_place) return true;
    if (f.args.size() != in_place->args.size()) return false;
    for (size_t i = 0; i < f.args.size(); ++i)
      if (f.args[i].name != in_place->args[i].name || f.args[i].type != in_place->args[i].type)
        return false;
    return true;
  };
  for (const std::string& candidate :
       {out + "." + std::string(overload), out + ".Tensor_" + std::string(overload), out})
    if (const AtenSchema* f = find_aten_schema(candidate); f && same_args(*f)) return candidate;
  return out + "." + std::string(overload);
}

bool is_view_op(std::string_view op) {
  static constexpr std::array<std::string_view, 43> kViews = {
      "aten::view",
      "aten::_unsafe_view",
      "aten::reshape",
      "aten::alias",
      "aten::detach",
      "aten::expand",
      "aten::expand_as",
      "aten::permute",
      "aten::t",
      "aten::transpose.int",
      "aten::select.int",
      "aten::slice.Tensor",
      "aten::narrow",
      "aten::squeeze",
      "aten::squeeze.dim",
      "aten::squeeze.dims",
      "aten::unsqueeze",
      "aten::unflatten.int",
      "aten::flatten.using_ints",
      "aten::split.Tensor",
      "aten::split_with_sizes",
      "aten::chunk",
      "aten::unsafe_split.Tensor",
      "aten::unsafe_split_with_sizes",
      "aten::unsafe_chunk",
      "aten::tensor_split.indices",
      "aten::tensor_split.sections",
      "aten::tensor_split.tensor_indices_or_sections",
      "aten::hsplit.int",
      "aten::hsplit.array",
      "aten::vsplit.int",
      "aten::vsplit.array",
      "aten::dsplit.int",
      "aten::dsplit.array",
      "aten::unbind.int",
      "aten::as_strided",
      "aten::diagonal",
      "aten::numpy_T",
      "aten::view_as",
      "aten::reshape_as",
      "aten::swapaxes",
      "aten::movedim.int",
      "aten::contiguous",
  };
  for (std::string_view v : kViews)
    if (op == v) return true;
  return false;
}

}  // namespace tir::importer
