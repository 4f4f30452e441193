#include "importer/op_renames.h"

#include <string>
#include <string_view>
#include <vector>

#include "kernels/ops/catalogue.h"

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

/// ATen's alternative spellings of arithmetic (Python array-API names), same schemas; and
/// prims ops the core IR's decompositions leave that are ATen ops with fewer arguments (the
/// arguments go by name, the rest take the ATen schema's defaults).
constexpr std::pair<std::string_view, std::string_view> kSpellings[] = {
    {"aten::multiply.Tensor", "aten::mul.Tensor"},
    {"aten::multiply.Scalar", "aten::mul.Scalar"},
    {"aten::divide.Tensor", "aten::div.Tensor"},
    {"aten::divide.Scalar", "aten::div.Scalar"},
    {"aten::true_divide.Tensor", "aten::div.Tensor"},
    {"aten::subtract.Tensor", "aten::sub.Tensor"},
    {"aten::subtract.Scalar", "aten::sub.Scalar"},
    {"aten::greater.Tensor", "aten::gt.Tensor"},
    {"aten::less.Tensor", "aten::lt.Tensor"},
    {"aten::not_equal.Tensor", "aten::ne.Tensor"},
    {"aten::greater_equal.Tensor", "aten::ge.Tensor"},
    {"aten::less_equal.Tensor", "aten::le.Tensor"},
    {"aten::absolute", "aten::abs"},
    {"aten::negative", "aten::neg"},
    {"aten::arccos", "aten::acos"},
    {"aten::arcsin", "aten::asin"},
    {"aten::arctan", "aten::atan"},
    {"aten::arctan2", "aten::atan2"},
    {"aten::fix", "aten::trunc"},
    {"aten::special_expit", "aten::sigmoid"},
    {"aten::special_erfc", "aten::erfc"},
    {"aten::special_exp2", "aten::exp2"},
    {"aten::special_logit", "aten::logit"},
    {"aten::special_sinc", "aten::sinc"},
    {"prims::scalar_tensor", "aten::scalar_tensor"},
    {"aten::clip", "aten::clamp"},
    {"aten::clip.Tensor", "aten::clamp.Tensor"},
    {"aten::concat", "aten::cat"},
    {"aten::concatenate", "aten::cat"},
    {"aten::_is_all_true", "aten::all"},
    {"aten::_is_any_true", "aten::any"},
    // Values unspecified in torch: zeros are one choice of them.
    {"aten::new_empty", "aten::new_zeros"},
};

/// max_pool1d(x [N, C, L], k, s, p, d, ceil) is max_pool2d over x as an unbatched [C', H, W]
/// image with a 1-row window.
bool max_pool1d(std::string* op, const Json& inputs, Json* renamed) {
  *renamed = Json::array();
  for (const Json& in : inputs) {
    Json copy = in;
    const Json* a = in.contains("arg") ? &in["arg"] : nullptr;
    const std::string name = in.value("name", "");
    if (name != "self" && a && a->contains("as_ints")) {
      Json v = (*a)["as_ints"];
      if (v.size() > 1) return false;
      const int64_t one = name == "padding" ? 0 : 1;
      const int64_t last = v.empty() ? one : v[0].get<int64_t>();
      copy["arg"] = {{"as_ints", {one, last}}};
      if (name == "stride" && v.empty()) copy["arg"] = {{"as_ints", Json::array()}};
    }
    renamed->push_back(std::move(copy));
  }
  *op = "aten::max_pool2d";
  return true;
}

/// The metadata of the tensor argument `name`, or null.
const Json* tensor_meta(const Json& inputs, const Json& tensor_values, std::string_view name) {
  const Json* a = arg_named(inputs, name);
  if (!a || !a->contains("as_tensor")) return nullptr;
  const Json& t = (*a)["as_tensor"];
  if (!t.contains("name") || !tensor_values.contains(t["name"].get<std::string>())) return nullptr;
  return &tensor_values[t["name"].get<std::string>()];
}

