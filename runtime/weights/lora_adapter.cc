#include "runtime/weights/lora_adapter.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "runtime/weights/data_loader.h"
#include "runtime/weights/safetensors.h"
#include "runtime/weights/safetensors_writer.h"

namespace tir {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kPrefix = "base_model.model.";
constexpr std::string_view kLoraA = ".lora_A.weight", kLoraB = ".lora_B.weight";

struct Config {
  double alpha = 8;
  bool rslora = false;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string shape_str(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// A field that is set (not null, false, 0 or empty).
bool is_set(const json& config, const char* field) {
  const auto it = config.find(field);
  if (it == config.end() || it->is_null()) return false;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_number()) return it->get<double>() != 0;
  return !it->empty();
}

Result<Config> read_config(const std::string& file) {
  TIR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file(file));
  const json c = json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (c.is_discarded() || !c.is_object())
    return make_error(StatusCode::kInvalidArgument, "adapter config '", file, "' is not JSON");
  const auto type = c.find("peft_type");
  if (type == c.end() || !type->is_string() || type->get<std::string>() != "LORA")
    return make_error(StatusCode::kUnsupported, "adapter config '", file, "': peft_type ",
                      type == c.end() ? std::string("missing") : type->dump(),
                      " is not supported (only LORA)");
  for (const char* field : {"use_dora", "lora_bias", "alpha_pattern", "layer_replication",
                            "target_parameters", "trainable_token_indices", "use_qalora"})
    if (is_set(c, field))
      return make_error(StatusCode::kUnsupported, "adapter config '", file, "': ", field,
                        " is not supported");
  Config out;
  const auto alpha = c.find("lora_alpha");
  if (alpha == c.end() || !alpha->is_number())
    return make_error(StatusCode::kInvalidArgument, "adapter config '", file,
                      "': lora_alpha is missing or not a number");
  out.alpha = alpha->get<double>();
  out.rslora = is_set(c, "use_rslora");
  return out;
}

/// The canonical name of the base weight `module` + "." + `leaf` stands for: that name, else
/// the one weight ending with "." + it. Empty with `error` set when none or several match.
std::string resolve(const WeightSet& base, const std::string& name, std::string* error) {
  if (const int32_t slot = base.slot(name); slot >= 0) return base.names()[size_t(slot)];
  const std::string dotted = "." + name;
  std::string found;
  int matches = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    bool hit = ends_with(base.names()[i], dotted);
    for (const std::string& alias : base.aliases(i)) hit = hit || ends_with(alias, dotted);
    if (hit && ++matches == 1) found = base.names()[i];
  }
  if (matches == 1) return found;
  *error = matches == 0 ? "names no weight of the model"
                        : "matches " + std::to_string(matches) + " weights of the model";
  return {};
}

HostTensor float_copy(const SafetensorsEntry& e) {
  HostTensor t(DType::kFloat32, e.shape);
  std::memcpy(t.view().data, e.bytes.data(), e.bytes.size());
  return t;
}

