#include "tooling/run/pipeline_run.h"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "core/serial_calls.h"
#include "ir/model.h"

namespace tir::tools {
// Batch and BoundedQueue are members of ThreadPipeline::State, a type with external linkage,
// so they are not in the anonymous namespace either.
namespace pipeline_detail {

/// A micro-batch between stages: stage 0 reads the caller's tensors (`borrowed`), later
/// stages the previous one's outputs; a failed micro-batch carries the error to the end.
struct Batch {
  size_t index = 0;
  const std::vector<HostTensor>* borrowed = nullptr;
  std::vector<HostTensor> tensors;
  Status status = ok_status();
};

/// A bounded FIFO between two stages. close() wakes every waiter: push fails, pop drains.
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity) {}
  /// Blocks while full; false once closed.
  bool push(Batch b) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(b));
    not_empty_.notify_one();
    return true;
  }
  std::optional<Batch> pop() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    Batch b = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return b;
  }
  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<Batch> items_;
  size_t capacity_;
  bool closed_ = false;
};

}  // namespace pipeline_detail

using pipeline_detail::Batch;
using pipeline_detail::BoundedQueue;

namespace {

using Clock = std::chrono::steady_clock;

void copy_strided(const Tensor& t, int dim, const uint8_t* src, uint8_t*& dst, size_t elem) {
  if (dim == t.rank) {
    std::memcpy(dst, src, elem);
    dst += elem;
    return;
  }
  for (int64_t i = 0; i < t.sizes[dim]; ++i)
    copy_strided(t, dim + 1, src + i * t.strides[dim] * int64_t(elem), dst, elem);
}

}  // namespace

HostTensor host_copy(const Tensor& t) {
  if (t.is_contiguous()) return HostTensor::copy_of(t);
  HostTensor h(t.dtype, t.shape());
  uint8_t* dst = static_cast<uint8_t*>(h.view().data);
  if (t.numel() > 0)
    copy_strided(t, 0, static_cast<const uint8_t*>(t.data), dst, dtype_size(t.dtype));
  return h;
}

Result<int> staged_model_count(std::span<const uint8_t> bytes, const std::string& file) {
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(bytes, file));
  int k = 0;
  while (view.method("stage" + std::to_string(k))) ++k;
  return k;
}

Result<StagedModel> staged_model_open(std::shared_ptr<const DataSource> model,
                                      std::shared_ptr<const WeightSet> weights,
                                      const SessionOptions& options) {
  TIR_ASSIGN_OR_RETURN(int count, staged_model_count(model->bytes(), model->name()));
  if (count == 0)
    return make_error(StatusCode::kInvalidArgument, "model '", model->name(),
                      "' has no pipeline stages (methods stage0, stage1, ...): cut it with "
                      "`tirc partition` first");
  StagedModel staged;
  for (int k = 0; k < count; ++k) {
    SessionOptions so = options;
    so.method = "stage" + std::to_string(k);
    TIR_ASSIGN_OR_RETURN(auto s, Session::create(model, weights, so));
    staged.stages.push_back(std::move(s));
  }
  return staged;
}

Result<std::vector<std::vector<HostTensor>>> split_microbatches(std::span<const HostTensor> inputs,
                                                                std::span<const IoSpec> specs,
                                                                int m) {
  if (m < 1) return make_error(StatusCode::kInvalidArgument, "--microbatches must be >= 1");
  std::vector<std::vector<HostTensor>> parts(m);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& t = inputs[k].view();
    const std::string name = k < specs.size() ? specs[k].name : std::to_string(k);
    if (m == 1) {
      parts[0].push_back(HostTensor::copy_of(t));
      continue;
    }
    if (t.rank == 0 || t.sizes[0] % m != 0)
      return make_error(StatusCode::kInvalidArgument, "input '", name,
                        "' (dim 0 = ", t.rank ? t.sizes[0] : 0, ") does not split into ", m,
                        " micro-batches");
    if (k < specs.size() && !specs[k].shape.empty() && specs[k].shape[0] >= 0)
      return make_error(StatusCode::kInvalidArgument, "input '", name, "' has a static batch dim (",
                        specs[k].shape[0],
                        ") in method 'stage0': micro-batches need a program exported with a "
                        "dynamic dim 0");
    const int64_t rows = t.sizes[0] / m;
    const size_t row_bytes = t.numel() ? t.nbytes() / size_t(t.sizes[0]) : 0;
    for (int p = 0; p < m; ++p) {
      std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
      shape[0] = rows;
      HostTensor h(t.dtype, shape);
      if (row_bytes)
        std::memcpy(h.view().data, static_cast<const uint8_t*>(t.data) + p * rows * row_bytes,
                    rows * row_bytes);
      parts[p].push_back(std::move(h));
    }
  }
  return parts;
}

