// The encoder layers of a small bucket (at most kSmallEncoderMaxTokens tokens) in ONE persistent
// kernel: one CTA per SM, launched cooperatively, its phases separated by grid-wide barriers.
//
// Why: at 1x48 a layer through cuBLASLt and the engine's own kernels is ~10 kernels of a few
// microseconds of fixed cost each (docs/cuda.md, "What the small shapes need next"); here a layer
// is 7 phases and 7 grid barriers, and every CTA asks L2 for its share of the next layer's weights
// while the current layer runs (the weights do not depend on the activations).
//
// Per layer (the same operations, in the same precision, as the unfused path of record_as):
//   1. qkv = T(y . Wqkv^T)                       GEMM phase, full K per unit
//   2. att = attention(qkv) with RoPE            attention_mma_tile (attention_mma.cuh), bitwise
//                                                the attention kernel's computation
//   3. parts[s] = att . Wo^T over K-slice s      GEMM phase, fp32 split-K partials
//   4. x += T(sum parts); y = T(LN(x) * mlp_norm)           one CTA per row
//   5. g = T(T(gelu(T(act))) * T(mul)), [act; mul] = y . Wi^T   GEMM phase, GeGLU epilogue
//   6. parts[s] = g . Wo2^T over K-slice s       GEMM phase, fp32 split-K partials
//   7. x += T(sum parts); y = T(LN(x) * next norm)  (the last layer: h = LN(x) * final norm, fp32)
// GEMM phases: units of 64 rows (the bucket's tokens, zero-padded to 16) x 32 or 64 weight rows x
// a K range, a 6-stage cp.async pipeline of 64-wide K chunks that runs on across a CTA's units,
// mma.sync m16n8k16 with fp32 accumulation; split-K partials are summed in split order by the next
// add+LN, so results are deterministic. The GEMM sums differ from cuBLASLt's by rounding only.
// Host-includable: declarations only.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "backends/cuda/attention.cuh"

namespace laya::cuda {

constexpr int32_t kSmallEncoderMaxTokens = 64;  // rows of one GEMM unit
constexpr int32_t kSmallEncoderMaxLayers = 32;  // layer table in the kernel parameters
constexpr int32_t kSmallEncoderMaxSplits = 8;   // split-K partials (the workspace holds this many)

template <class T>
struct SmallEncoderLayer {
  const T* wqkv = nullptr;          // [3d, d]
  const T* wo = nullptr;            // [d, d]
  const T* wi = nullptr;            // [2 inter, d]
  const T* wo2 = nullptr;           // [d, inter]
  const float* mlp_norm = nullptr;  // LayerNorm weight before the MLP
  const float* out_norm = nullptr;  // after the MLP: the next layer's attention norm, or the final norm
  const float* rope_cos = nullptr;  // [rope_len, 32] (global or local tables)
  const float* rope_sin = nullptr;
  int32_t window = -1;              // -1: global attention, else the local half window
};

template <class T>
struct SmallEncoderParams {
  SmallEncoderLayer<T> layers[kSmallEncoderMaxLayers];
  int32_t first_layer = 0, n_layers = 0;  // runs layers [first_layer, first_layer + n_layers)
  bool ends_with_final_norm = false;      // the last layer run is the encoder's last: h = LN(x) * out_norm
  // Tile table, row offsets, heads, scale, rope_len and zero_row of the bucket (attention.cuh);
  // the per-layer fields (tables, window) are set by the kernel. 64-query tiles, no key split.
  AttentionParams<T> attn;
  float* x = nullptr;      // [tokens, d] fp32 residual stream (in and out)
  T* y = nullptr;          // [tokens, d] normalised input of the next layer (in and out)
  float* h = nullptr;      // [tokens, d] final norm output (ends_with_final_norm)
  T* qkv = nullptr;        // [tokens, 3d]
  T* att = nullptr;        // [tokens, d]
  T* g = nullptr;          // [tokens, inter]
  float* parts = nullptr;  // [kSmallEncoderMaxSplits, tokens, d]
  unsigned* barrier = nullptr;  // the grid barrier's counter (zeroed by the launch)
  int32_t tokens = 0, d = 0, inter = 0;
  float eps = 1e-5f;
  int32_t attn_out_splits = 4;  // K-slices of the attention output GEMM (1..kSmallEncoderMaxSplits)
  int32_t mlp_out_splits = 4;   // K-slices of the MLP output GEMM
  // Each GEMM phase's first weight tiles are requested into shared memory before the barrier that
  // ends the phase before it (they do not depend on the activations). Measured slower: the CTAs
  // then reach the barrier only once their requests are issued (docs/benchmarks/cuda.md item 27).
  bool w_prefetch = false;
  // Experiment: when set, [layers][kSmallEncoderPhases][grid] globaltimer stamps (ns) of each CTA
  // finishing each phase's work (before the barrier), for per-phase timing.
  unsigned long long* trace = nullptr;
};

constexpr int32_t kSmallEncoderPhases = 7;

// The grid the kernel is launched with (one CTA per SM); 0 where not supported.
int32_t small_encoder_grid();

// Whether the fused kernel can run a model of these dimensions on the current device: d and inter
// multiples of 64, d <= 1024 (heads x 64), at most kSmallEncoderMaxLayers layers, code for the
// device's architecture in the binary, cooperative launch supported, one CTA per SM fits. Raises
// the kernel's dynamic shared-memory limit (once per process): call it outside graph capture.
bool small_encoder_supported(int32_t d, int32_t inter, int32_t layers);

// Launches the kernel cooperatively on one CTA per SM (capturable into a CUDA Graph).
template <class T>
void launch_small_encoder(const SmallEncoderParams<T>& p, cudaStream_t stream);

}  // namespace laya::cuda