bool tile(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed) {
  const Json* meta = tensor_meta(inputs, tensor_values, "self");
  const Json* dims = arg_named(inputs, "dims");
  if (!meta || !meta->contains("sizes") || !dims || !dims->contains("as_ints")) return false;
  Json reps = (*dims)["as_ints"];
  while (reps.size() < (*meta)["sizes"].size()) reps.insert(reps.begin(), 1);
  *renamed = keep(inputs, "dims");
  renamed->push_back(input("repeats", {{"as_ints", reps}}));
  *op = "aten::repeat";
  return true;
}

bool new_full(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed) {
  const Json* meta = tensor_meta(inputs, tensor_values, "self");
  if (!meta || !meta->contains("dtype")) return false;
  *renamed = keep(inputs, "self");
  const Json* dtype = arg_named(inputs, "dtype");
  if (!dtype || dtype->contains("as_none")) {
    *renamed = keep(*renamed, "dtype");
    renamed->push_back(input("dtype", {{"as_scalar_type", (*meta)["dtype"]}}));
  }
  *op = "aten::full";
  return true;
}

/// The static sizes of tensor argument `name` (empty when unknown or symbolic).
std::vector<int64_t> static_sizes(const Json& inputs, const Json& tensor_values,
                                  std::string_view name) {
  const Json* meta = tensor_meta(inputs, tensor_values, name);
  std::vector<int64_t> out;
  if (!meta || !meta->contains("sizes") || !(*meta)["sizes"].is_array()) return {};
  for (const Json& s : (*meta)["sizes"]) {
    if (!s.is_object() || !s.contains("as_int") || !s["as_int"].is_number_integer()) return {};
    out.push_back(s["as_int"].get<int64_t>());
  }
  return out;
}

/// conv{1,2,3}d.padding(input, weight, bias, stride, padding: "same" | "valid", dilation,
/// groups) -> conv{1,2,3}d with each side's padding: 0 ("valid"), or dilation * (k - 1) / 2
/// ("same") where that is even; an odd total would pad one side more, which is left to the
/// kernel lookup to refuse.
bool conv_padding(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed) {
  const Json* mode = arg_named(inputs, "padding");  // absent: the schema's default, "valid"
  const Json* dilation = arg_named(inputs, "dilation");
  if (mode && !mode->contains("as_string")) return false;
  const std::string m = mode ? (*mode)["as_string"].get<std::string>() : "valid";
  const std::vector<int64_t> w = static_sizes(inputs, tensor_values, "weight");
  if (w.size() < 3 || (m != "same" && m != "valid")) return false;
  std::vector<int64_t> pad;
  for (size_t d = 2; d < w.size(); ++d) {
    int64_t dil = 1;
    if (dilation && dilation->contains("as_ints") && (*dilation)["as_ints"].size() == w.size() - 2)
      dil = (*dilation)["as_ints"][d - 2].get<int64_t>();
    const int64_t total = m == "same" ? dil * (w[d] - 1) : 0;
    if (total % 2) return false;
    pad.push_back(total / 2);
  }
  *renamed = keep(inputs, "padding");
  renamed->push_back(input("padding", {{"as_ints", pad}}));
  op->resize(op->size() - std::string_view(".padding").size());
  return true;
}

/// rrelu(x, lower, upper, training=False) is leaky_relu with the mean slope.
bool rrelu_eval(std::string* op, const Json& inputs, Json* renamed) {
  const Json* training = arg_named(inputs, "training");
  if (training && training->contains("as_bool") && (*training)["as_bool"].get<bool>()) return false;
  const double slope =
      (float_arg(inputs, "lower", 1.0 / 8.0) + float_arg(inputs, "upper", 1.0 / 3.0)) / 2;
  *renamed = Json::array();
  for (const Json& in : inputs)
    if (in.contains("name") && in["name"] == "self") renamed->push_back(in);
  renamed->push_back(input("negative_slope", {{"as_float", slope}}));
  *op = "aten::leaky_relu";
  return true;
}

/// diag(x, diagonal) of a matrix is its diagonal, of a vector a matrix with it on the
/// diagonal: diagonal(x, offset, 0, 1) / diag_embed(x, offset, 0, 1).
bool diag(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed) {
  const Json* meta = tensor_meta(inputs, tensor_values, "self");
  if (!meta || !meta->contains("sizes")) return false;
  const size_t rank = (*meta)["sizes"].size();
  if (rank != 1 && rank != 2) return false;
  *renamed = keep(inputs, "", {{"diagonal", "offset"}});
  renamed->push_back(input("dim1", {{"as_int", 0}}));
  renamed->push_back(input("dim2", {{"as_int", 1}}));
  *op = rank == 2 ? "aten::diagonal" : "aten::diag_embed";
  return true;
}

