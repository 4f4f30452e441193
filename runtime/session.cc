#include "runtime/session.h"

#include <omp.h>

#include "ir/model.h"
#include "ir/sym_expr.h"
#include "runtime/executor.h"

namespace tir {
namespace {

IoSpec io_spec(const ir::fb::Method& m, const ir::fb::Value& v) {
  IoSpec s;
  s.name = std::string(ir::str(v.name()));
  s.dtype = ir::to_dtype(v.dtype());
  if (v.sizes()) {
    for (const ir::fb::Dim* d : *v.sizes()) {
      s.shape.push_back(d->expr() ? -1 : d->value());
      s.dims.push_back(d->expr() ? ir::format_sym_expr(*d->expr(), m.symbols())
                                 : std::to_string(d->value()));
    }
  }
  return s;
}

}  // namespace

Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::open(const std::string& model_path,
                                               const std::string& weights_path,
                                               const SessionOptions& options) {
  TIR_ASSIGN_OR_RETURN(auto model, data_source_mmap(model_path));
  TIR_ASSIGN_OR_RETURN(auto weights, WeightSet::open(weights_path, options.weights));
  return create(std::move(model), std::move(weights), options);
}

Result<std::unique_ptr<Session>> Session::create(std::shared_ptr<const DataSource> model,
                                                 std::shared_ptr<const WeightSet> weights,
                                                 const SessionOptions& options) {
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(model->bytes(), model->name()));
  const ir::fb::Method* method = view.method(options.method);
  if (!method)
    return make_error(StatusCode::kNotFound, "'", model->name(), "' has no method '",
                      options.method, "' (it has: ", view.method_names(), ")");
  std::unique_ptr<Session> s(new Session());
  s->model_ = std::move(model);
  s->weights_ = weights;
  s->method_name_ = options.method;
  TIR_ASSIGN_OR_RETURN(s->executor_, MethodExecutor::create(view, *method, std::move(weights),
                                                            options.max_cached_plans));
  if (method->inputs())
    for (int32_t v : *method->inputs())
      s->inputs_.push_back(io_spec(*method, *method->values()->Get(v)));
  if (method->outputs())
    for (int32_t v : *method->outputs())
      s->outputs_.push_back(io_spec(*method, *method->values()->Get(v)));
  return s;
}

int Session::input_index(std::string_view name) const {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].name == name) return static_cast<int>(i);
  return -1;
}

Result<std::span<const Tensor>> Session::run(std::span<const Tensor> inputs) {
  return executor_->run(inputs);
}

size_t Session::arena_bytes() const { return executor_->arena_bytes(); }
size_t Session::num_nodes() const { return executor_->num_nodes(); }
size_t Session::num_cached_plans() const { return executor_->num_cached_plans(); }
uint64_t Session::kernel_calls() const { return executor_->kernel_calls(); }

void set_num_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

}  // namespace tir
