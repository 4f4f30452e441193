// Shape inference for torch's recurrent layers and cells as the training IR keeps them:
//   lstm.input(input, hx[h0, c0], params, has_biases, num_layers, dropout, train,
//              bidirectional, batch_first) -> (output, h_n, c_n)
//   gru.input, rnn_tanh.input, rnn_relu.input(input, hx, params, has_biases, num_layers,
//             dropout, train, bidirectional, batch_first) -> (output, h_n)
//   lstm_cell(input, hx[h, c], w_ih, w_hh, b_ih?, b_hh?) -> (h', c')
//   gru_cell, rnn_tanh_cell, rnn_relu_cell(input, hx, w_ih, w_hh, b_ih?, b_hh?) -> h'
// input [T, B, I] ([B, T, I] batch_first; [T, I] unbatched; a cell's [B, I]), h0/c0
// [L * D, B, H] (a cell's [B, H]); params per layer and direction: w_ih [G * H, I_l],
// w_hh [G * H, H], then b_ih, b_hh [G * H] when has_biases (G = 4 for LSTM: gates i, f, g, o;
// 3 for GRU: r, z, n; 1 for the tanh and relu RNN). Inference only: dropout between layers
// applies in training, which is refused; so is LSTM's proj_size.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"

namespace tir::kernels {

enum class RnnKind : uint8_t { kLstm, kGru, kTanh, kRelu };

struct RnnParams {
  RnnKind kind = RnnKind::kLstm;
  bool lstm = true;
  bool cell = false;  // one step: outputs h' (and c'), no sequence
  int64_t seq = 0, batch = 1, input_size = 0, hidden = 0, layers = 1, dirs = 1;
  bool batch_first = false, has_biases = true;
  int input = -1;
  std::vector<int> hx;      // KernelCall::inputs: h0 (and c0)
  std::vector<int> params;  // KernelCall::inputs, in torch's order
  int64_t gates() const { return lstm ? 4 : kind == RnnKind::kGru ? 3 : 1; }
};

template <RnnKind Kind>
Result<RnnParams> rnn_prepare(const KernelCall& call, PrepareInfo* out_info);
template <RnnKind Kind>
Result<RnnParams> rnn_prepare_cell(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