/// take_along_dim(x, indices, dim) is gather(x, dim, indices) where nothing broadcasts:
/// indices of x's rank and x's sizes but along dim (static shapes).
bool take_along_dim(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed) {
  const std::vector<int64_t> x = static_sizes(inputs, tensor_values, "self");
  const std::vector<int64_t> idx = static_sizes(inputs, tensor_values, "indices");
  const Json* dim = arg_named(inputs, "dim");
  if (x.empty() || x.size() != idx.size() || !dim || !dim->contains("as_int")) return false;
  int64_t d = (*dim)["as_int"].get<int64_t>();
  if (d < 0) d += int64_t(x.size());
  for (size_t k = 0; k < x.size(); ++k)
    if (int64_t(k) != d && x[k] != idx[k]) return false;
  *renamed = keep(inputs, "", {{"indices", "index"}});
  *op = "aten::gather";
  return true;
}

/// linalg_norm where it is a vector norm: no ord (the 2-norm, also Frobenius over two dims),
/// a numeric ord over one dim or of a vector, ord "fro" -> linalg_vector_norm(self, ord, dim,
/// keepdim, dtype). The matrix norms (a numeric ord over two dims, "nuc") need singular
/// values: not renamed, so refused by name.
bool linalg_norm(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed) {
  const Json* ord = arg_named(inputs, "ord");
  const Json* dim = arg_named(inputs, "dim");
  const size_t dims = dim && dim->contains("as_ints") ? (*dim)["as_ints"].size() : 0;
  const bool no_ord = !ord || ord->contains("as_none");
  double p = 2;
  if (*op == "aten::linalg_norm.ord_str") {
    if (!ord || !ord->contains("as_string") || (*ord)["as_string"] != "fro") return false;
  } else if (!no_ord) {
    const std::vector<int64_t> x = static_sizes(inputs, tensor_values, "self");
    if (dims > 1 || (dims == 0 && x.size() != 1)) return false;  // a matrix norm
    p = float_arg(inputs, "ord", 2);
  }
  *renamed = keep(inputs, "ord");
  renamed->push_back(input("ord", {{"as_float", p}}));
  *op = "aten::linalg_vector_norm";
  return true;
}

/// feature_dropout, alpha_dropout and feature_alpha_dropout in eval mode (train=False) are
/// the identity, as dropout is; in training mode each drops differently (whole channels,
/// alpha-scaled), which dropout's kernel does not do: not renamed, so refused by name.
bool eval_dropout(std::string* op, const Json& inputs, Json* renamed) {
  const Json* train = arg_named(inputs, "train");
  if (!train || !train->contains("as_bool") || (*train)["as_bool"].get<bool>()) return false;
  *op = "aten::dropout";
  *renamed = keep(inputs);
  return true;
}

/// unfold(x, dimension, size, step) of a tensor of static sizes: the view that takes windows
/// of `size` every `step` along `dimension` (appended as the last dim), an as_strided of x.
bool unfold(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed) {
  const std::vector<int64_t> x = static_sizes(inputs, tensor_values, "self");
  const Json* dimension = arg_named(inputs, "dimension");
  const Json* size = arg_named(inputs, "size");
  const Json* step = arg_named(inputs, "step");
  if (x.empty() || !dimension || !size || !step || !dimension->contains("as_int") ||
      !size->contains("as_int") || !step->contains("as_int"))
    return false;  // the kernel lookup names what it cannot run
  const int64_t rank = int64_t(x.size()), n = (*size)["as_int"].get<int64_t>(),
                by = (*step)["as_int"].get<int64_t>();
  int64_t d = (*dimension)["as_int"].get<int64_t>();
  if (d < 0) d += rank;
  if (d < 0 || d >= rank || n < 0 || by <= 0 || n > x[size_t(d)]) return false;
  std::vector<int64_t> sizes = x, strides(x.size(), 1);
  for (size_t k = x.size() - 1; k > 0; --k) strides[k - 1] = strides[k] * x[k];
  const int64_t inner = strides[size_t(d)];
  sizes[size_t(d)] = (x[size_t(d)] - n) / by + 1;
  strides[size_t(d)] = inner * by;
  sizes.push_back(n);
  strides.push_back(inner);
  *renamed = Json::array();
  for (const Json& in : inputs)
    if (in.contains("name") && in["name"] == "self") renamed->push_back(in);
  renamed->push_back(input("size", {{"as_ints", sizes}}));
  renamed->push_back(input("stride", {{"as_ints", strides}}));
  *op = "aten::as_strided";
  return true;
}

