// Reference fp32 ops of the Laya forward pass on host arrays — the oracle every other backend's
// kernels are tested against. Every op works on row-major fp32 arrays; "ld" arguments are row
// strides in elements (>= the logical width). None of them allocates per call except where noted.
//
// Semantics follow the official PyTorch modules (laya.common.DecisionModel on transformers 5.17
// ModernBERT and torch.nn.TransformerEncoderLayer), in fp32. Where PyTorch's exact reduction order
// is not reproducible (LayerNorm moments, softmax sums, GEMM blocking), these ops accumulate in a
// precision at least as high (double for LayerNorm moments and softmax sums), so they agree with the
// reference to ~1e-7 relative, far inside the 1e-5 parity budget.
//
// Threading: element-wise ops and attention parallelise over rows / (row, head) pairs with OpenMP;
// GEMMs use OpenBLAS threads. set_threads() sets both.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace laya::cpu {

// Number of worker threads for OpenMP loops and OpenBLAS (n <= 0: all cores). Process-wide.
void set_threads(int n);
int threads();

// LayerNorm over the last dimension (torch.nn.LayerNorm): for each row r of x [rows, d]
//   mean = Σx/d, var = Σ(x−mean)²/d (biased), y = (x−mean)/sqrt(var+eps) · weight (+ bias)
// Moments are accumulated in double. `bias` may be null (ModernBERT: norm_bias=false).
// y may alias x (in place). ld_x / ld_y default to d when 0.
void layer_norm(const float* x, int64_t rows, int64_t d, const float* weight, const float* bias,
                float eps, float* y, int64_t ld_x = 0, int64_t ld_y = 0);

// Linear layer (torch.nn.Linear) via cblas_sgemm:
//   y[rows, out] = x[rows, in] · Wᵀ (+ bias)     W is [out, in] row-major, as stored by PyTorch.
// `accumulate` = true adds into y instead (residual update: y += x·Wᵀ (+ bias)).
// `bias` may be null. ld_x / ld_y default to in / out when 0. rows == 0 is a no-op.
void linear(const float* x, int64_t rows, int64_t in, const float* w, const float* bias, int64_t out,
            float* y, bool accumulate = false, int64_t ld_x = 0, int64_t ld_y = 0);

// Rotary tables exactly as HF ModernBertRotaryEmbedding (default rope type, attention_scaling 1):
//   inv_freq[j] = 1 / (theta ** (float(2j) / head_dim))         j < head_dim/2, all fp32 (powf)
//   freqs[p][j] = float(p) * inv_freq[j]                          fp32 product
//   cos[p][j] = cos[p][j + head_dim/2] = cosf(freqs[p][j]);  sin likewise
// Stored [max_pos, head_dim] (both halves, like HF's cat(freqs, freqs)).
struct RopeTable {
  int32_t head_dim = 64;
  int32_t max_pos = 0;
  double theta = 0.0;
  std::vector<float> cos;  // [max_pos, head_dim]
  std::vector<float> sin;  // [max_pos, head_dim]
};
RopeTable make_rope_table(double theta, int32_t max_pos, int32_t head_dim = 64);

// In-place rotate-half (NeoX) RoPE on one packed row of `len` tokens whose position p is 0..len−1
// (HF apply_rotary_pos_emb, fp32): for each token p, each head h (columns h·head_dim ...),
//   x1 = x[:half], x2 = x[half:]
//   out[:half] = x1·cos[p][:half] − x2·sin[p][:half]     ( = x·cos + rotate_half(x)·sin )
//   out[half:] = x2·cos[p][half:] + x1·sin[p][half:]
// x points at the first head of the first token of the row; ld = row stride. len <= table.max_pos.
void rope_rotate_half(float* x, int64_t len, int64_t ld, int32_t heads, const RopeTable& table);

// Multi-head attention over packed varlen rows (no padding anywhere). Row r spans tokens
// [row_offsets[r], row_offsets[r+1]) of q/k/v/out; queries of a row see only keys of the same
// row (key-padding semantics of the padded reference: pads are never keys). For each row, head h,
// query i:
//   s_j = scale · <q_i, k_j>   for keys j of the row with |i − j| <= window_half (all j when
//                              window_half < 0: global attention)
//   out_i = Σ_j softmax(s)_j · v_j           (max-subtracted softmax, sum in double)
// Head h uses columns [h·head_dim, (h+1)·head_dim) of q, k, v and out. Every query has at least
// itself as a key, so no row is ever fully masked (no NaN possible).
struct AttentionParams {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  int64_t ld_q = 0, ld_k = 0, ld_v = 0;  // row strides (e.g. 3d for a packed qkv buffer)
  float* out = nullptr;
  int64_t ld_out = 0;
  const int32_t* row_offsets = nullptr;  // rows + 1 entries, starting at 0
  int32_t rows = 0;
  int32_t heads = 0;
  int32_t head_dim = 64;
  int32_t window_half = -1;  // ModernBERT local layers: local_attention / 2 (inclusive); <0 global
  float scale = 0.125f;      // 1/sqrt(head_dim)
};
void attention(const AttentionParams& p);

// Exact (erf) GELU, torch.nn.GELU() default: 0.5·x·(1 + erf(x/√2)). In place over n elements.
void gelu_erf(float* x, int64_t n);
float gelu_erf(float x);

// GeGLU of ModernBertMLP: in [rows, 2·inter] → out[r][j] = gelu_erf(in[r][j]) · in[r][inter + j]
// (first half is the activated input, second half the gate). out is [rows, inter]; may not alias.
void geglu(const float* in, int64_t rows, int64_t inter, float* out);

// ReLU in place over n elements: max(x, 0) (NaN stays NaN, like torch).
void relu(float* x, int64_t n);

// Numerically stable softmax in place over n elements: exp(x − max) / Σ (sum in double).
void softmax(float* x, int64_t n);

// The action-head features of DecisionModel.forward for one question with n >= 1 option logits:
//   p = softmax(logits); k = max(n, 2); ent = −Σ p·ln(max(p, 1e−9)) / ln(k)
//   top1 = max p; top2 = second largest p (0 when n == 1)
//   returns {top1, top1 − top2, ent, k / 255}
std::array<float, 4> act_features(std::span<const float> logits);

}  // namespace laya::cpu
