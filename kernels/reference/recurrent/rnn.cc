// Reference LSTM, GRU and tanh/relu RNN layers and cells (kernels/shapes/recurrent/rnn.h), in
// double, one time step at a time: each layer reads the previous layer's output sequence; a
// bidirectional layer runs its second direction from the last step back and writes the second
// half of each output row. A cell is one step of one layer, its outputs h' (and c').
#include "kernels/shapes/recurrent/rnn.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

/// y[g] = b[g] + sum_k w[g, k] x[k] for g in [0, rows).
void affine(const float* w, const float* b, const double* x, int64_t rows, int64_t cols,
            double* y) {
  for (int64_t g = 0; g < rows; ++g) {
    double acc = b ? double(b[g]) : 0.0;
    const float* row = w + g * cols;
    for (int64_t k = 0; k < cols; ++k) acc += double(row[k]) * x[k];
    y[g] = acc;
  }
}

struct Layer {
  const float *w_ih, *w_hh, *b_ih, *b_hh;
};

/// One step of one direction for one batch row: h (and c) updated from x.
void cell(const RnnParams& p, const Layer& w, const double* x, int64_t in, double* h, double* c,
          std::vector<double>& gi, std::vector<double>& gh) {
  const int64_t H = p.hidden, G = p.gates() * H;
  affine(w.w_ih, w.b_ih, x, G, in, gi.data());
  affine(w.w_hh, w.b_hh, h, G, H, gh.data());
  for (int64_t j = 0; j < H; ++j) {
    if (p.kind == RnnKind::kTanh || p.kind == RnnKind::kRelu) {
      const double v = gi[j] + gh[j];
      h[j] = p.kind == RnnKind::kTanh ? std::tanh(v) : std::max(v, 0.0);
    } else if (p.lstm) {
      const double i = sigmoid(gi[j] + gh[j]), f = sigmoid(gi[H + j] + gh[H + j]);
      const double g = std::tanh(gi[2 * H + j] + gh[2 * H + j]);
      const double o = sigmoid(gi[3 * H + j] + gh[3 * H + j]);
      c[j] = f * c[j] + i * g;
      h[j] = o * std::tanh(c[j]);
    } else {
      const double r = sigmoid(gi[j] + gh[j]), z = sigmoid(gi[H + j] + gh[H + j]);
      const double n = std::tanh(gi[2 * H + j] + r * gh[2 * H + j]);
      h[j] = (1.0 - z) * n + z * h[j];
    }
  }
}

/// Where element (t, b, k) of a [T, B, feat] sequence is in the input or output tensor.
int64_t io_at(const RnnParams& p, int64_t t, int64_t b, int64_t k, int64_t feat) {
  return p.batch_first ? (b * p.seq + t) * feat + k : (t * p.batch + b) * feat + k;
}

void ref_rnn(const RnnParams& p, const KernelCall& call, void*) {
  const int64_t T = p.seq, B = p.batch, H = p.hidden, D = p.dirs;
  const size_t per = p.has_biases ? 4 : 2;
  auto in = [&](size_t k) { return call.inputs[size_t(p.params[k])].data_as<const float>(); };
  // The current layer's input sequence as [T, B, features], in double.
  const float* x = call.inputs[size_t(p.input)].data_as<const float>();
  int64_t feat = p.input_size;
  std::vector<double> seq(size_t(T * B * feat));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < feat; ++k)
        seq[size_t((t * B + b) * feat + k)] = x[io_at(p, t, b, k, feat)];
  const float* h0 = call.inputs[size_t(p.hx[0])].data_as<const float>();
  const float* c0 = p.lstm ? call.inputs[size_t(p.hx[1])].data_as<const float>() : nullptr;
  // A layer's outputs are (sequence, h_n[, c_n]); a cell's (h'[, c']).
  const size_t h_out = p.cell ? 0 : 1;
  float* hn = call.outputs[h_out].data_as<float>();
  float* cn = p.lstm ? call.outputs[h_out + 1].data_as<float>() : nullptr;
  std::vector<double> gi(static_cast<size_t>(p.gates() * H)), gh(gi.size());
  std::vector<double> h(static_cast<size_t>(H)), c(static_cast<size_t>(H));
  for (int64_t l = 0; l < p.layers; ++l) {
    std::vector<double> out(size_t(T * B * D * H));
    for (int64_t d = 0; d < D; ++d) {
      const size_t at = per * size_t(l * D + d);
      const Layer w{in(at), in(at + 1), p.has_biases ? in(at + 2) : nullptr,
                    p.has_biases ? in(at + 3) : nullptr};
      const int64_t s = l * D + d;  // its row of h0/c0, h_n/c_n
      for (int64_t b = 0; b < B; ++b) {
        for (int64_t j = 0; j < H; ++j) {
          h[size_t(j)] = h0[(s * B + b) * H + j];
          c[size_t(j)] = c0 ? c0[(s * B + b) * H + j] : 0.0;
        }
        for (int64_t step = 0; step < T; ++step) {
          const int64_t t = d == 0 ? step : T - 1 - step;
          cell(p, w, &seq[size_t((t * B + b) * feat)], feat, h.data(), c.data(), gi, gh);
          for (int64_t j = 0; j < H; ++j) out[size_t(((t * B + b) * D + d) * H + j)] = h[size_t(j)];
        }
        for (int64_t j = 0; j < H; ++j) {
          hn[(s * B + b) * H + j] = static_cast<float>(h[size_t(j)]);
          if (cn) cn[(s * B + b) * H + j] = static_cast<float>(c[size_t(j)]);
        }
      }
    }
    seq = std::move(out);
    feat = D * H;
  }
  if (p.cell) return;
  float* y = call.outputs[0].data_as<float>();
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < feat; ++k)
        y[io_at(p, t, b, k, feat)] = static_cast<float>(seq[size_t((t * B + b) * feat + k)]);
}

template <RnnKind Kind>
using LayerRef = FnKernel<RnnParams, rnn_prepare<Kind>, ref_rnn>;
template <RnnKind Kind>
using CellRef = FnKernel<RnnParams, rnn_prepare_cell<Kind>, ref_rnn>;

/// The layer op `layer` and the cell op `cell` of one kind.
template <RnnKind Kind>
void add(KernelRegistry& registry, const char* layer, const char* cell) {
  registry.add({
      {layer, DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<LayerRef<Kind>>},
      {cell, DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<CellRef<Kind>>},
  });
}

}  // namespace

void register_rnn_ref(KernelRegistry& registry) {
  add<RnnKind::kLstm>(registry, "aten::lstm.input", "aten::lstm_cell");
  add<RnnKind::kGru>(registry, "aten::gru.input", "aten::gru_cell");
  add<RnnKind::kTanh>(registry, "aten::rnn_tanh.input", "aten::rnn_tanh_cell");
  add<RnnKind::kRelu>(registry, "aten::rnn_relu.input", "aten::rnn_relu_cell");
}

}  // namespace tir::kernels
