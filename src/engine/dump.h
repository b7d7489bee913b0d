// DumpSink: receives named intermediate tensors of a forward pass (parity work, debugging).
//
// Names (packed varlen layout, rows = total tokens unless stated):
//   "embed"            embedding LayerNorm output            [tokens, d]
//   "encoder.<i>"      residual stream after encoder layer i [tokens, d]
//   "final_norm"       encoder output after final_norm      [tokens, d]
//   "head.<i>"         residual stream after decision layer i (type_emb already added) [tokens, d]
//   "markers"          post-head hidden state at each marker [total_markers, d]
//   "logits"           scorer output per marker              [total_markers, 1]
//   "act_logits"       action head output per row            [rows, n_act]
#pragma once

#include <cstddef>
#include <string_view>

namespace laya::engine {

class DumpSink {
 public:
  virtual ~DumpSink() = default;
  // Whether the sink wants `name`; backends skip the copy entirely when it does not.
  virtual bool wants(std::string_view name) const = 0;
  // Row-major float32 data of shape [rows, cols] on the host.
  virtual void put(std::string_view name, const float* data, size_t rows, size_t cols) = 0;
};

}  // namespace laya::engine