/// The update of `module` from its A and B entries, checked against the base weight.
Result<LoraUpdate> make_update(const std::string& file, const std::string& module,
                               const SafetensorsEntry* a, const SafetensorsEntry* b,
                               const WeightSet& base, const Config& config) {
  if (!a || !b)
    return make_error(StatusCode::kInvalidArgument, "adapter '", file, "': module '", module,
                      "' has ", a ? "lora_A" : "lora_B", " but not ", a ? "lora_B" : "lora_A");
  for (const SafetensorsEntry* x : {a, b}) {
    if (x->dtype != DType::kFloat32 || x->shape.size() != 2)
      return make_error(StatusCode::kUnsupported, "adapter '", file, "': tensor '", x->name,
                        "' must be a 2-D float32 matrix (is ", dtype_name(x->dtype), " ",
                        shape_str(x->shape), ")");
  }
  LoraUpdate u;
  u.module = module;
  std::string error;
  u.weight = resolve(base, module + ".weight", &error);
  if (u.weight.empty())
    return make_error(StatusCode::kNotFound, "adapter '", file, "': target module '", module,
                      "' (tensor '", a->name, "') ", error);
  const Tensor& w = *base.find(u.weight);
  u.rank = a->shape[0];
  u.in_features = a->shape[1];
  u.out_features = b->shape[0];
  const bool fits_linear = w.rank == 2 && w.size(0) == u.out_features && w.size(1) == u.in_features;
  const bool fits_conv1d = w.rank == 2 && w.size(0) == u.in_features && w.size(1) == u.out_features;
  if (b->shape[1] != u.rank || (!fits_linear && !fits_conv1d))
    return make_error(StatusCode::kInvalidArgument, "adapter '", file, "': tensor '", b->name, "' ",
                      shape_str(b->shape), " with lora_A ", shape_str(a->shape),
                      " does not fit weight '", u.weight, "' ", shape_str(w.shape()));
  const double r = double(u.rank);
  const float scale = float(config.alpha / (config.rslora ? std::sqrt(r) : r));
  u.a = float_copy(*a);
  u.bt = HostTensor(DType::kFloat32, std::vector<int64_t>{u.rank, u.out_features});
  const float* src = reinterpret_cast<const float*>(b->bytes.data());
  std::vector<float> row(size_t(u.rank));
  for (int64_t n = 0; n < u.out_features; ++n) {
    std::memcpy(row.data(), src + n * u.rank, row.size() * sizeof(float));  // maybe unaligned
    for (int64_t j = 0; j < u.rank; ++j)
      u.bt.data<float>()[j * u.out_features + n] = scale * row[j];
  }
  return u;
}

}  // namespace

Result<std::shared_ptr<const LoraAdapter>> LoraAdapter::open(const std::string& path,
                                                             const WeightSet& base) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return make_error(StatusCode::kNotFound, "adapter '", path, "': no such file or directory");
  const bool dir = fs::is_directory(path, ec);
  const fs::path folder = dir ? fs::path(path) : fs::path(path).parent_path();
  const std::string tensors_file = dir ? (folder / "adapter_model.safetensors").string() : path;
  TIR_ASSIGN_OR_RETURN(const Config config, read_config((folder / "adapter_config.json").string()));
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(tensors_file));
  TIR_ASSIGN_OR_RETURN(SafetensorsFile file, safetensors_parse(source->bytes(), tensors_file));
  std::shared_ptr<LoraAdapter> adapter(new LoraAdapter());
  adapter->path_ = path;
  std::map<std::string, std::pair<const SafetensorsEntry*, const SafetensorsEntry*>> modules;
  std::vector<SafetensorsEntry> replacements;
  for (const SafetensorsEntry& e : file.entries) {
    std::string_view name = e.name;
    if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
    if (ends_with(name, kLoraA) || ends_with(name, kLoraB)) {
      const std::string module(name.substr(0, name.size() - kLoraA.size()));
      auto& slot = modules[module];
      (ends_with(name, kLoraA) ? slot.first : slot.second) = &e;
      continue;
    }
    if (name.find("lora_") != std::string_view::npos)
      return make_error(StatusCode::kUnsupported, "adapter '", tensors_file, "': tensor '", e.name,
                        "' is not supported (only lora_A/lora_B of Linear and Conv1D)");
    std::string error;
    SafetensorsEntry r = e;
    r.name = resolve(base, std::string(name), &error);
    if (r.name.empty())
      return make_error(StatusCode::kNotFound, "adapter '", tensors_file, "': tensor '", e.name,
                        "' (modules_to_save) ", error);
    replacements.push_back(std::move(r));
  }
  for (const auto& [module, ab] : modules) {
    TIR_ASSIGN_OR_RETURN(LoraUpdate u,
                         make_update(tensors_file, module, ab.first, ab.second, base, config));
    adapter->bytes_ += u.a.view().nbytes() + u.bt.view().nbytes();
    adapter->updates_.push_back(std::move(u));
  }
  if (!replacements.empty()) {
    TIR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, safetensors_serialize(replacements));
    adapter->bytes_ += bytes.size();
    TIR_ASSIGN_OR_RETURN(adapter->replacements_,
                         WeightSet::from_source(data_source_from_buffer(
                             std::move(bytes), tensors_file + " (modules_to_save)")));
  }
  if (adapter->updates_.empty() && !adapter->replacements_)
    return make_error(StatusCode::kInvalidArgument, "adapter '", tensors_file,
                      "' holds no lora_A/lora_B tensors");
  return std::shared_ptr<const LoraAdapter>(std::move(adapter));
}

}  // namespace tir
