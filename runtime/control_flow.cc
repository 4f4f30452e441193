#include "runtime/control_flow.h"

#include <cstring>
#include <vector>

#include "runtime/executor.h"
#include "runtime/shape_binding.h"

namespace tir {
namespace {

namespace fb = ir::fb;

class SubgraphExecutors final : public kernels::SubgraphRunner {
 public:
  explicit SubgraphExecutors(const SubgraphContext& c)
      : model_(*c.model),
        method_(*c.method),
        weights_(c.weights),
        symbols_(c.symbols.begin(), c.symbols.end()),
        kernel_calls_(c.kernel_calls),
        state_(c.state),
        fuse_(c.fuse),
        precision_(c.precision),
        executors_(c.method->subgraphs() ? c.method->subgraphs()->size() : 0) {}

  Status prepare(int64_t index, std::span<const Tensor> inputs,
                 std::span<Tensor> out_outputs) override {
    if (index < 0 || size_t(index) >= executors_.size())
      return make_error(StatusCode::kInternal, "method '", ir::str(method_.name()),
                        "' has no subgraph ", index);
    const fb::Method& sub = *method_.subgraphs()->Get(index);
    std::unique_ptr<MethodExecutor>& ex = executors_[index];
    if (!ex) {
      TIR_ASSIGN_OR_RETURN(
          ex, MethodExecutor::create(model_, sub, *weights_, 1, state_, fuse_, precision_));
    }
    TIR_RETURN_IF_ERROR(ex->prepare_subgraph(symbols_, inputs));
    const size_t nout = sub.outputs() ? sub.outputs()->size() : 0;
    if (nout != out_outputs.size())
      return make_error(StatusCode::kInternal, "subgraph '", ir::str(sub.name()), "' returns ",
                        nout, " values, its node has ", out_outputs.size(), " outputs");
    for (size_t k = 0; k < nout; ++k) {
      const fb::Value& v = *sub.values()->Get(sub.outputs()->Get(k));
      TIR_ASSIGN_OR_RETURN(auto sizes, value_sizes(v, symbols_));
      out_outputs[k] = make_tensor(ir::to_dtype(v.dtype()), sizes, nullptr);
    }
    return ok_status();
  }

  Status run(int64_t index, std::span<const Tensor> inputs, std::span<Tensor> outputs) override {
    MethodExecutor& ex = *executors_[index];  // prepared, so it exists
    if (&ex.weights() != weights_->get()) TIR_RETURN_IF_ERROR(ex.rebind_weights(*weights_));
    const uint64_t before = ex.kernel_calls();
    auto results = ex.run_subgraph(symbols_, inputs);
    *kernel_calls_ += ex.kernel_calls() - before;
    if (!results.ok()) return results.status();
    for (size_t k = 0; k < outputs.size(); ++k)
      std::memcpy(outputs[k].data, (*results)[k].data, outputs[k].nbytes());
    return ok_status();
  }

 private:
  ir::ModelView model_;
  const fb::Method& method_;
  const std::shared_ptr<const WeightSet>* weights_;
  std::vector<int64_t> symbols_;
  uint64_t* kernel_calls_;
  SessionState* state_;
  bool fuse_ = true;
  Precision precision_ = Precision::kFloat32;
  std::vector<std::unique_ptr<MethodExecutor>> executors_;  // per subgraph, once prepared
};

}  // namespace

std::unique_ptr<kernels::SubgraphRunner> make_subgraph_runner(const SubgraphContext& context) {
  return std::make_unique<SubgraphExecutors>(context);
}

}  // namespace tir
