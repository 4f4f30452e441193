#include "tooling/mpi/mpi_pipeline.h"

#include <mpi.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <thread>

#include "runtime/weights/npy.h"
#include "tooling/run/pipeline_run.h"

namespace tir::tools {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kHeaderTag = 1, kDataTag = 2;
constexpr int kHeaderFields = 2 + kMaxRank;  // dtype, rank, sizes

/// Polls until `done()` or `timeout_s` passes (sleeping briefly between polls, so waiting
/// leaves the cores to the compute threads of ranks sharing the machine).
template <typename Done>
Status wait_for(Done done, double timeout_s, const std::string& what) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (!done()) {
    if (Clock::now() > deadline)
      return make_error(StatusCode::kIo, "no progress for ", timeout_s, " s ", what,
                        " (it died or hangs)");
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return ok_status();
}

/// Receives one message from `source` with `tag` into a buffer sized by a probe.
Result<std::vector<uint8_t>> receive(int source, int tag, double timeout_s) {
  MPI_Status st;
  int flag = 0;
  TIR_RETURN_IF_ERROR(wait_for(
      [&] {
        MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
        return flag != 0;
      },
      timeout_s, "waiting for rank " + std::to_string(source)));
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  std::vector<uint8_t> buf(size_t(std::max(count, 0)));
  MPI_Recv(buf.data(), count, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return buf;
}

Result<std::vector<HostTensor>> receive_batch(int source, double timeout_s) {
  TIR_ASSIGN_OR_RETURN(std::vector<uint8_t> raw, receive(source, kHeaderTag, timeout_s));
  const size_t fields = raw.size() / sizeof(int64_t);
  std::vector<int64_t> header(fields);
  std::memcpy(header.data(), raw.data(), fields * sizeof(int64_t));
  if (fields == 0 || header[0] < 0 || fields != 1 + size_t(header[0]) * kHeaderFields)
    return make_error(StatusCode::kCorrupt, "malformed header from rank ", source);
  std::vector<HostTensor> batch;
  for (int64_t t = 0; t < header[0]; ++t) {
    const int64_t* h = &header[1 + t * kHeaderFields];
    if (h[1] < 0 || h[1] > kMaxRank)
      return make_error(StatusCode::kCorrupt, "malformed header from rank ", source);
    HostTensor tensor(static_cast<DType>(h[0]), std::span<const int64_t>(h + 2, size_t(h[1])));
    TIR_ASSIGN_OR_RETURN(std::vector<uint8_t> data, receive(source, kDataTag, timeout_s));
    if (data.size() != tensor.view().nbytes())
      return make_error(StatusCode::kCorrupt, "rank ", source, " sent ", data.size(),
                        " bytes for a tensor of ", tensor.view().nbytes());
    std::memcpy(tensor.view().data, data.data(), data.size());
    batch.push_back(std::move(tensor));
  }
  return batch;
}

/// A micro-batch on its way to the next rank: the buffers stay alive until the sends end.
struct PendingSend {
  std::vector<int64_t> header;
  std::vector<HostTensor> tensors;
  std::vector<MPI_Request> requests;
};

Status send_batch(int dest, std::vector<HostTensor> tensors, std::vector<PendingSend>* pending) {
  PendingSend p;
  p.header.push_back(int64_t(tensors.size()));
  for (const HostTensor& t : tensors) {
    if (t.view().nbytes() > size_t(INT32_MAX))
      return make_error(StatusCode::kUnsupported, "a boundary tensor of ", t.view().nbytes(),
                        " bytes exceeds one MPI message (2 GiB)");
    p.header.push_back(int64_t(t.view().dtype));
    p.header.push_back(t.view().rank);
    for (int d = 0; d < kMaxRank; ++d)
      p.header.push_back(d < t.view().rank ? t.view().sizes[d] : 0);
  }
  p.tensors = std::move(tensors);
  pending->push_back(std::move(p));
  PendingSend& q = pending->back();
  q.requests.resize(1 + q.tensors.size());
  MPI_Isend(q.header.data(), int(q.header.size() * sizeof(int64_t)), MPI_BYTE, dest, kHeaderTag,
            MPI_COMM_WORLD, &q.requests[0]);
  for (size_t t = 0; t < q.tensors.size(); ++t)
    MPI_Isend(q.tensors[t].view().data, int(q.tensors[t].view().nbytes()), MPI_BYTE, dest, kDataTag,
              MPI_COMM_WORLD, &q.requests[1 + t]);
  return ok_status();
}

/// Waits for every pending send (at most `timeout_s`), freeing their buffers.
Status drain_sends(std::vector<PendingSend>* pending, int dest, double timeout_s) {
  for (PendingSend& p : *pending)
    TIR_RETURN_IF_ERROR(wait_for(
        [&] {
          int flag = 0;
          MPI_Testall(int(p.requests.size()), p.requests.data(), &flag, MPI_STATUSES_IGNORE);
          return flag != 0;
        },
        timeout_s, "sending to rank " + std::to_string(dest)));
  pending->clear();
  return ok_status();
}

/// Drops the pending sends that have completed.
void reap_sends(std::vector<PendingSend>* pending) {
  std::erase_if(*pending, [](PendingSend& p) {
    int flag = 0;
    MPI_Testall(int(p.requests.size()), p.requests.data(), &flag, MPI_STATUSES_IGNORE);
    return flag != 0;
  });
}

struct RankState {
  std::unique_ptr<Session> session;
  std::vector<std::vector<HostTensor>> microbatches;  // rank 0 only
};

Status load(const RunModuleOptions& o, int rank, int size, RankState* st, bool* count_error) {
  TIR_ASSIGN_OR_RETURN(auto model, data_source_mmap(o.model_path));
  TIR_ASSIGN_OR_RETURN(int count, staged_model_count(model->bytes(), o.model_path));
  if (count != size) {
    *count_error = true;
    if (count == 0)
      return make_error(StatusCode::kInvalidArgument, "model '", o.model_path,
                        "' has no pipeline stages (methods stage0, ...): cut it with `tirc "
                        "partition --stages ",
                        size, "` first");
    return make_error(StatusCode::kInvalidArgument, "model '", o.model_path, "' has ", count,
                      " stages but the job has ", size, " ranks (run mpirun -n ", count, ")");
  }
  SessionOptions so;
  so.method = "stage" + std::to_string(rank);
  // Verifying checksums reads the whole file; a rank touches only its own stage's pages.
  so.weights.verify_checksums = false;
  so.fuse = o.fuse;
  TIR_ASSIGN_OR_RETURN(so.precision, precision_from_name(o.dtype));
  std::vector<std::string> layers = {o.weights_path};
  layers.insert(layers.end(), o.overlay_paths.begin(), o.overlay_paths.end());
  TIR_ASSIGN_OR_RETURN(auto weights, WeightSet::open_layers(layers, so.weights));
  TIR_ASSIGN_OR_RETURN(st->session, Session::create(model, weights, so));
  if (rank == 0) {
    std::vector<HostTensor> inputs;
    TIR_RETURN_IF_ERROR(run_module_load_inputs(o, *st->session, &inputs));
    TIR_ASSIGN_OR_RETURN(st->microbatches,
                         split_microbatches(inputs, st->session->inputs(), o.microbatches));
  }
  return ok_status();
}

[[noreturn]] void abort_job(std::ostream& err, int rank, const Status& s) {
  err << "error: rank " << rank << " (stage" << rank << "): " << s.message() << std::endl;
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

}  // namespace

int mpi_pipeline_main(const MpiRunOptions& mo, std::ostream& out, std::ostream& err) {
  const RunModuleOptions& o = mo.run;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  set_num_threads(o.threads);
  RankState st;
  bool count_error = false;
  const Status loaded = load(o, rank, size, &st, &count_error);
  // Every rank learns whether all loaded, so none waits for a rank that will never send.
  int ok = loaded.ok() ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!loaded.ok() && (!count_error || rank == 0))
    err << "error: rank " << rank << ": " << loaded.message() << std::endl;
  if (!all_ok) return 1;

  const int last = size - 1, m = o.microbatches;
  // Test hook (tests/tools/mpi_cli_test.cc): this rank dies after its first micro-batch.
  const char* die = std::getenv("TIR_MPI_TEST_DIE_RANK");
  const int die_rank = die ? std::atoi(die) : -1;
  std::vector<std::vector<HostTensor>> results(m);
  std::vector<PendingSend> pending;
  std::vector<double> wall_ms, busy_ms;
  for (int r = 0; r <= o.repeat; ++r) {
    MPI_Request barrier;
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    if (Status s = wait_for(
            [&] {
              int flag = 0;
              MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE);
              return flag != 0;
            },
            mo.timeout_s, "waiting for every rank to start a run");
        !s.ok())
      abort_job(err, rank, s);
    const auto t0 = Clock::now();
    double busy = 0;
    for (int b = 0; b < m; ++b) {
      std::vector<HostTensor> received;
      if (rank > 0) {
        auto batch = receive_batch(rank - 1, mo.timeout_s);
        if (!batch.ok()) abort_job(err, rank, batch.status());
        received = std::move(*batch);
      }
      if (rank == die_rank) ::_exit(3);
      std::vector<Tensor> views;
      for (const HostTensor& h : rank == 0 ? st.microbatches[b] : received)
        views.push_back(h.view());
      const auto start = Clock::now();
      auto outputs = st.session->run(views);
      if (!outputs.ok()) abort_job(err, rank, outputs.status());
      std::vector<HostTensor> copies;
      for (const Tensor& t : *outputs) copies.push_back(host_copy(t));
      busy += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (rank == last) {
        results[b] = std::move(copies);
      } else {
        if (Status s = send_batch(rank + 1, std::move(copies), &pending); !s.ok())
          abort_job(err, rank, s);
        reap_sends(&pending);
      }
    }
    if (Status s = drain_sends(&pending, rank + 1, mo.timeout_s); !s.ok()) abort_job(err, rank, s);
    wall_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    busy_ms.push_back(busy);
  }

