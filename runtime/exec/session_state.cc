#include "runtime/exec/session_state.h"

#include <algorithm>
#include <cstring>

namespace tir {

Result<Tensor*> SessionState::buffer(const std::string& name, const Tensor& initial) {
  auto it = buffers_.find(name);
  if (it == buffers_.end()) it = buffers_.emplace(name, HostTensor::copy_of(initial)).first;
  Tensor& t = it->second.view();
  if (t.dtype != initial.dtype || !std::ranges::equal(t.shape(), initial.shape()))
    return make_error(StatusCode::kInvalidArgument, "state buffer '", name, "' is ",
                      dtype_name(t.dtype), shape_str(t.shape()), ", a method wants it as ",
                      dtype_name(initial.dtype), shape_str(initial.shape()));
  return &t;
}

const Tensor* SessionState::find(const std::string& name) const {
  const auto it = buffers_.find(name);
  return it == buffers_.end() ? nullptr : &it->second.view();
}

Status SessionState::reset(const WeightSet& weights, const ir::fb::Model& model) {
  for (auto& [name, host] : buffers_) {
    TIR_ASSIGN_OR_RETURN(const Tensor initial, state_initial_value(weights, model, name));
    if (initial.nbytes() != host.view().nbytes())
      return make_error(StatusCode::kInvalidArgument, "state buffer '", name, "' is ",
                        host.view().nbytes(), " bytes, its initial value ", initial.nbytes());
    std::memcpy(host.view().data, initial.data, initial.nbytes());
  }
  return ok_status();
}

Result<Tensor> state_initial_value(const WeightSet& weights, const ir::fb::Model& model,
                                   std::string_view name) {
  if (const Tensor* t = weights.find(name)) {
    if (!t->data && t->nbytes() > 0)  // streaming left it compressed
      return make_error(StatusCode::kUnsupported, "buffer '", name, "' of '", weights.path(),
                        "' is compressed: streaming weights needs buffers stored plain");
    return *t;
  }
  if (model.constants())
    for (const ir::fb::Constant* c : *model.constants()) {
      if (ir::str(c->name()) != name) continue;
      std::vector<int64_t> shape;
      if (c->shape()) shape.assign(c->shape()->begin(), c->shape()->end());
      void* data = const_cast<uint8_t*>(c->data() ? c->data()->data() : nullptr);
      return make_tensor(ir::to_dtype(c->dtype()), shape, data);
    }
  return make_error(StatusCode::kNotFound, "buffer '", name, "' is missing from '", weights.path(),
                    "'");
}

}  // namespace tir
