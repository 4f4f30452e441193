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

Status SessionState::reset(const WeightSet& weights) {
  for (auto& [name, host] : buffers_) {
    const Tensor* w = weights.find(name);
    if (!w || w->nbytes() != host.view().nbytes())
      return make_error(StatusCode::kNotFound, "state buffer '", name, "' is not in '",
                        weights.path(), "'");
    std::memcpy(host.view().data, w->data, w->nbytes());
  }
  return ok_status();
}

}  // namespace tir