Result<std::vector<HostTensor>> concat_microbatches(
    const std::vector<std::vector<HostTensor>>& parts) {
  if (parts.size() == 1) {
    std::vector<HostTensor> out;
    for (const HostTensor& h : parts[0]) out.push_back(HostTensor::copy_of(h.view()));
    return out;
  }
  std::vector<HostTensor> out;
  for (size_t k = 0; k < parts[0].size(); ++k) {
    const Tensor& first = parts[0][k].view();
    if (first.rank == 0)
      return make_error(StatusCode::kInvalidArgument, "output ", k,
                        " is a scalar: micro-batch outputs cannot be concatenated");
    std::vector<int64_t> shape(first.shape().begin(), first.shape().end());
    shape[0] = 0;
    for (const auto& p : parts) shape[0] += p[k].view().sizes[0];
    HostTensor h(first.dtype, shape);
    uint8_t* dst = static_cast<uint8_t*>(h.view().data);
    for (const auto& p : parts) {
      std::memcpy(dst, p[k].view().data, p[k].view().nbytes());
      dst += p[k].view().nbytes();
    }
    out.push_back(std::move(h));
  }
  return out;
}

struct ThreadPipeline::State {
  StagedModel model;
  std::vector<std::unique_ptr<BoundedQueue>> queues;  // queues[k] into stage k; [n]: results
  std::vector<double> busy_ms;                        // written by stage k's worker only
  std::vector<std::thread> workers;
  SerialCalls calls;  // run(): one at a time
};

ThreadPipeline::ThreadPipeline(StagedModel model, size_t queue_depth, int threads_per_stage)
    : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.model = std::move(model);
  const size_t n = st.model.stages.size();
  for (size_t k = 0; k < n; ++k) st.queues.push_back(std::make_unique<BoundedQueue>(queue_depth));
  st.queues.push_back(std::make_unique<BoundedQueue>(SIZE_MAX));  // results: never blocks
  st.busy_ms.assign(n, 0);
  for (size_t k = 0; k < n; ++k)
    st.workers.emplace_back([&st, k, threads_per_stage] {
      set_num_threads(threads_per_stage);
      Session& session = *st.model.stages[k];
      while (std::optional<Batch> in = st.queues[k]->pop()) {
        Batch out;
        out.index = in->index;
        out.status = in->status;
        if (out.status.ok()) {
          std::vector<Tensor> views;
          for (const HostTensor& h : in->borrowed ? *in->borrowed : in->tensors)
            views.push_back(h.view());
          const auto start = Clock::now();
          auto outputs = session.run(views);
          if (outputs.ok())
            for (const Tensor& t : *outputs) out.tensors.push_back(host_copy(t));
          else
            out.status = make_error(outputs.status().code(), "pipeline stage ", k, ": ",
                                    outputs.status().message());
          st.busy_ms[k] += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        }
        if (!st.queues[k + 1]->push(std::move(out))) return;
      }
    });
}

ThreadPipeline::~ThreadPipeline() {
  for (auto& q : state_->queues) q->close();
  for (std::thread& t : state_->workers) t.join();
}

size_t ThreadPipeline::num_stages() const { return state_->model.stages.size(); }
const Session& ThreadPipeline::stage(size_t k) const { return *state_->model.stages[k]; }

Result<std::vector<std::vector<HostTensor>>> ThreadPipeline::run(
    const std::vector<std::vector<HostTensor>>& microbatches, PipelineStats* out_stats) {
  State& st = *state_;
  TIR_ASSIGN_OR_RETURN(SerialCalls::Turn turn, st.calls.enter("pipeline run"));
  const size_t n = st.model.stages.size(), m = microbatches.size();
  // The results queue never blocks, so feeding all micro-batches first cannot deadlock.
  const std::vector<double> busy_before = st.busy_ms;
  const auto t0 = Clock::now();
  for (size_t b = 0; b < m; ++b) {
    Batch in;
    in.index = b;
    in.borrowed = &microbatches[b];
    if (!st.queues[0]->push(std::move(in)))
      return make_error(StatusCode::kInternal, "pipeline stopped");
  }
  std::vector<std::vector<HostTensor>> results(m);
  Status first_error = ok_status();
  for (size_t b = 0; b < m; ++b) {
    std::optional<Batch> out = st.queues[n]->pop();
    if (!out) return make_error(StatusCode::kInternal, "pipeline stopped");
    if (!out->status.ok() && first_error.ok()) first_error = out->status;
    results[out->index] = std::move(out->tensors);
  }
  if (!first_error.ok()) return first_error;
  if (out_stats) {
    out_stats->wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    out_stats->busy_ms.resize(n);
    for (size_t k = 0; k < n; ++k) out_stats->busy_ms[k] = st.busy_ms[k] - busy_before[k];
  }
  return results;
}

}  // namespace tir::tools
