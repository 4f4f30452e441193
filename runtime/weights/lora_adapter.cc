#include "runtime/weights/lora_adapter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "core/tensor.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/peft_config.h"
#include "runtime/weights/safetensors.h"
#include "runtime/weights/safetensors_writer.h"

namespace tir {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "base_model.model.";
constexpr std::string_view kLoraA = ".lora_A.weight", kLoraB = ".lora_B.weight";
constexpr std::string_view kBaseLayer = ".base_layer.";

/// The canonical name of the base weight `module` + "." + `leaf` stands for: that name, else
/// the one weight ending with "." + it. Empty with `error` set when none or several match.
std::string resolve(const WeightSet& base, const std::string& name, std::string* error) {
  if (const int32_t slot = base.slot(name); slot >= 0) return base.names()[size_t(slot)];
  const std::string dotted = "." + name;
  std::string found;
  int matches = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    bool hit = base.names()[i].ends_with(dotted);
    for (const std::string& alias : base.aliases(i)) hit = hit || alias.ends_with(dotted);
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

/// lora_A and lora_B of one module (either may be missing in a broken file).
struct LoraPair {
  const SafetensorsEntry* a = nullptr;
  const SafetensorsEntry* b = nullptr;
};

/// The update of `module` from its A and B entries, checked against the config's rank for it
/// and the base weight.
Result<LoraUpdate> make_update(const std::string& file, const std::string& module,
                               const LoraPair& ab, const WeightSet& base, const PeftTarget& t) {
  const SafetensorsEntry *a = ab.a, *b = ab.b;
  if (!a || !b)
    return make_error(StatusCode::kInvalidArgument, "adapter '", file, "': module '", module,
                      "' has ", a ? "lora_A" : "lora_B", " but not ", a ? "lora_B" : "lora_A");
  for (const SafetensorsEntry* x : {a, b}) {
    if (x->dtype != DType::kFloat32 || x->shape.size() != 2)
      return make_error(StatusCode::kUnsupported, "adapter '", file, "': tensor '", x->name,
                        "' must be a 2-D float32 matrix (is ", dtype_name(x->dtype), " ",
                        shape_str(x->shape), ")");
  }
  if (a->shape[0] != t.rank || b->shape[1] != t.rank)
    return make_error(StatusCode::kInvalidArgument, "adapter '", file, "': tensors '", a->name,
                      "' ", shape_str(a->shape), " and '", b->name, "' ", shape_str(b->shape),
                      " do not have the rank ", t.rank,
                      " that adapter_config.json gives the module (r, rank_pattern)");
  LoraUpdate u;
  u.module = module;
  std::string error;
  u.weight = resolve(base, module + ".weight", &error);
  if (u.weight.empty())
    return make_error(StatusCode::kNotFound, "adapter '", file, "': target module '", module,
                      "' (tensor '", a->name, "') ", error);
  const Tensor& w = *base.find(u.weight);
  u.rank = t.rank;
  u.in_features = a->shape[1];
  u.out_features = b->shape[0];
  const bool fits_linear = w.rank == 2 && w.size(0) == u.out_features && w.size(1) == u.in_features;
  const bool fits_conv1d = w.rank == 2 && w.size(0) == u.in_features && w.size(1) == u.out_features;
  if (!fits_linear && !fits_conv1d)
    return make_error(StatusCode::kInvalidArgument, "adapter '", file, "': tensor '", b->name, "' ",
                      shape_str(b->shape), " with lora_A ", shape_str(a->shape),
                      " does not fit weight '", u.weight, "' ", shape_str(w.shape()));
  const float scale = float(t.scale);
  u.a = float_copy(*a);
  u.bt = HostTensor(DType::kFloat32, std::vector<int64_t>{u.rank, u.out_features});
  const float* src = reinterpret_cast<const float*>(b->bytes.data());
  std::vector<float> row(size_t(u.rank));
  for (int64_t n = 0; n < u.out_features; ++n) {
    std::memcpy(row.data(), src + n * u.rank, row.size() * sizeof(float));  // maybe unaligned
    for (int64_t j = 0; j < u.rank; ++j)
      u.bt.data<float>()[j * u.out_features + n] = scale * row[j];
  }
  for (const HostTensor* m : {&u.a, &u.bt}) {
    const float* v = m->data<const float>();
    if (!std::all_of(v, v + m->view().numel(), [](float x) { return std::isfinite(x); }))
      return make_error(StatusCode::kInvalidArgument, "adapter '", file, "': tensor '",
                        m == &u.a ? a->name : b->name, "' holds a value that is not finite",
                        m == &u.a ? "" : " once scaled by lora_alpha / r");
  }
  return u;
}

/// The part of the model's weight names before PEFT's module keys: "" when the model was
/// exported as PEFT wrapped it, "model." when inside a wrapper (found from `module`, a module
/// of the file that resolve() binds).
std::string key_prefix(const WeightSet& base, const std::string& module) {
  const std::string leaf = module + ".weight";
  for (size_t i = 0; i < base.size(); ++i) {
    std::vector<std::string> names = base.aliases(i);
    names.push_back(base.names()[i]);
    for (const std::string& n : names)
      if (n == leaf || n.ends_with("." + leaf)) return n.substr(0, n.size() - leaf.size());
  }
  return {};
}

/// Refuses a module of the model that the config adapts but the file holds no update for
/// (PEFT would warn and leave it as initialised). Module keys: every dotted prefix of the
/// model's weight names, less `prefix`.
Status check_coverage(const PeftLoraConfig& config, const WeightSet& base,
                      const std::string& prefix, const std::map<std::string, LoraPair>& modules,
                      const std::string& file) {
  std::set<std::string> keys;
  for (size_t i = 0; i < base.size(); ++i) {
    std::vector<std::string> names = base.aliases(i);
    names.push_back(base.names()[i]);
    for (const std::string& n : names) {
      if (!n.starts_with(prefix)) continue;
      const std::string_view rest = std::string_view(n).substr(prefix.size());
      for (size_t dot = rest.find('.'); dot != std::string_view::npos;
           dot = rest.find('.', dot + 1))
        keys.emplace(rest.substr(0, dot));
    }
  }
  for (const std::string& key : keys) {
    if (modules.count(key)) continue;
    TIR_ASSIGN_OR_RETURN(const PeftTarget t, peft_config_target(config, key));
    if (t.adapted)
      return make_error(
          StatusCode::kInvalidArgument, "adapter '", file, "': module '", key,
          "' is adapted by adapter_config.json (target_modules) but the file holds no "
          "lora_A/lora_B for it");
  }
  return ok_status();
}

/// Whether `name` (a tensor that is not a LoRA matrix) is one PEFT saves whole: a parameter of a
/// module in modules_to_save, or a bias trained under `bias`.
bool saved_whole(const PeftLoraConfig& config, std::string_view name,
                 const std::map<std::string, LoraPair>& modules) {
  const size_t dot = name.rfind('.');
  const std::string module(name.substr(0, dot == std::string_view::npos ? 0 : dot));
  if (peft_config_saves(config, module)) return true;
  if (!name.ends_with(".bias")) return false;
  return config.bias == "all" || (config.bias == "lora_only" && modules.count(module));
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
  TIR_ASSIGN_OR_RETURN(const PeftLoraConfig config,
                       peft_config_read((folder / "adapter_config.json").string()));
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(tensors_file));
  TIR_ASSIGN_OR_RETURN(SafetensorsFile file, safetensors_parse(source->bytes(), tensors_file));
  std::shared_ptr<LoraAdapter> adapter(new LoraAdapter());
  adapter->path_ = path;
  std::map<std::string, LoraPair> modules;  // PEFT module key -> its matrices
  std::vector<std::pair<std::string, const SafetensorsEntry*>> others;  // model name, entry
  for (const SafetensorsEntry& e : file.entries) {
    std::string_view name = e.name;
    if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
    if (name.ends_with(kLoraA) || name.ends_with(kLoraB)) {
      LoraPair& slot = modules[std::string(name.substr(0, name.size() - kLoraA.size()))];
      (name.ends_with(kLoraA) ? slot.a : slot.b) = &e;
    } else if (name.find("lora_") != std::string_view::npos) {
      return make_error(StatusCode::kUnsupported, "adapter '", tensors_file, "': tensor '", e.name,
                        "' is not supported (only lora_A/lora_B of Linear and Conv1D)");
    } else {
      others.emplace_back(std::string(name), &e);
      // A LoRA layer's own parameters are saved under its base_layer (bias="lora_only"/"all").
      if (const size_t at = name.rfind(kBaseLayer); at != std::string_view::npos)
        others.back().first.erase(at, kBaseLayer.size() - 1);
    }
  }
  std::vector<SafetensorsEntry> replacements;
  for (const auto& [name, e] : others) {
    if (!saved_whole(config, name, modules))
      return make_error(StatusCode::kInvalidArgument, "adapter '", tensors_file, "': tensor '",
                        e->name, "' is neither a LoRA matrix nor of a module in modules_to_save");
    std::string error;
    SafetensorsEntry r = *e;
    r.name = resolve(base, name, &error);
    if (r.name.empty())
      return make_error(StatusCode::kNotFound, "adapter '", tensors_file, "': tensor '", e->name,
                        "' (modules_to_save) ", error);
    replacements.push_back(std::move(r));
  }
  for (const auto& [module, ab] : modules) {
    TIR_ASSIGN_OR_RETURN(const PeftTarget t, peft_config_target(config, module));
    if (!t.adapted)
      return make_error(StatusCode::kInvalidArgument, "adapter '", tensors_file, "': tensor '",
                        (ab.a ? ab.a : ab.b)->name, "' is for module '", module,
                        "', which adapter_config.json does not adapt (", t.why_not, ")");
    TIR_ASSIGN_OR_RETURN(LoraUpdate u, make_update(tensors_file, module, ab, base, t));
    adapter->bytes_ += u.a.view().nbytes() + u.bt.view().nbytes();
    adapter->updates_.push_back(std::move(u));
  }
  TIR_RETURN_IF_ERROR(check_coverage(
      config, base, modules.empty() ? std::string() : key_prefix(base, modules.begin()->first),
      modules, tensors_file));
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