  // Per-rank statistics of the median run (the first when there are no repeats) and peak RSS.
  const size_t pick = wall_ms.size() > 1 ? 1 + (wall_ms.size() - 1) / 2 : 0;
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  double mine[2] = {busy_ms[pick], double(ru.ru_maxrss) * 1024.0};
  std::vector<double> all(2 * size_t(size));
  MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, last, MPI_COMM_WORLD);
  if (rank != last) return 0;

  auto outputs = concat_microbatches(results);
  if (!outputs.ok()) abort_job(err, rank, outputs.status());
  if (!o.output_dir.empty()) {
    ::mkdir(o.output_dir.c_str(), 0755);
    for (size_t k = 0; k < outputs->size(); ++k)
      if (Status s = npy_write(o.output_dir + "/output_" + std::to_string(k) + ".npy",
                               (*outputs)[k].view());
          !s.ok())
        abort_job(err, rank, s);
  }
  std::vector<double> sorted(wall_ms.begin() + (wall_ms.size() > 1), wall_ms.end());
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  if (o.json) {
    out << "{\"ranks\": " << size << ", \"microbatches\": " << m << ", \"wall_ms\": " << median
        << ", \"first_wall_ms\": " << wall_ms[0] << ", \"busy_ms\": [";
    for (int k = 0; k < size; ++k) out << (k ? ", " : "") << all[2 * k];
    out << "], \"peak_rss_bytes\": [";
    for (int k = 0; k < size; ++k)
      out << (k ? ", " : "") << std::setprecision(15) << all[2 * k + 1];
    out << "]}" << std::endl;
    return 0;
  }
  out << "mpi pipeline " << o.model_path << ": " << size << " ranks, " << m << " micro-batches\n"
      << std::fixed << std::setprecision(3);
  for (int k = 0; k < size; ++k)
    out << "rank " << k << "  busy " << all[2 * k] << " ms, peak RSS " << all[2 * k + 1] / (1 << 20)
        << " MiB\n";
  for (size_t k = 0; k < outputs->size(); ++k) {
    out << "output " << k << "  " << dtype_name((*outputs)[k].view().dtype)
        << shape_str((*outputs)[k].view().shape());
    if (!o.output_dir.empty()) out << "  -> " << o.output_dir << "/output_" << k << ".npy";
    out << "\n";
  }
  out << "time    first " << wall_ms[0] << " ms";
  if (wall_ms.size() > 1) out << ", " << wall_ms.size() - 1 << " runs: median " << median << " ms";
  out << std::endl;
  return 0;
}

}  // namespace tir::tools
