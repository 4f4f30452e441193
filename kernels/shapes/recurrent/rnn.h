// Shape inference for torch's recurrent layers as the training IR keeps them:
//   lstm.input(input, hx[h0, c0], params, has_biases, num_layers, dropout, train,
//              bidirectional, batch_first) -> (output, h_n, c_n)
//   gru.input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
//             batch_first) -> (output, h_n)
// input [T, B, I] ([B, T, I] batch_first; [T, I] unbatched), h0/c0 [L * D, B, H]; params per
// layer and direction: w_ih [G * H, I_l], w_hh [G * H, H], then b_ih, b_hh [G * H] when
// has_biases (G = 4 for LSTM: gates i, f, g, o; 3 for GRU: r, z, n). Inference only: dropout
// between layers applies in training, which is refused; so is LSTM's proj_size.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"

namespace tir::kernels {

struct RnnParams {
  bool lstm = true;
  int64_t seq = 0, batch = 1, input_size = 0, hidden = 0, layers = 1, dirs = 1;
  bool batch_first = false, has_biases = true;
  int input = -1;
  std::vector<int> hx;      // KernelCall::inputs: h0 (and c0)
  std::vector<int> params;  // KernelCall::inputs, in torch's order
  int64_t gates() const { return lstm ? 4 : 3; }
};

Result<RnnParams> rnn_prepare_lstm(const KernelCall& call, PrepareInfo* out_info);
Result<RnnParams> rnn_prepare_gru(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