/// The ops rename_op writes as others whatever their arguments.
constexpr std::string_view kRenamed[] = {"aten::clamp_min",     "aten::clamp_max",
                                         "aten::broadcast_to",  "aten::selu",
                                         "aten::celu",          "aten::fliplr",
                                         "aten::flipud",        "aten::zero",
                                         "aten::sgn",           "aten::max_pool1d",
                                         "aten::tile",          "aten::new_full",
                                         "aten::rrelu",         "aten::diag",
                                         "aten::unfold",        "aten::feature_dropout",
                                         "aten::alpha_dropout", "aten::feature_alpha_dropout"};

}  // namespace

bool has_rename(std::string_view op) {
  for (std::string_view r : kRenamed)
    if (op == r) return true;
  for (const auto& [from, to] : kSpellings)
    if (op == from) return true;
  return false;
}

/// instance_norm(x, w, b, running_mean, running_var, use_input_stats=False, momentum, eps, cudnn)
/// normalises by the running statistics: batch_norm(..., training=False, ...), same arguments.
bool instance_norm_running(std::string* op, const Json& inputs, Json* renamed) {
  const Json* use = arg_named(inputs, "use_input_stats");
  if (!use || !use->contains("as_bool") || (*use)["as_bool"].get<bool>()) return false;
  *renamed = keep(inputs, "", {{"use_input_stats", "training"}});
  *op = "aten::batch_norm";
  return true;
}

bool rename_op(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed) {
  if (*op == "aten::instance_norm") return instance_norm_running(op, inputs, renamed);
  // An op with a kernel of its own stays; the core IR's transposed convolution does not.
  if (*op != "aten::convolution" && kernels::catalogue_has_op(*op, DeviceType::kCpu)) return false;
  if (*op == "aten::tile") return tile(op, inputs, tensor_values, renamed);
  if (*op == "aten::new_full") return new_full(op, inputs, tensor_values, renamed);
  for (const auto& [from, to] : kSpellings)
    if (*op == from) {
      *op = to;
      *renamed = keep(inputs);
      return true;
    }
  if (*op == "aten::max_pool1d") return max_pool1d(op, inputs, renamed);
  if (*op == "aten::conv1d.padding" || *op == "aten::conv2d.padding" ||
      *op == "aten::conv3d.padding")
    return conv_padding(op, inputs, tensor_values, renamed);
  if (*op == "aten::rrelu") return rrelu_eval(op, inputs, renamed);
  if (*op == "aten::unfold") return unfold(op, inputs, tensor_values, renamed);
  if (*op == "aten::feature_dropout" || *op == "aten::alpha_dropout" ||
      *op == "aten::feature_alpha_dropout")
    return eval_dropout(op, inputs, renamed);
  if (*op == "aten::diag") return diag(op, inputs, tensor_values, renamed);
  if (*op == "aten::take_along_dim") return take_along_dim(op, inputs, tensor_values, renamed);
  if (*op == "aten::linalg_norm" || *op == "aten::linalg_norm.ord_str")
    return linalg_norm(op, inputs, tensor_values, renamed);
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
  if (*op == "aten::square") {
    *op = "aten::pow.Tensor_Scalar";
    *renamed = keep(inputs);
    renamed->push_back(input("exponent", {{"as_int", 2}}));
    return true;
  }
  if (*op == "aten::sgn") {  // of a real tensor: sign
    *op = "aten::sign";
    *renamed = keep(inputs);
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
