#include "importer/op_renames.h"

#include <string_view>

namespace tir::importer {
namespace {

const Json* arg_named(const Json& inputs, std::string_view name) {
  for (const Json& in : inputs)
    if (in.contains("name") && in["name"] == name && in.contains("arg")) return &in["arg"];
  return nullptr;
}

Json input(std::string_view name, Json arg) {
  return {{"name", name}, {"arg", std::move(arg)}, {"kind", 1}};
}

/// `inputs` without the argument `drop`, and each argument named as in `rename` (from, to).
Json keep(const Json& inputs, std::string_view drop = "",
          std::initializer_list<std::pair<std::string_view, std::string_view>> rename = {}) {
  Json out = Json::array();
  for (const Json& in : inputs) {
    if (!in.contains("name") || in["name"] == drop) continue;
    Json copy = in;
    for (const auto& [from, to] : rename)
      if (in["name"] == from) copy["name"] = to;
    out.push_back(std::move(copy));
  }
  return out;
}

/// A float argument's value (as_float or as_int), or `none` when absent.
double float_arg(const Json& inputs, std::string_view name, double none) {
  const Json* a = arg_named(inputs, name);
  if (!a) return none;
  if (a->contains("as_float")) return (*a)["as_float"].get<double>();
  if (a->contains("as_int")) return double((*a)["as_int"].get<int64_t>());
  return none;
}

bool transposed_convolution(std::string* op, const Json& inputs, Json* renamed) {
  const Json* t = arg_named(inputs, "transposed");
  const Json* stride = arg_named(inputs, "stride");
  if (!t || !t->contains("as_bool") || !(*t)["as_bool"].get<bool>() || !stride ||
      !stride->contains("as_ints"))
    return false;
  const size_t spatial = (*stride)["as_ints"].size();
  if (spatial < 1 || spatial > 3) return false;  // the kernel names what it cannot run
  *op = spatial == 1   ? "aten::conv_transpose1d"
        : spatial == 2 ? "aten::conv_transpose2d.input"
                       : "aten::conv_transpose3d.input";
  *renamed = keep(inputs, "transposed");
  return true;
}

}  // namespace

bool rename_op(std::string* op, const Json& inputs, Json* renamed) {
  if (*op == "aten::convolution") return transposed_convolution(op, inputs, renamed);
  if (*op == "aten::clamp_min" || *op == "aten::clamp_max") {
    const bool min = *op == "aten::clamp_min";
    *renamed = keep(inputs, "", {{min ? "min" : "max", min ? "min" : "max"}});
    *op = "aten::clamp";
    return true;
  }
  if (*op == "aten::broadcast_to") {
    *op = "aten::expand";
    *renamed = keep(inputs);
    return true;
  }
  if (*op == "aten::selu" || *op == "aten::celu") {
    // torch's constants for selu; celu(x, a) = elu(x, a, scale 1, input_scale 1/a).
    const bool selu = *op == "aten::selu";
    const double alpha = selu ? 1.6732632423543772848170429916717 : float_arg(inputs, "alpha", 1.0);
    *renamed = keep(inputs, "alpha");
    renamed->push_back(input("alpha", {{"as_float", alpha}}));
    renamed->push_back(
        input("scale", {{"as_float", selu ? 1.0507009873554804934193349852946 : 1.0}}));
    renamed->push_back(input("input_scale", {{"as_float", selu ? 1.0 : 1.0 / alpha}}));
    *op = "aten::elu";
    return true;
  }
  if (*op == "aten::fliplr" || *op == "aten::flipud") {
    *renamed = keep(inputs);
    renamed->push_back(input("dims", {{"as_ints", {*op == "aten::fliplr" ? 1 : 0}}}));
    *op = "aten::flip";
    return true;
  }
  if (*op == "aten::zero") {
    *op = "aten::zeros_like";
    *renamed = keep(inputs);
    return true;
  }
  return false;
}

}  // namespace tir::importer
