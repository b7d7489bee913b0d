#include "backends/cuda/cuda_backend.h"

#include <cuda_runtime_api.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <unordered_map>

#include "backends/cuda/activation.cuh"
#include "backends/cuda/attention.cuh"
#include "backends/cuda/build_info.h"
#include "backends/cuda/bus_copy.cuh"
#include "backends/cuda/check.h"
#include "backends/cuda/env.h"
#include "backends/cuda/gemm.h"
#include "backends/cuda/geglu_gemm.cuh"
#include "backends/cuda/graph_cache.h"
#include "backends/cuda/heads.cuh"
#include "backends/cuda/norm.cuh"
#include "backends/cuda/pdl.h"
#include "backends/cuda/precision.h"
#include "backends/cuda/rope.cuh"
#include "backends/cuda/small_gemm.cuh"
#include "backends/cuda/staging.h"
#include "backends/cuda/weights.h"

namespace laya::cuda {

namespace {

constexpr size_t kGemmWorkspace = size_t{32} << 20;
// Buckets above this many tokens rotate K once per layer before attention (see record());
// LAYA_CUDA_ROPE_ONCE_FROM overrides it (experiment). 512: with the key split, 1x464 / 1x512 are
// faster rotating K in the attention loads (docs/benchmarks/cuda.md, session 5).
constexpr int32_t kRotateKOnceTokens = 512;
// Global layers rotate K once by the pass below that too where the bucket's rows average more than
// this many tokens (rotates_k_once, bucket.h); LAYA_CUDA_ROPE_ONCE_GLOBAL_ROW overrides it (0:
// never). Measured on the H200 (docs/benchmarks/cuda.md item 216): from 129 tokens, 1x384 -0.011,
// 1x464 -0.010, 1x512 -0.014 ms, but 4x128 +0.012, 1x160 / 1x256 / 2x256 +-0.001.
constexpr int32_t kRotateKOnceGlobalRowTokens = 256;
// Windowed (local) layers' attention runs at most this many key groups a block: their blocks see
// 3 key tiles (a 128-token window around 64 queries), so a fourth group idles and only adds to the
// merge. LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX overrides it (1, 2 or 4). Measured on the H200 (item 216):
// 1x464 -0.004, 1x512 -0.007 ms (the only buckets with four groups); the local layers' results
// change by rounding (another merge), as between any two splits.
constexpr int32_t kAttnLocalSplitMax = 2;
// Buckets of at least this many row slots run the act head's first linear (act_hidden outputs a
// row, k = d + 4) as a GEMM (cuBLASLt's bias epilogue), its GELU applied by the second linear as it
// reads it; below, small_linear's kernel of one output a slot, which reads the weights once a row
// and the inputs once an output. LAYA_CUDA_ACT_GEMM_FROM overrides it (0: never). Measured on the
// H200 (docs/benchmarks/cuda.md item 222), the two linears together: 64x48 (65 slots) 35.1 -> 9.5
// us of the chain, 16x512 (17) 13.4 -> 10.3, but 16x48 (17) 8.2 -> 8.9 and 1x48 (2) 4.1 -> 12.9.
constexpr int32_t kActGemmFromRows = 32;
// GEMMs over at least this many rows pick their cuBLASLt algorithm by timing (see gemm.h);
// LAYA_CUDA_GEMM_TUNE_FROM_M overrides it (0: never). Measured on the H200 against 4,096
// (docs/benchmarks/cuda.md item 131, six rounds): from 2,048 rows 5x512 (2,560 tokens) -0.032 ms,
// 6x512 -0.028, 7x512 -0.032, 64x48 -0.011, but 4x512 (2,048) +0.017 — hence 2,560. At d = 768
// (multilingual) timing from 1,280 rows was -0.010..-0.050 at 1,280-2,048 rows in one call and
// -0.029..+0.029 in the next, whose timed picks varied from process to process (item 154): not kept.
constexpr int32_t kTuneFromRows = 2560;
// Buckets of at most this many tokens run the encoder's GEMMs on small_gemm (sm_90a), which waits
// on programmatic edges, with PDL for all of the engine's kernels (PdlScope): every boundary of
// their encoder layers is programmatic and GeGLU runs in the MLP input GEMM's epilogue. Measured
// on the H200 (docs/benchmarks/cuda.md item 58): 1x48 1.012 -> 0.871 ms, 2x32 -0.14, 1x64 -0.15;
// the small GEMM without PDL +0.016, PDL without it +0.017. From 65 to 128 tokens it runs in its
// wide layout (item 79: 65-128-token buckets -0.10..-0.11 ms; up to 256 tokens +0.4, item 80).
// LAYA_CUDA_SMALL_GEMM_MAX_M overrides it (0: never; at most 128).
constexpr int32_t kSmallGemmMaxRows = 128;
// In those buckets the small GEMM also runs the GEMMs with a bias (the decision layers', the
// scorer's: BIAS / RELU_BIAS epilogues) of K <= kSmallGemmBiasMaxK: it does not split K, so the
// decision FFN's second GEMM (K = 4 d) stays on cuBLASLt's split-K. LAYA_CUDA_SMALL_GEMM_BIAS
// overrides the bound (0: none on it). Measured on the H200 (docs/benchmarks/cuda.md item 60):
// 1x48 -0.005 ms, 1x64 -0.009; all of them (K = 4096 too) +0.011 against this bound.
constexpr int32_t kSmallGemmBiasMaxK = 1024;
// Outside those buckets the GEMMs of at most kSmallGemmMaxRows rows are the pruned last decision
// layer's (its head rows) and the scorer's first linear: with kSmallTail they run on the small GEMM
// as in the small buckets (bias GEMMs of K <= kSmallGemmBiasMaxK, the output GEMMs as partials), an
// own-kernel chain with programmatic edges between own kernels, instead of cuBLASLt.
// LAYA_CUDA_SMALL_TAIL overrides it. Measured on the H200 (docs/benchmarks/cuda.md item 115), with
// pruning from 129 tokens: 1x256 -0.019 ms, 1x512 -0.021, 2x512 -0.019, 8x512 -0.053.
constexpr bool kSmallTail = true;
// GEMMs on the small GEMM over at most this many rows use its wide layout (64 W rows a CTA, the
// tokens as the MMA's N; small_gemm.cu) where the shape allows. Measured on the H200
// (docs/benchmarks/cuda.md item 71): 1x16 -0.153 ms, 1x48 -0.013, but 64 tokens +0.011..+0.016.
// Below d = 1,024 its grids are a quarter smaller again (12 CTAs for N = d), and the 48-token bucket
// runs the narrow layout: at d = 768 (multilingual) 1x48 -0.012, 3x16 -0.014, 6x8 -0.013, 8x6
// -0.009 (item 150; at d = 1,024 narrow there was 1x48 -0.003..-0.007 but 8x6 +0.012, item 138).
// LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M overrides it (0: never).
constexpr int32_t small_gemm_wide_max_rows(int32_t d) { return d >= 1024 ? 48 : 32; }
constexpr int64_t kMemoryMargin = int64_t{256} << 20;
// The most rows a forward may be configured to take (BackendOptions::max_rows; serve's
// --max-batch-rows): beyond it the row-indexed staging and head buffers stop being negligible.
constexpr int32_t kMaxRowsLimit = 1024;
// Buckets of at most this many tokens run the MLP output GEMM (K = intermediate) as kMlpOutSplits
// fp32 partials summed by the following add+LayerNorm (Gemm::run_partials): cuBLASLt splits K
// there anyway and adds a reduction kernel (128: the small GEMM's buckets, item 79).
// LAYA_CUDA_PARTIALS_MAX_M overrides it (0: never).
constexpr int32_t kPartialsMaxRows = 128;
constexpr int32_t kMlpOutSplits = 2;
// On the small GEMM (buckets of at most 128 tokens) the MLP output GEMM runs as three partials: 48
// CTAs of 13-14 k-tiles instead of 32 of 20-21. Measured on the H200 (docs/benchmarks/cuda.md item
// 132, four rounds): 1x16 -0.012 ms, 1x48 -0.010, 1x64 -0.010, 1x128 -0.008, 2x32 -0.007, 4x64
// -0.003 (item 89: four partials +0.016 at 1x48). LAYA_CUDA_SMALL_MLP_OUT_SPLITS overrides it (1-4).
constexpr int32_t kSmallMlpOutSplits = 3;
// Buckets on the small GEMM run the attention output GEMM as attn_out_splits_for(d) fp32 partials
// too, summed by the add+LN after it: more CTAs (the wide layout has only 16 for N = 1,024), fewer
// k-tiles each. Measured on the H200: 2 against none (docs/benchmarks/cuda.md item 74) 1x48
// -0.028 ms, 1x16 -0.016, 64 tokens -0.015..-0.021; 3 against 2 (item 199, session 40)
// 1x16 -0.012, 1x48 -0.009, 1x64 -0.012, 1x128 -0.010 (at 1x48 -0.004 in a second run, 4x16
// +0.001..+0.005); 4 against 2 +0.020 at 1x48 (item 198). At d = 768 (12 k-tiles) 3 was not faster
// (1x16 +0.005, the rest +-0.004), so there it stays 2. LAYA_CUDA_ATTN_OUT_SPLITS overrides it (0
// or 1: none; at most 4).
constexpr int32_t attn_out_splits_for(int32_t d) { return d >= 1024 ? 3 : 2; }
// Buckets whose QKV GEMM runs on the small GEMM (up to 128 tokens) rotate q and k (RoPE) in that
// GEMM's epilogue (small_gemm.cuh, the rope form) instead of in attention's loads, which then
// stream q and K without the tables. Measured on the H200 (docs/benchmarks/cuda.md item 134, six
// rounds, the wide layout's buckets): 1x16 -0.019 ms, 1x48 -0.020, 1x128 -0.010, 1x100 -0.003 (an
// exchange of the halves through shared memory instead had cost more than it saved, item 133);
// the narrow layout's (49-64 tokens): item 135. LAYA_CUDA_ROPE_IN_GEMM=0 rotates in attention as
// before.
constexpr bool kRopeInQkvGemm = true;
// In those buckets the decision layers' out-projection (K = d) and second FFN GEMM (K = 4 d, on
// cuBLASLt's split-K otherwise: the small GEMM's plain form was slower there, item 60) run as
// fp32 partials on the small GEMM too, their bias added by the add+LN with the partials' sum.
// Measured on the H200 (docs/benchmarks/cuda.md item 77): -0.002..-0.006 ms in every small
// bucket. LAYA_CUDA_DECISION_PARTS=0 turns it off.
constexpr bool kDecisionParts = true;
constexpr int32_t kDecisionOutSplits = 2, kDecisionFfnSplits = 4;
static_assert(kDecisionFfnSplits <= kMaxAddParts && kDecisionOutSplits <= kMaxAddParts, "the add+LN sums at most 4 parts");
// Buckets of at least this many tokens run the MLP input GEMM with GeGLU fused (geglu_gemm.cuh,
// sm_90 only); LAYA_CUDA_GEGLU_GEMM_FROM overrides it (0: never). Measured on the H200 with the
// deferred epilogue (docs/benchmarks/cuda.md item 43): 4x464 (bucket 1,920) -0.09 ms, 3x512
// -0.11, 11x128 (1,408) -0.09, 10x128 (1,280) -0.06, but 9x128 (1,152) +0.07 and 2x512 (1,024)
// +0.12 — the 256-row tiles of 1,152 tokens cost what 1,280 cost — hence 1280.
constexpr int32_t kGegluGemmFromRows = 1280;
// ... except where its tiles are one full round on the GPU's SMs and a second round of fewer than
// this percentage of them (geglu_gemm_fills_its_rounds, bucket.h: multilingual 1,920-2,304 tokens
// on the H200, -0.02..-0.05 ms; never an english bucket from 1,280 tokens). Measured on the H200
// (docs/benchmarks/cuda.md item 149). LAYA_CUDA_GEGLU_GEMM_MIN_FILL overrides it (0: every bucket
// from kGegluGemmFromRows, as before).
constexpr int32_t kGegluGemmMinFillPct = 25;
// Buckets of at least this many tokens add the attention- and MLP-output GEMMs into the fp32
// residual stream in the GEMM's epilogue (Gemm::run_residual), so the add+LN after them only
// reads x: LAYA_CUDA_RESIDUAL_GEMM_FROM overrides it (0: never). Measured on the H200
// (docs/benchmarks/cuda.md items 28 and 53): 16x512 -0.24 ms, 8x512 -0.06 (session 7, from 4096);
// then, with the lean add+LNs, from 1536 too: 4x464 -0.045, 3x512 -0.045, 64x32 -0.02; 2x512
// (1,024 tokens) +0.01 — hence 1536, where the lean add+LN started. From 1280 together with every
// edge programmatic: 10x128 -0.015, 11x128 -0.008 — within the variants' order noise (item 124).
// Together with the lean add+LNs (kLeanAddLnFromRows, item 125), from 1,024: 2x512 -0.016, 9x128
// -0.10, 10x128 -0.11, 11x128 -0.07 ms (the general add+LN takes two waves above 1,056 rows); from
// 513: 5x128 / 6x128 / 7x128 -0.03 each; from 129: 1x160 / 1x256 -0.022, 1x384 -0.013, 1x512
// -0.017 more. Below 129 tokens the output GEMMs write partials (kPartialsMaxRows).
constexpr int32_t kResidualGemmFromRows = 129;
// Buckets of kPdlAllEdgesFromTokens to kPdlAllEdgesToTokens tokens launch every own kernel
// programmatically, after a cuBLASLt GEMM too (PdlScope; elsewhere outside the small buckets only
// own -> own edges are: pdl_for_next_launch). Measured on the H200 (docs/benchmarks/cuda.md item
// 108, five rounds under the power cap), against own edges only: 3x512 -0.019 ms, 4x464 -0.017,
// 8x512 (4,096) -0.030; 16x512 +0.070 there, nothing measurable beyond its power-cap noise in
// palindromic runs. From 129 tokens instead: 192-512 tokens +0.004..+0.014, 1,024 ±0 (item 111);
// from 1280: see kResidualGemmFromRows (item 124); from 1,024 with the residual GEMMs and lean
// add+LNs there (item 125, six rounds in alternating order): 10x128 -0.020, 11x128 -0.023, 2x512
// -0.006, 9x128 -0.004.
// LAYA_CUDA_PDL_ALL_FROM / LAYA_CUDA_PDL_ALL_TO override them (FROM 0: never).
constexpr int32_t kPdlAllEdgesFromTokens = 1024;
constexpr int32_t kPdlAllEdgesToTokens = 4096;
// Buckets of at least this many tokens run attention's products on wgmma (AttentionParams::wgmma,
// sm_90a); LAYA_CUDA_ATTN_WGMMA_FROM overrides it (0: never).
constexpr int32_t kAttnWgmmaFromTokens = 1;
// Buckets of at least this many tokens run the encoder's attention with five blocks per SM
// (AttentionParams::five_blocks); LAYA_CUDA_ATTN_FIVE_BLOCKS_FROM overrides it (0: never).
// Measured on the H200, attention per forward (docs/benchmarks/cuda.md item 42): 16x512 -38 us,
// 8x512 +13 us, 4x464 +67 us (session 8) — it pays only with several waves of blocks.
constexpr int32_t kAttnFiveBlocksFromTokens = 8192;
// Buckets above the small GEMM's tokens whose attention grid has more blocks than SMs but whose
// working blocks (rows of equal length) fit on the SMs one each (and no key split of 4, which runs
// one block per SM anyway) run it one block per SM (AttentionParams::one_block_per_sm): otherwise
// the block scheduler puts two working blocks on some SMs while others hold tiles that exit at
// once. Measured on the H200 (docs/benchmarks/cuda.md item 140, four rounds): 3x128 -0.042 ms,
// 4x128 -0.045, 7x64 -0.025, 8x64 -0.008; where the working blocks do not fit (5x100, 6x80) it cost
// +0.041 / +0.052 (a second wave), hence the bound.
// LAYA_CUDA_ATTN_ONE_BLOCK overrides it: 0 never, 2 every bucket above the small GEMM's (tests).
constexpr int32_t kAttnOneBlock = 1;
// Where the GeGLU pass runs (129-1,279 tokens), its threads past the last column (56 a row with
// inter = 2,624) send the kernels after it their constants in L2 (l2_prefetch.cuh): a bit each —
// 1 the MLP output GEMM's first k-tiles of W, 2 the next add+LN's weight, 4 the next layer's QKV
// GEMM's first k-tiles, 8 its RoPE table rows, 16 its second LayerNorm's weight, 32 its attention
// output GEMM's first k-tiles, 64 its MLP input GEMM's first k-tiles. kGegluPrefetchKtiles: the
// k-tiles (64 columns, 128 bytes of each row of W) a GEMM's span holds. Measured on the H200
// (docs/benchmarks/cuda.md item 146, four rounds, against the build without it): 1x160 -0.015 ms,
// 1x256 -0.016, 1x384 -0.015, 1x512 -0.015, 2x512 -0.022, 4x128 -0.011 (every round lower), 9x128
// -0.005; only the spans up to the next attention (bits 1-8) about a third of that; four k-tiles
// within +-0.01 of two. LAYA_CUDA_GEGLU_PREFETCH / LAYA_CUDA_GEGLU_PREFETCH_KTILES override them
// (0: none).
constexpr int32_t kGegluPrefetch = 127;
constexpr int32_t kGegluPrefetchKtiles = 2;
// Buckets of at least this many tokens run the last decision layer after its attention only on the
// rows the heads read (each row's first token and the markers: prunes_last_decision_layer);
// LAYA_CUDA_PRUNE_HEAD_FROM overrides it (0: never, 1: every bucket where it fits). Measured on the
// H200: from 1,024 tokens 16x512 -0.35 ms (item 35); with its GEMMs on the small GEMM (kSmallTail)
// it pays from the first bucket above the small ones too (item 115: 1x256 -0.019, 1x512 -0.021),
// and in the small buckets of 128 tokens (item 116: 1x128 -0.012, 2x64 -0.007, 8x16 -0.006;
// 1x16 / 1x48 +0.002 / 0), likely because the compact rows give the wide layout's MMAs a smaller N.
constexpr int32_t kPruneHeadFromTokens = 1;
// The staging block is copied in by a kernel that reads the pinned block over the bus, and the heads'
// last kernels write their float outputs straight into the pinned output block, instead of a
// memcpy node on each side of the forward (launch_copy_from_host); LAYA_CUDA_BUS_IO=0 selects the
// memcpy nodes. The same bytes either way.
constexpr bool kBusIo = true;
// Captured forwards: cuBLASLt's workspace memsets become a kernel of the engine's own, launched
// programmatically after the kernel before them (graph_memsets.h); LAYA_CUDA_GEMM_MEMSET_KERNELS=0
// keeps the memset nodes.
constexpr bool kGemmMemsetKernels = true;
// bf16: the GeGLU pass after a cuBLASLt MLP input GEMM (129-1,279 tokens) looks T(gelu(a)) up in a
// 10 KB table instead of computing erf (gelu_lut.cuh; the same bits); LAYA_CUDA_GELU_TABLE=0
// computes it. Measured on the H200: docs/benchmarks/cuda.md item 114.
constexpr bool kGeluTable = true;
// Buckets whose encoder GEMMs run the small GEMM's narrow layout (49-64 tokens) launch their kernels
// preferring this shared-memory carveout (percent; a launch attribute, so it holds for those
// buckets' kernels only). Measured on the H200 (docs/benchmarks/cuda.md item 85), 100 for every
// small bucket: 2x32 -0.033 ms, 4x16 -0.022, 1x64 -0.018 — but 1x16 +0.007, 1x48 +0.011, 1x128
// +0.008, 2x64 +0.011 (the wide layout's buckets); 100 for every kernel of every bucket cost 16x512
// +0.15 (item 68). Why (items 91-92): under the driver's choice the narrow layout's 96 KB CTAs are
// stacked two to an SM while other SMs idle (MLP input GEMM: 164 CTAs on 116 SMs); with every
// kernel of the bucket at 100 they spread — the GEMMs' launches alone at 100 do not suffice.
// LAYA_CUDA_NARROW_CARVEOUT overrides it (-1: the driver's choice).
constexpr int32_t kNarrowCarveout = 100;

int32_t tune_from_rows() {
  const int32_t v = env_int("LAYA_CUDA_GEMM_TUNE_FROM_M", kTuneFromRows);
  return v > 0 ? v : Gemm::kNeverTune;  // 0: never
}

int64_t align256(int64_t n) { return (n + 255) / 256 * 256; }

// Device buffers of the one workspace (sized for the limits) and the pinned host staging. The
// 16-bit buffers hold the precision mode's type (record_as<Elem> sees them typed).
struct Workspace {
  void* block = nullptr;
  int64_t bytes = 0;
  float *x = nullptr, *h = nullptr;
  void *y = nullptr, *qkv = nullptr, *att = nullptr, *proj = nullptr, *up = nullptr, *g = nullptr;
  void *my = nullptr, *mh = nullptr, *logits = nullptr, *act_in = nullptr, *act_h = nullptr, *act = nullptr;
  float* parts = nullptr;  // [kMaxAddParts, partials_max_rows, d]: split-K partials
  uint16_t* gelu_lut = nullptr;  // bf16 GELU table (gelu_lut.cuh), filled once at start-up
  uint16_t* gelu_all = nullptr;  // bf16 GELU of every pattern (the fused GeGLU GEMM's), filled once at start-up
  int32_t* in = nullptr;   // staging block on the device
  float* out = nullptr;    // [markers_pad + row_slots * n_act]
  void* gemm_ws = nullptr;
  int32_t* host_in = nullptr;  // pinned
  float* host_out = nullptr;   // pinned
  // The same pinned blocks as device addresses (mapped: the kernels of the bus I/O read and write them).
  int32_t* host_in_dev = nullptr;
  float* host_out_dev = nullptr;
  int64_t host_in_elems = 0, host_out_elems = 0;
};

struct Dims {
  int32_t d = 0, heads = 0, inter = 0, ffn = 0, act_hidden = 0, n_act = 0, vocab = 0, local_half = 0;
  int32_t max_row_len = 0;
  float eps = 1e-5f;
};

// The cuBLASLt GEMMs that run the heuristic's pick with a 1x1x1 cluster: the checkpoint's default
// (default_single_cta_cluster_rule, cluster_rule.h) unless LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER gives a
// spec ("FROM-TO[:NxK+NxK];...", "none": no GEMM; unset or empty: the default, as env_int's switches).
SingleCtaClusterRule single_cta_cluster_rule(const Dims& dims) {
  if (const char* spec = std::getenv("LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER"); spec != nullptr && *spec != '\0') {
    auto rule = SingleCtaClusterRule::parse(spec);
    LAYA_REQUIRE(rule.has_value(), ErrorKind::bad_request,
                 "LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER='{}' is not FROM-TO[:NxK+NxK...];... or none", spec);
    return *rule;
  }
  return default_single_cta_cluster_rule(dims.d, dims.inter);
}

class DumpCtx {
 public:
  DumpCtx(engine::DumpSink* sink, cudaStream_t stream, const engine::Batch& batch, int32_t d)
      : sink_(sink), stream_(stream), batch_(batch), d_(d) {}

  // Copies the first `rows` rows of a device fp32 [*, cols] tensor when the sink wants `name`.
  void f32(const std::string& name, const float* dev, int64_t rows, int64_t cols) {
    if (!sink_->wants(name)) return;
    std::vector<float> host(static_cast<size_t>(rows * cols));
    LAYA_CUDA_CHECK(cudaStreamSynchronize(stream_));
    LAYA_CUDA_CHECK(cudaMemcpy(host.data(), dev, host.size() * 4, cudaMemcpyDeviceToHost));
    sink_->put(name, host.data(), static_cast<size_t>(rows), static_cast<size_t>(cols));
  }
  void markers(const float* dev_h) {
    if (!sink_->wants("markers")) return;
    const int64_t t = batch_.tokens();
    std::vector<float> host(static_cast<size_t>(t * d_));
    LAYA_CUDA_CHECK(cudaStreamSynchronize(stream_));
    LAYA_CUDA_CHECK(cudaMemcpy(host.data(), dev_h, host.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<float> out(static_cast<size_t>(batch_.total_markers()) * static_cast<size_t>(d_));
    for (int32_t r = 0; r < batch_.rows(); ++r)
      for (int32_t m = batch_.marker_offsets[r]; m < batch_.marker_offsets[r + 1]; ++m) {
        const int64_t tok = batch_.row_offsets[r] + batch_.markers[m];
        std::memcpy(out.data() + static_cast<size_t>(m) * d_, host.data() + tok * d_, static_cast<size_t>(d_) * 4);
      }
    sink_->put("markers", out.data(), static_cast<size_t>(batch_.total_markers()), static_cast<size_t>(d_));
  }
  int64_t tokens() const { return batch_.tokens(); }
  bool wants(const std::string& name) const { return sink_->wants(name); }

 private:
  engine::DumpSink* sink_;
  cudaStream_t stream_;
  const engine::Batch& batch_;
  int32_t d_;
};

class CudaBackendImpl final : public CudaEngine {
 public:
  CudaBackendImpl(const checkpoint::Checkpoint& ckpt, const engine::BackendOptions& options);
  ~CudaBackendImpl() override;

  engine::ForwardResult forward(const engine::Batch& batch, engine::DumpSink* dumps) override;
  engine::BackendInfo info() const override;
  double last_device_ms() const override { return last_device_ms_; }
  void set_device_timing(bool on) override { device_timing_ = on; }
  engine::BatchCapacity capacity() const override {
    return {limits_.max_rows, limits_.max_tokens, limits_.max_markers};
  }

  CudaStats stats() const override {
    CudaStats s = stats_;
    s.cached_shapes = book_.size();
    s.cached_bytes = book_.bytes();
    return s;
  }
  engine::BackendCounters counters() const override {
    engine::BackendCounters c;
    c.graphs = graphs_;
    c.graph_replays = stats_.graph_replays;
    c.graph_captures = stats_.graph_captures;
    c.capture_failures = stats_.capture_failures;
    c.graph_evictions = stats_.evictions;
    c.eager_forwards = stats_.eager_runs;
    c.capture_seconds = stats_.capture_ms / 1e3;
    c.cached_graphs = book_.size();
    return c;
  }
  std::vector<Bucket> cached_buckets() const override { return book_.lru_order(); }
  Bucket bucket_for(const engine::Batch& b) const override {
    return choose_bucket(b.tokens(), b.rows(), b.total_markers(), limits_);
  }
  int64_t graph_cost_bytes() const override { return graph_cost_; }
  const BucketLimits& limits() const override { return limits_; }
  void fail_next_captures(int n) override { fail_captures_ = n; }
  void clear_graphs() override;
  int64_t device_bytes_in_use() const override;

 private:
  void check_usable() const;
  // Whether bucket b runs its last decision layer, after the attention, on the head's rows only:
  // its output is read at each row's first token (act head) and at the markers (scorer) and
  // nowhere else, so the other rows' out_proj, FFN and LayerNorms are dead work. Needs the
  // compact rows (one per row slot and marker slot) to fit the token-sized buffers.
  bool prunes_last_decision_layer(const Bucket& b) const {
    return prune_head_from_ > 0 && b.tokens >= prune_head_from_ && b.row_slots() + b.markers <= b.tokens;
  }
  // Whether the MLP input GEMM of `tokens` rows runs the fused GeGLU GEMM (from geglu_gemm_from_
  // tokens, unless its tiles are a full round and a short one: kGegluGemmMinFillPct).
  bool fuses_geglu(int32_t tokens) const {
    return geglu_gemm_from_ > 0 && tokens >= geglu_gemm_from_ &&
           geglu_gemm_fills_its_rounds(tokens, dims_.inter, sms_, geglu_gemm_min_fill_);
  }
  void record(const Bucket& b, const StagingLayout& l, DumpCtx* dumps);
  template <class Elem>
  void record_as(const Bucket& b, const StagingLayout& l, DumpCtx* dumps);
  void run_eager(const Bucket& b, const StagingLayout& l, DumpCtx* dumps);
  bool capture(const Bucket& b, const StagingLayout& l, cudaGraphExec_t* exec);
  void release() noexcept;
  void warm(const std::string& shapes);
  void warm_every_size();
  void add_warmup_row(engine::Batch& b, int32_t len) const;
  template <class Elem>
  void linear(const GemmArgs<Elem>& g, cudaStream_t s);
  template <class Elem>
  void up_geglu(const Elem* in, const Elem* w, int32_t tokens, int32_t layer, cudaStream_t s);
  L2Prefetch geglu_ahead(int32_t layer, int32_t tokens) const;
  template <class Elem>
  void small_gemm(SmallGemmArgs<Elem> a, cudaStream_t s);
  // Whether the small GEMM takes a call in either layout (small_gemm() picks the wide one up to
  // small_gemm_wide_max_m_ rows, and wherever the narrow one does not take it).
  bool small_takes(int32_t m, int32_t n, int32_t k, SmallGemmForm form, int32_t splits = 1) const {
    return small_gemm_supported(m, n, k, form, splits) || small_gemm_supported(m, n, k, form, splits, true);
  }
  // Whether small_gemm() runs such a call in the wide layout (else, where it takes it, the narrow one).
  bool small_gemm_wide(int32_t m, int32_t n, int32_t k, SmallGemmForm form, int32_t splits = 1) const {
    return small_gemm_supported(m, n, k, form, splits, true) &&
           (m <= small_gemm_wide_max_m_ || !small_gemm_supported(m, n, k, form, splits));
  }

  std::string device_name_;
  int device_ = 0;
  Dims dims_;
  BucketLimits limits_;
  bool graphs_ = true;
  bool eager_only_ = false;  // set while warm_every_size runs: forwards bypass the graph cache
  Precision precision_ = Precision::bf16;
  DeviceWeights w_;
  Workspace ws_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev_start_ = nullptr, ev_stop_ = nullptr;
  std::unique_ptr<Gemm> gemm_;
  int32_t small_gemm_max_m_ = 0;  // encoder GEMMs over at most this many rows use small_gemm (0: never)
  int32_t small_gemm_bias_max_k_ = 0;  // and those with a bias up to this K (PDL scopes, small_tail_)
  int32_t attn_out_splits_ = 0;  // the attention output GEMM's partials on the small GEMM (0: none; attn_out_splits_for)
  int32_t small_mlp_out_splits_ = kSmallMlpOutSplits;  // the MLP output GEMM's there
  bool rope_in_gemm_ = kRopeInQkvGemm;  // q and k rotated in the small QKV GEMM's epilogue
  bool decision_parts_ = kDecisionParts;      // the decision layers' output GEMMs as partials there
  int32_t small_gemm_wide_max_m_ = 0;  // in its wide layout up to this many rows, where the shape allows
  int32_t rotate_k_once_above_ = kRotateKOnceTokens;
  int32_t sms_ = 1;                // the GPU's SM count
  int32_t attn_split_max_ = 4;     // attention key groups per block at most (attention_key_split)
  int32_t attn_local_split_max_ = kAttnLocalSplitMax;  // key groups in windowed layers at most
  int32_t act_gemm_from_ = kActGemmFromRows;  // the act head's first linear as a GEMM from this many row slots
  int32_t rotate_k_once_global_row_ = kRotateKOnceGlobalRowTokens;  // rotates_k_once's global rule
  bool zero_tail_ = true;          // the padding tail row gets a zero attention output (AttentionParams::zero_row)
  int32_t attn_wgmma_from_ = 0;    // buckets of at least this many tokens run attention on wgmma (0: never)
  int32_t attn_five_from_ = 0;     // buckets of at least this many tokens: five attention blocks per SM (0: never)
  int32_t geglu_prefetch_ = kGegluPrefetch;  // what the GeGLU pass sends to L2 (kGegluPrefetch's bits)
  int32_t geglu_prefetch_ktiles_ = kGegluPrefetchKtiles;
  int32_t attn_one_block_ = kAttnOneBlock;  // attention one block per SM: 0 never, 1 the rule, 2 above small buckets
  int32_t partials_max_rows_ = 0;  // MLP output GEMMs of at most this many rows run as partials (0: never)
  int32_t geglu_gemm_from_ = 0;    // MLP input GEMMs of at least this many rows fuse GeGLU (0: never)
  int32_t geglu_gemm_min_fill_ = 0;  // ... where geglu_gemm_fills_its_rounds (percent of the SMs)
  bool geglu_skip_past_m_ = true;    // GegluGemmArgs::skip_rows_past_m
  int32_t residual_from_ = 0;      // output GEMMs of at least this many rows add into x (0: never)
  int32_t lean_add_ln_from_ = kLeanAddLnFromRows;  // add+LNs without partials run lean from this many tokens
  SingleCtaClusterRule cluster_rule_;             // the cuBLASLt GEMMs run without a thread-block cluster
  int32_t pdl_all_from_ = 0;       // buckets of pdl_all_from_ to pdl_all_to_ tokens: every own launch
  int32_t pdl_all_to_ = 0;         // programmatic (pdl_all_from_ 0: never)
  int32_t prune_head_from_ = 0;    // buckets of at least this many tokens prune the last decision layer (0: never)
  bool bus_io_ = kBusIo;           // inputs read and outputs written over the bus by kernels, not memcpy nodes
  bool gemm_memset_kernels_ = kGemmMemsetKernels;  // captured graphs: cuBLASLt's memsets as own kernels
  bool gelu_table_ = kGeluTable;   // bf16: geglu_kernel's GELU from the table (else computed; the same bits)
  bool small_tail_ = kSmallTail;   // outside the PDL scopes too, bias GEMMs of <= 128 rows on the small GEMM
  int32_t narrow_carveout_ = kNarrowCarveout;  // the narrow-layout buckets' preferred carveout (-1: none)
  GraphCacheBook book_;
  std::unordered_map<Bucket, cudaGraphExec_t, BucketHash> graphs_by_bucket_;
  int64_t graph_cost_ = 0;
  int fail_captures_ = 0;
  CudaStats stats_;
  double last_device_ms_ = -1.0;
  bool device_timing_ = false;  // forward() brackets its work with ev_start_ / ev_stop_
  bool failed_ = false;
  std::string failure_;
  int64_t mem_baseline_ = 0;
  int64_t total_mem_ = 0;
};

CudaBackendImpl::CudaBackendImpl(const checkpoint::Checkpoint& ckpt, const engine::BackendOptions& options)
    : book_(options.graph_cache_shapes, options.graph_cache_bytes, options.graph_admit_after, options.graph_max_tokens) {
  const auto& cfg = ckpt.config();
  // 1. Options and model dims the kernels support — nothing touches the GPU before these pass.
  LAYA_REQUIRE(options.execution == "eager" || options.execution == "graph", ErrorKind::bad_request,
               "--execution must be eager or graph (got '{}')", options.execution);
  precision_ = resolve_precision(options.precision, cfg.agent.amp_dtype);
  graphs_ = options.execution == "graph";
  dims_.d = cfg.encoder.hidden;
  dims_.heads = cfg.encoder.heads;
  dims_.inter = cfg.encoder.intermediate;
  dims_.ffn = cfg.head.ffn;
  dims_.act_hidden = cfg.head.act_hidden;
  dims_.n_act = cfg.head.n_act;
  dims_.vocab = cfg.encoder.vocab_size;
  dims_.local_half = cfg.encoder.local_window / 2;
  dims_.eps = static_cast<float>(cfg.encoder.norm_eps);
  dims_.max_row_len = cfg.agent.max_len;
  LAYA_REQUIRE(dims_.d % 64 == 0 && dims_.d >= 64 && dims_.d <= kMaxHidden && dims_.heads * 64 == dims_.d &&
                   cfg.encoder.head_dim == 64,
               ErrorKind::invalid_checkpoint,
               "CUDA kernels need hidden size = heads x 64 <= {} (checkpoint: hidden {}, {} heads, head_dim {})",
               kMaxHidden, dims_.d, dims_.heads, cfg.encoder.head_dim);
  LAYA_REQUIRE(cfg.head.heads * 64 == dims_.d, ErrorKind::invalid_checkpoint,
               "CUDA kernels need decision-layer head_dim 64 (hidden {}, {} heads)", dims_.d, cfg.head.heads);
  LAYA_REQUIRE(dims_.inter % 8 == 0 && dims_.ffn % 8 == 0 && dims_.act_hidden > 0 && dims_.n_act > 0,
               ErrorKind::invalid_checkpoint, "CUDA kernels need intermediate ({}) and ffn ({}) multiples of 8",
               dims_.inter, dims_.ffn);
  LAYA_REQUIRE(dims_.max_row_len >= 1, ErrorKind::invalid_checkpoint, "max_len must be >= 1");
  LAYA_REQUIRE(options.max_rows >= 1 && options.max_rows <= kMaxRowsLimit, ErrorKind::bad_request,
               "rows per forward must be 1..{} (got {})", kMaxRowsLimit, options.max_rows);
  limits_.max_rows = options.max_rows;
  limits_.max_tokens = workspace_max_tokens(dims_.max_row_len, options.max_tokens);
  limits_.max_markers = 4096;

  // 2. The device: index, compute capability vs compiled kernels, free memory.
  int count = 0;
  const cudaError_t cerr = cudaGetDeviceCount(&count);
  LAYA_REQUIRE(cerr == cudaSuccess && count > 0, ErrorKind::unavailable, "no usable CUDA GPU: {}",
               cerr == cudaSuccess ? std::string("no device found") : std::string(cudaGetErrorString(cerr)));
  LAYA_REQUIRE(options.device >= 0 && options.device < count, ErrorKind::bad_request,
               "--device {} does not exist ({} CUDA GPU(s) visible: 0..{})", options.device, count, count - 1);
  device_ = options.device;
  LAYA_CUDA_CHECK(cudaSetDevice(device_));
  cudaDeviceProp prop{};
  LAYA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
  device_name_ = fmt::format("{} (sm_{}{}, {} SMs) #{}", prop.name, prop.major, prop.minor, prop.multiProcessorCount,
                             device_);
  sms_ = prop.multiProcessorCount;
  std::string why;
  LAYA_REQUIRE(kernels_runnable_on_current_device(&why), ErrorKind::unavailable,
               "GPU {} (compute capability {}.{}) is not supported by this binary's kernels (built for {}): {}",
               prop.name, prop.major, prop.minor, compiled_architectures(), why);
  const KernelImage image = current_kernel_image();
  if (prop.major == 9 && !image.sm90a)
    spdlog::warn("cuda: {} runs {}: this binary has no sm_90a kernels (built for {}), so the Hopper ones are off "
                 "(build with CMAKE_CUDA_ARCHITECTURES=90a-real for them)",
                 prop.name, describe_kernel_image(image), compiled_architectures());
  else
    spdlog::info("cuda: {} runs {}", prop.name, describe_kernel_image(image));
  size_t free_b = 0, total_b = 0;
  LAYA_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  total_mem_ = static_cast<int64_t>(total_b);
  mem_baseline_ = static_cast<int64_t>(total_b - free_b);

  const int32_t rope_len = dims_.max_row_len;
  const int64_t weight_bytes = device_weight_bytes(ckpt, rope_len);
  const Bucket max_b{limits_.max_tokens, limits_.max_rows, limits_.max_markers};
  const StagingLayout max_l = StagingLayout::for_bucket(max_b);
  const int64_t T = limits_.max_tokens, K = limits_.max_markers, S = max_b.row_slots(), d = dims_.d;
  const int64_t up_cols = std::max<int64_t>(2 * dims_.inter, dims_.ffn);
  attn_out_splits_ =
      std::clamp(env_int("LAYA_CUDA_ATTN_OUT_SPLITS", attn_out_splits_for(dims_.d)), 0, int32_t{kMaxAddParts});
  decision_parts_ = env_int("LAYA_CUDA_DECISION_PARTS", kDecisionParts ? 1 : 0) != 0;
  small_mlp_out_splits_ =
      std::clamp(env_int("LAYA_CUDA_SMALL_MLP_OUT_SPLITS", kSmallMlpOutSplits), 1, int32_t{kMaxAddParts});
  // The rope form rotates one 64-dim head per CTA: the attention kernel's head size.
  rope_in_gemm_ = dims_.d == dims_.heads * 64 && env_int("LAYA_CUDA_ROPE_IN_GEMM", kRopeInQkvGemm ? 1 : 0) != 0;
  // The partials need K = intermediate to split in multiples of 8 (true for every shipped size).
  partials_max_rows_ = dims_.inter % (kMlpOutSplits * 8) == 0
                           ? std::clamp<int32_t>(env_int("LAYA_CUDA_PARTIALS_MAX_M", kPartialsMaxRows), 0, 1024)
                           : 0;
  // The residual GEMMs' timed candidates write to ws_.up, which must hold [T, d] floats.
  residual_from_ = up_cols >= 2 * d ? std::max(0, env_int("LAYA_CUDA_RESIDUAL_GEMM_FROM", kResidualGemmFromRows)) : 0;
  lean_add_ln_from_ = std::max(1, env_int("LAYA_CUDA_LEAN_ADD_LN_FROM", kLeanAddLnFromRows));
  cluster_rule_ = single_cta_cluster_rule(dims_);
  pdl_all_from_ = std::max(0, env_int("LAYA_CUDA_PDL_ALL_FROM", kPdlAllEdgesFromTokens));
  pdl_all_to_ = std::max(0, env_int("LAYA_CUDA_PDL_ALL_TO", kPdlAllEdgesToTokens));
  // The pruned layer's compact attention rows live in ws_.g ([T, intermediate] elements).
  prune_head_from_ = dims_.inter >= d ? std::max(0, env_int("LAYA_CUDA_PRUNE_HEAD_FROM", kPruneHeadFromTokens)) : 0;
  geglu_gemm_from_ = geglu_gemm_supported(dims_.d, dims_.inter)
                        ? std::max(0, env_int("LAYA_CUDA_GEGLU_GEMM_FROM", kGegluGemmFromRows))
                        : 0;
  geglu_gemm_min_fill_ = std::clamp(env_int("LAYA_CUDA_GEGLU_GEMM_MIN_FILL", kGegluGemmMinFillPct), 0, 100);
  geglu_skip_past_m_ = env_int("LAYA_CUDA_GEGLU_SKIP_PAST_M", 1) != 0;
  struct Part {
    void** ptr;
    int64_t bytes;
  };
  std::vector<Part> parts = {
      {reinterpret_cast<void**>(&ws_.x), T * d * 4},
      {reinterpret_cast<void**>(&ws_.h), T * d * 4},
      {reinterpret_cast<void**>(&ws_.y), T * d * 2},
      {reinterpret_cast<void**>(&ws_.qkv), T * 3 * d * 2},
      {reinterpret_cast<void**>(&ws_.att), T * d * 2},
      {reinterpret_cast<void**>(&ws_.proj), T * d * 2},
      {reinterpret_cast<void**>(&ws_.up), T * up_cols * 2},
      {reinterpret_cast<void**>(&ws_.g), T * dims_.inter * 2},
      {reinterpret_cast<void**>(&ws_.my), K * d * 2},
      {reinterpret_cast<void**>(&ws_.mh), K * d * 2},
      {reinterpret_cast<void**>(&ws_.logits), K * 2},
      {reinterpret_cast<void**>(&ws_.act_in), S * (d + 4) * 2},
      {reinterpret_cast<void**>(&ws_.act_h), S * dims_.act_hidden * 2},
      {reinterpret_cast<void**>(&ws_.act), S * dims_.n_act * 2},
      {reinterpret_cast<void**>(&ws_.in), max_l.bytes()},
      {reinterpret_cast<void**>(&ws_.out), (K + S * dims_.n_act) * 4},
      {reinterpret_cast<void**>(&ws_.parts), int64_t{kMaxAddParts} * std::max(partials_max_rows_, 1) * d * 4},
      {&ws_.gemm_ws, static_cast<int64_t>(kGemmWorkspace)},
      {reinterpret_cast<void**>(&ws_.gelu_lut), int64_t{kGeluLutBytes}},
      {reinterpret_cast<void**>(&ws_.gelu_all), int64_t{kGeluAllBytes}},
  };
  int64_t ws_bytes = 0;
  for (const auto& p : parts) ws_bytes += align256(p.bytes);
  const int64_t need = weight_bytes + ws_bytes + kMemoryMargin;
  LAYA_REQUIRE(static_cast<int64_t>(free_b) >= need, ErrorKind::unavailable,
               "GPU {} has {} MiB free; the CUDA engine needs {} MiB (weights {} MiB, workspace {} MiB for {} tokens, "
               "margin {} MiB)",
               device_, free_b >> 20, need >> 20, weight_bytes >> 20, ws_bytes >> 20, limits_.max_tokens,
               kMemoryMargin >> 20);

  // 3. Allocate and upload; any failure releases everything (nothing half-loaded).
  try {
    LAYA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    LAYA_CUDA_CHECK(cudaEventCreate(&ev_start_));
    LAYA_CUDA_CHECK(cudaEventCreate(&ev_stop_));
    w_ = upload_weights(ckpt, rope_len, precision_);
    LAYA_CUDA_CHECK(cudaMalloc(&ws_.block, static_cast<size_t>(ws_bytes)));
    ws_.bytes = ws_bytes;
    int64_t at = 0;
    for (const auto& p : parts) {
      *p.ptr = static_cast<std::byte*>(ws_.block) + at;
      at += align256(p.bytes);
    }
    ws_.host_in_elems = max_l.total;
    ws_.host_out_elems = K + S * dims_.n_act;
    LAYA_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ws_.host_in), static_cast<size_t>(max_l.bytes())));
    LAYA_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ws_.host_out), static_cast<size_t>(ws_.host_out_elems) * 4));
    LAYA_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&ws_.host_in_dev), ws_.host_in, 0));
    LAYA_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&ws_.host_out_dev), ws_.host_out, 0));
    bus_io_ = env_int("LAYA_CUDA_BUS_IO", kBusIo ? 1 : 0) != 0;
    // The stand-in kernel hangs on a programmatic edge: kernels that wait on it, compiled for sm_90
    // or later (kernel_image_waits_for_pdl; such an image loads on compute capability 9.0+ only).
    gemm_memset_kernels_ =
        kernel_image_waits_for_pdl() && env_int("LAYA_CUDA_GEMM_MEMSET_KERNELS", kGemmMemsetKernels ? 1 : 0) != 0;
    narrow_carveout_ = std::clamp(env_int("LAYA_CUDA_NARROW_CARVEOUT", kNarrowCarveout), -1, 100);
    // Finite, known contents everywhere (the padding tail reads ids of the staging block).
    LAYA_CUDA_CHECK(cudaMemset(ws_.block, 0, static_cast<size_t>(ws_bytes)));
    launch_fill_gelu_lut(ws_.gelu_lut, nullptr);  // after the memset (the legacy stream); synchronised below
    launch_fill_gelu_all(ws_.gelu_all, nullptr);
    gelu_table_ = precision_ == Precision::bf16 && env_int("LAYA_CUDA_GELU_TABLE", kGeluTable ? 1 : 0) != 0;
    gemm_ = std::make_unique<Gemm>(ws_.gemm_ws, kGemmWorkspace, tune_from_rows(), cluster_rule_);
    small_gemm_max_m_ = small_gemm_supported(1, dims_.d, dims_.d, SmallGemmForm::plain)
                            ? std::clamp<int32_t>(env_int("LAYA_CUDA_SMALL_GEMM_MAX_M", kSmallGemmMaxRows), 0, 128)
                            : 0;
    small_gemm_bias_max_k_ = std::max(0, env_int("LAYA_CUDA_SMALL_GEMM_BIAS", kSmallGemmBiasMaxK));
    small_tail_ = env_int("LAYA_CUDA_SMALL_TAIL", kSmallTail ? 1 : 0) != 0;
    small_gemm_wide_max_m_ = std::max(0, env_int("LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M", small_gemm_wide_max_rows(dims_.d)));
    rotate_k_once_above_ = env_int("LAYA_CUDA_ROPE_ONCE_FROM", kRotateKOnceTokens);
    attn_split_max_ = std::clamp(env_int("LAYA_CUDA_ATTN_SPLIT_MAX", 4), 1, 4);
    attn_local_split_max_ = std::clamp(env_int("LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX", kAttnLocalSplitMax), 1, 4);
    if (attn_local_split_max_ == 3) attn_local_split_max_ = 2;  // 1, 2 or 4 groups
    act_gemm_from_ = std::max(0, env_int("LAYA_CUDA_ACT_GEMM_FROM", kActGemmFromRows));
    rotate_k_once_global_row_ = std::max(0, env_int("LAYA_CUDA_ROPE_ONCE_GLOBAL_ROW", kRotateKOnceGlobalRowTokens));
    zero_tail_ = env_int("LAYA_CUDA_ATTN_ZERO_TAIL", 1) != 0;
    attn_wgmma_from_ =
        attention_wgmma_supported() ? std::max(0, env_int("LAYA_CUDA_ATTN_WGMMA_FROM", kAttnWgmmaFromTokens)) : 0;
    attn_five_from_ = std::max(0, env_int("LAYA_CUDA_ATTN_FIVE_BLOCKS_FROM", kAttnFiveBlocksFromTokens));
    attn_one_block_ = std::clamp(env_int("LAYA_CUDA_ATTN_ONE_BLOCK", kAttnOneBlock), 0, 2);
    geglu_prefetch_ = std::clamp(env_int("LAYA_CUDA_GEGLU_PREFETCH", kGegluPrefetch), 0, 127);
    geglu_prefetch_ktiles_ = std::clamp(env_int("LAYA_CUDA_GEGLU_PREFETCH_KTILES", kGegluPrefetchKtiles), 0, 8);
    LAYA_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (...) {
    release();
    throw;
  }
  // One graph holds ~10 nodes per encoder layer and ~8 per decision layer; the exec's device
  // footprint is small and shares the workspace, so its budget cost is a fixed estimate.
  const int64_t nodes = 12 + 10 * static_cast<int64_t>(w_.layers.size()) + 8 * static_cast<int64_t>(w_.head.size());
  graph_cost_ = (int64_t{64} << 10) + nodes * (int64_t{2} << 10);
  spdlog::info(
      "cuda: {} ready: {} weights {} MiB, workspace {} MiB ({} tokens, {} rows, {} markers), {} execution, "
      "MLP-out partials up to {} rows (on the small GEMM {} parts, attention-out {}, decision output GEMMs {}), RoPE "
      "in the small GEMM's QKV epilogue {}, small GEMM {}, GeGLU fused into the MLP-in GEMM {}, residual added by the "
      "output GEMMs {}, lean add+LNs from {} tokens, cuBLASLt GEMMs without clusters {}, attention on wgmma {}, "
      "last decision layer on the head's rows {}, inputs and outputs {}, programmatic launches {}",
      device_name_, precision_name(precision_), w_.bytes >> 20, ws_bytes >> 20, limits_.max_tokens, limits_.max_rows,
      limits_.max_markers, options.execution, partials_max_rows_, small_mlp_out_splits_, attn_out_splits_,
      decision_parts_ ? "as partials" : "whole", rope_in_gemm_ ? "on" : "off",
      small_gemm_max_m_ > 0
          ? fmt::format("up to {} tokens, with PDL{}, wide layout up to {} tokens{}", small_gemm_max_m_,
                        small_gemm_bias_max_k_ > 0 ? fmt::format(", bias GEMMs of K <= {} too", small_gemm_bias_max_k_)
                                                   : std::string(),
                        small_gemm_wide_max_m_,
                        narrow_carveout_ >= 0 ? fmt::format(" (narrow layout's buckets: carveout {} %)", narrow_carveout_)
                                              : std::string())
          : std::string("off"),
      geglu_gemm_from_ > 0
          ? fmt::format("from {} tokens{}", geglu_gemm_from_,
                        geglu_gemm_min_fill_ > 0
                            ? fmt::format(" unless its tiles are one round and < {} % of another", geglu_gemm_min_fill_)
                            : std::string())
          : std::string("never"),
      residual_from_ > 0 ? fmt::format("from {} tokens", residual_from_) : std::string("never"), lean_add_ln_from_,
      cluster_rule_.to_string(),
      attn_wgmma_from_ > 0 ? fmt::format("from {} tokens", attn_wgmma_from_) : std::string("never"),
      prune_head_from_ == 1  ? std::string("in every bucket where they fit")
      : prune_head_from_ > 0 ? fmt::format("from {} tokens", prune_head_from_)
                             : std::string("never"),
      bus_io_ ? "over the bus by kernels" : "by memcpy nodes",
      fmt::format("for every own kernel up to {} tokens{}, {} elsewhere", small_gemm_max_m_,
                  pdl_all_from_ > 0 ? fmt::format(" and from {} to {}", pdl_all_from_, pdl_all_to_) : std::string(),
                  pdl_own_edges_from_env() ? "after an own kernel" : "none"));
  try {
    warm(options.warmup_shapes);
  } catch (...) {
    release();
    throw;
  }
}

CudaBackendImpl::~CudaBackendImpl() { release(); }

void CudaBackendImpl::release() noexcept {
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  for (auto& [b, exec] : graphs_by_bucket_) cudaGraphExecDestroy(exec);
  graphs_by_bucket_.clear();
  book_.clear();
  gemm_.reset();
  if (ws_.host_in != nullptr) cudaFreeHost(ws_.host_in);
  if (ws_.host_out != nullptr) cudaFreeHost(ws_.host_out);
  if (ws_.block != nullptr) cudaFree(ws_.block);
  ws_ = Workspace{};
  free_weights(w_);
  if (ev_start_ != nullptr) cudaEventDestroy(ev_start_);
  if (ev_stop_ != nullptr) cudaEventDestroy(ev_stop_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  ev_start_ = ev_stop_ = nullptr;
  stream_ = nullptr;
}

// A bucket size's first forward costs 3 ms (capture) to 150 ms (cuBLASLt's kernels for a new GEMM
// row count loaded on first launch; the GEMM timing from kTuneFromRows rows) more than the next
// (docs/benchmarks/cuda.md item 97). "auto" pays that at start-up for every size: one eager
// forward per bucket token count, in rows of max_len tokens, outside the graph cache.
void CudaBackendImpl::warm_every_size() {
  const auto t0 = std::chrono::steady_clock::now();
  eager_only_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{eager_only_};
  const std::vector<int32_t> counts = bucket_token_counts(limits_);
  for (const int32_t tokens : counts) {
    engine::Batch b;
    for (int32_t first = 0; first < tokens; first += dims_.max_row_len)
      add_warmup_row(b, std::min(dims_.max_row_len, tokens - first));
    forward(b, nullptr);
  }
  spdlog::info("cuda: warmed {} bucket sizes ({}..{} tokens) in {:.2f} s", counts.size(), counts.front(), counts.back(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

void CudaBackendImpl::warm(const std::string& shapes) {
  if (shapes == "none") return;
  if (shapes == "auto") return warm_every_size();
  for (const auto& [rows, len] : parse_shapes(shapes)) {
    LAYA_REQUIRE(len <= dims_.max_row_len && rows <= limits_.max_rows && rows * len <= limits_.max_tokens,
                 ErrorKind::bad_request, "warm-up shape {}x{} exceeds the engine's limits", rows, len);
    engine::Batch b;
    for (int32_t r = 0; r < rows; ++r) add_warmup_row(b, len);
    // A listed shape is captured now: its misses before admission run first (eager).
    for (int64_t i = 0; i < (graphs_ ? book_.admit_after() : 1); ++i) forward(b, nullptr);
  }
}

// A synthetic row of len tokens for the warm-ups (only its shape matters): up to 4 markers, the
// qtypes cycling through choice, score and noul.
void CudaBackendImpl::add_warmup_row(engine::Batch& b, int32_t len) const {
  const int32_t r = b.rows();
  std::vector<int32_t> ids(static_cast<size_t>(len));
  for (int32_t i = 0; i < len; ++i) ids[static_cast<size_t>(i)] = (r * 131 + i * 7 + 1) % dims_.vocab;
  std::vector<int32_t> marks;
  for (int32_t m = 0; m < std::min(len, 4); ++m) marks.push_back(m);
  b.add_row(ids, marks, r % 3);
}

void CudaBackendImpl::clear_graphs() {
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  for (auto& [b, exec] : graphs_by_bucket_) cudaGraphExecDestroy(exec);
  graphs_by_bucket_.clear();
  book_.clear();
}

int64_t CudaBackendImpl::device_bytes_in_use() const {
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return -1;
  return static_cast<int64_t>(total_b - free_b) - mem_baseline_;
}

engine::BackendInfo CudaBackendImpl::info() const {
  engine::BackendInfo i;
  i.backend = "cuda";
  i.device = device_name_;
  i.precision = precision_name(precision_);
  i.weight_bytes = w_.bytes;
  i.device_memory_used = device_bytes_in_use();
  return i;
}

void CudaBackendImpl::check_usable() const {
  LAYA_REQUIRE(!failed_, ErrorKind::unavailable, "CUDA engine failed earlier and cannot run: {}", failure_);
}

// The token count of the bucket decides the path, so every execution mode of a bucket runs the
// same kernels (bitwise-identical results).
template <class Elem>
void CudaBackendImpl::linear(const GemmArgs<Elem>& g, cudaStream_t s) {
  // The encoder's GEMMs of small buckets (m = the bucket's tokens) and the GEMMs with a bias over as
  // few rows and a short enough K: in the PDL scopes, and elsewhere with kSmallTail (the pruned
  // layer's head rows, the scorer's first linear).
  const bool small = g.m <= small_gemm_max_m_ &&
                     (g.bias == nullptr || (g.k <= small_gemm_bias_max_k_ && (pdl_enabled() || small_tail_)));
  if (small && small_takes(g.m, g.n, g.k, SmallGemmForm::plain)) {
    SmallGemmArgs<Elem> a{g.in, g.w, g.out, g.m, g.n, g.k};
    a.bias = g.bias;
    a.relu = g.relu;
    small_gemm(a, s);
    return;
  }
  gemm_->run(g, s);
}

template <class Elem>
void CudaBackendImpl::small_gemm(SmallGemmArgs<Elem> a, cudaStream_t s) {
  a.wide = small_gemm_wide(a.m, a.n, a.k, a.form, a.splits);
  launch_small_gemm(a, s);
}

// ws_.g = GeGLU(in . Wi^T): small buckets one small_gemm kernel with GeGLU in its epilogue, large
// ones the fused GeGLU GEMM, else the cuBLASLt GEMM into ws_.up and geglu_kernel, which also sends
// layer `layer`'s L2 prefetch plan (geglu_ahead).
template <class Elem>
void CudaBackendImpl::up_geglu(const Elem* in, const Elem* w, int32_t tokens, int32_t layer, cudaStream_t s) {
  Elem* up = static_cast<Elem*>(ws_.up);
  Elem* g = static_cast<Elem*>(ws_.g);
  if (tokens <= small_gemm_max_m_ && small_takes(tokens, dims_.inter, dims_.d, SmallGemmForm::geglu)) {
    small_gemm(SmallGemmArgs<Elem>{in, w, g, tokens, dims_.inter, dims_.d, SmallGemmForm::geglu}, s);
    return;
  }
  if (fuses_geglu(tokens)) {
    GegluGemmArgs<Elem> ga{in, w, g, tokens, dims_.d, dims_.inter};
    ga.skip_rows_past_m = geglu_skip_past_m_;
    ga.gelu_all = ws_.gelu_all;
    launch_geglu_gemm(ga, s);
    return;
  }
  gemm_->run(GemmArgs<Elem>{in, w, nullptr, up, tokens, 2 * dims_.inter, dims_.d, false}, s);
  GegluParams<Elem> gp{up, g, tokens, dims_.inter};
  if (gelu_table_) gp.gelu_lut = ws_.gelu_lut;
  launch_geglu(gp, s, geglu_ahead(layer, tokens));  // the plan only where the pass runs
}

// What layer `layer`'s GeGLU pass sends to L2 for the kernels after it (kGegluPrefetch): at most
// eight spans (kMaxL2Spans) of ≈ 22 k lines, far below the plan's bound.
L2Prefetch CudaBackendImpl::geglu_ahead(int32_t layer, int32_t tokens) const {
  L2Prefetch ahead;
  const int32_t bits = geglu_prefetch_, kt = geglu_prefetch_ktiles_, d = dims_.d;
  const auto& lw = w_.layers[static_cast<size_t>(layer)];
  const bool last = static_cast<size_t>(layer) + 1 == w_.layers.size();
  const DeviceEncoderLayer* next = last ? nullptr : &w_.layers[static_cast<size_t>(layer) + 1];
  // A GEMM's W is [N, K] of 16-bit values: its first k-tiles are the first kt lines of each row
  // (fewer where K is shorter).
  const auto first_ktiles = [&](const void* w, int32_t n, int32_t k) {
    ahead.add(w, n, std::min(kt, k * 2 / 128), int64_t{k} * 2);
  };
  if (bits & 1) first_ktiles(lw.mlp_wo, d, dims_.inter);
  if (bits & 2) ahead.add_bytes(last ? w_.final_norm : next->attn_norm, int64_t{d} * 4);
  if (next == nullptr) return ahead;
  if (bits & 4) first_ktiles(next->wqkv, 3 * d, d);
  if (bits & 8) {
    const int64_t table = int64_t{std::min(tokens, w_.rope_len)} * 32 * 4;  // the positions a bucket's rows reach
    ahead.add_bytes(next->global ? w_.rope_global_cos : w_.rope_local_cos, table);
    ahead.add_bytes(next->global ? w_.rope_global_sin : w_.rope_local_sin, table);
  }
  if (bits & 16) ahead.add_bytes(next->mlp_norm, int64_t{d} * 4);
  if (bits & 32) first_ktiles(next->wo, d, d);
  if (bits & 64) first_ktiles(next->wi, 2 * dims_.inter, d);
  return ahead;
}

void CudaBackendImpl::record(const Bucket& b, const StagingLayout& l, DumpCtx* dumps) {
  if (precision_ == Precision::fp16)
    record_as<__half>(b, l, dumps);
  else
    record_as<__nv_bfloat16>(b, l, dumps);
}

// The whole forward on the stream, in the precision mode's 16-bit type Elem.
template <class Elem>
void CudaBackendImpl::record_as(const Bucket& b, const StagingLayout& l, DumpCtx* dumps) {
  const int32_t T = b.tokens, S = b.row_slots(), K = b.markers, d = dims_.d;
  cudaStream_t s = stream_;
  // Small buckets' GEMMs wait on programmatic edges (small_gemm, `linear`), and buckets of
  // 1,536-4,096 tokens gain from programmatic edges out of cuBLASLt's kernels: there every own kernel
  // is chained (cuBLASLt's kernels are launched without the attribute: plain edges into them).
  // Elsewhere only own -> own edges are programmatic (pdl_for_next_launch). Buckets whose GEMMs run
  // the small GEMM's narrow layout prefer the kNarrowCarveout carveout.
  const bool narrow = T <= small_gemm_max_m_ && small_takes(T, d, d, SmallGemmForm::plain) &&
                      !small_gemm_wide(T, d, d, SmallGemmForm::plain);
  const bool all_edges = pdl_all_from_ > 0 && T >= pdl_all_from_ && T <= pdl_all_to_;
  const PdlScope pdl(T <= small_gemm_max_m_ || all_edges, narrow ? narrow_carveout_ : -1);
  pdl_last_launch_own() = false;  // the forward's first kernel has no own kernel before it
  const int32_t* ids = ws_.in + l.ids;
  const int32_t* pos = ws_.in + l.pos;
  const int32_t* tok_row = ws_.in + l.tok_row;
  const int32_t* row_off = ws_.in + l.row_offsets;
  const int32_t* qtypes = ws_.in + l.qtypes;
  const int32_t* mark_off = ws_.in + l.marker_offsets;
  const int32_t* mark_tok = ws_.in + l.marker_tok;
  const int32_t* tiles = ws_.in + l.tiles;
  const int64_t dump_rows = dumps != nullptr ? dumps->tokens() : 0;
  // The workspace's 16-bit buffers, typed.
  Elem *y_ = static_cast<Elem*>(ws_.y), *qkv_ = static_cast<Elem*>(ws_.qkv), *att_ = static_cast<Elem*>(ws_.att);
  Elem *proj_ = static_cast<Elem*>(ws_.proj), *up_ = static_cast<Elem*>(ws_.up), *g_ = static_cast<Elem*>(ws_.g);
  Elem *my_ = static_cast<Elem*>(ws_.my), *mh_ = static_cast<Elem*>(ws_.mh), *logits_ = static_cast<Elem*>(ws_.logits);
  Elem *act_in_ = static_cast<Elem*>(ws_.act_in), *act_h_ = static_cast<Elem*>(ws_.act_h), *act_ = static_cast<Elem*>(ws_.act);

  // The staging block in; the outputs go out the same way at the end (kBusIo).
  if (bus_io_)
    launch_copy_from_host(ws_.host_in_dev, ws_.in, l.total, s);
  else
    LAYA_CUDA_CHECK(cudaMemcpyAsync(ws_.in, ws_.host_in, static_cast<size_t>(l.bytes()), cudaMemcpyHostToDevice, s));
  float* out = bus_io_ ? ws_.host_out_dev : ws_.out;  // the float logits, then the action logits

  EmbedLnParams<Elem> e;
  e.ids = ids;
  e.table = w_.tok_emb;
  e.weight = w_.emb_norm;
  e.x = ws_.x;
  e.y = y_;
  e.tokens = T;
  e.d = d;
  e.vocab = dims_.vocab;
  e.eps = dims_.eps;
  launch_embed_ln(e, s);
  if (dumps) dumps->f32("embed", ws_.x, dump_rows, d);

  AttentionParams<Elem> ap;
  ap.qkv = qkv_;
  ap.out = att_;
  ap.tiles = tiles;
  ap.tile_capacity = static_cast<int32_t>(l.tile_capacity);
  ap.heads = dims_.heads;
  ap.scale = 0.125f;
  ap.query_tile = attention_query_tile(b);
  ap.key_split = attention_key_split(b, dims_.heads, sms_, dims_.max_row_len, attn_split_max_);
  ap.zero_row = zero_tail_ ? b.rows : -1;  // the padding tail row's slot (staging.h)
  ap.wgmma = attn_wgmma_from_ > 0 && T >= attn_wgmma_from_;
  // One attention block per SM (kAttnOneBlock; the wgmma form, where it was measured): where the
  // grid has more blocks than SMs but the working ones — the query tiles of rows of equal length,
  // the rest of the tile table exits at once — fit on the SMs one each.
  const int64_t grid_blocks = int64_t{ap.tile_capacity} * dims_.heads;
  const int64_t working_blocks = int64_t{b.rows} * ((T / b.rows + 63) / 64) * dims_.heads;
  const bool one_block_bucket = ap.wgmma && T > small_gemm_max_m_;
  auto one_block_for = [&](int32_t key_split) {
    return one_block_bucket && (attn_one_block_ == 2 || (attn_one_block_ == 1 && key_split < 4 && grid_blocks > sms_ &&
                                                         working_blocks <= sms_));
  };
  ap.one_block_per_sm = one_block_for(ap.key_split);
  // The RoPE rows are sent to L2 while the kernel before attention finishes: only where that kernel
  // is an own GEMM that lets attention launch early (small buckets; cuBLASLt's kernels do not,
  // docs/benchmarks/cuda.md item 110, and unhidden the prefetches cost, item 106).
  // Where the QKV GEMM rotates q and k itself attention reads no RoPE rows.
  const bool rope_in_qkv = rope_in_gemm_ && T <= small_gemm_max_m_ && small_takes(T, 3 * d, d, SmallGemmForm::rope);
  ap.prefetch_rope = pdl_enabled() && T <= small_gemm_max_m_ && !rope_in_qkv;

  const int32_t L = static_cast<int32_t>(w_.layers.size());
  for (int32_t i = 0; i < L; ++i) {
    const auto& lw = w_.layers[static_cast<size_t>(i)];
    // RoPE: where the QKV GEMM runs on the small GEMM (either layout), it rotates q and k in its
    // epilogue (the rope form, kRopeInQkvGemm). Elsewhere q is rotated inside the attention
    // kernel's loads, k too up to kRotateKOnceTokens tokens (each K tile is read by few query tiles
    // there: fusing saves a launch); above, a K tile may be read by many query tiles, so k is
    // rotated once, in place, by one vectorised pass. All give bitwise the same result (same fp32
    // arithmetic), and the choice depends on the bucket only, so every execution mode takes the
    // same path.
    const float* rope_cos = lw.global ? w_.rope_global_cos : w_.rope_local_cos;
    const float* rope_sin = lw.global ? w_.rope_global_sin : w_.rope_local_sin;
    if (rope_in_qkv) {
      SmallGemmArgs<Elem> qa{y_, as<Elem>(lw.wqkv), qkv_, T, 3 * d, d, SmallGemmForm::rope};
      qa.rope_pos = pos;
      qa.rope_cos = rope_cos;
      qa.rope_sin = rope_sin;
      qa.rope_len = w_.rope_len;
      qa.rope_cols = 2 * d;
      small_gemm(qa, s);
    } else {
      linear(GemmArgs<Elem>{y_, as<Elem>(lw.wqkv), nullptr, qkv_, T, 3 * d, d, false}, s);
    }
    ap.rope_cos = rope_in_qkv ? nullptr : rope_cos;
    ap.rope_sin = rope_in_qkv ? nullptr : rope_sin;
    ap.rope_len = w_.rope_len;
    ap.window = lw.global ? -1 : dims_.local_half;
    ap.k_rotated = !rope_in_qkv && rotates_k_once(b, lw.global, rotate_k_once_above_, rotate_k_once_global_row_);
    if (ap.k_rotated) {
      RopeParams<Elem> rp;
      rp.qkv = qkv_;
      rp.pos = pos;
      rp.cos = ap.rope_cos;
      rp.sin = ap.rope_sin;
      rp.tokens = T;
      rp.heads = dims_.heads;
      rp.table_len = w_.rope_len;
      rp.k_only = true;
      launch_rope(rp, s);
    }
    AttentionParams<Elem> lp = ap;
    lp.five_blocks = attn_five_from_ > 0 && T >= attn_five_from_ && attention_five_blocks_form(ap);
    if (!lw.global) lp.key_split = std::min(ap.key_split, attn_local_split_max_);  // kAttnLocalSplitMax
    lp.one_block_per_sm = one_block_for(lp.key_split) && !lp.five_blocks;
    launch_attention(lp, s);
    // The output GEMMs either add into x themselves (large buckets) or write T-rounded outputs
    // (or split-K partials) that the add+LN after them adds.
    const bool residual = residual_from_ > 0 && T >= residual_from_;
    float* scratch = reinterpret_cast<float*>(ws_.up);  // free here: holds no live data
    AddLnParams<Elem> a;
    a.x = ws_.x;
    a.lean_from_rows = lean_add_ln_from_;
    if (residual) {
      gemm_->run_residual(att_, as<Elem>(lw.wo), ws_.x, scratch, T, d, d, s);
    } else if (attn_out_splits_ > 1 && T <= partials_max_rows_ && T <= small_gemm_max_m_ &&
               small_takes(T, d, d, SmallGemmForm::partials, attn_out_splits_)) {
      small_gemm(SmallGemmArgs<Elem>{att_, as<Elem>(lw.wo), ws_.parts, T, d, d, SmallGemmForm::partials, attn_out_splits_},
                 s);
      a.add_parts = ws_.parts;
      a.parts = attn_out_splits_;
    } else {
      linear(GemmArgs<Elem>{att_, as<Elem>(lw.wo), nullptr, proj_, T, d, d, false}, s);
      a.add = proj_;
    }
    a.weight = lw.mlp_norm;
    a.y = y_;
    a.tokens = T;
    a.d = d;
    a.eps = dims_.eps;
    launch_add_ln(a, s);
    up_geglu(y_, as<Elem>(lw.wi), T, i, s);
    // The MLP output GEMM; small buckets write split-K partials that the add+LN below sums (no
    // reduction kernel, see kPartialsMaxRows).
    AddLnParams<Elem> a2;
    a2.x = ws_.x;
    a2.lean_from_rows = lean_add_ln_from_;
    if (residual) {
      gemm_->run_residual(g_, as<Elem>(lw.mlp_wo), ws_.x, scratch, T, d, dims_.inter, s);
    } else if (T <= partials_max_rows_ && T <= small_gemm_max_m_ &&
               small_takes(T, d, dims_.inter, SmallGemmForm::partials, small_mlp_out_splits_)) {
      small_gemm(SmallGemmArgs<Elem>{g_, as<Elem>(lw.mlp_wo), ws_.parts, T, d, dims_.inter, SmallGemmForm::partials,
                                     small_mlp_out_splits_},
                 s);
      a2.add_parts = ws_.parts;
      a2.parts = small_mlp_out_splits_;
    } else if (T <= partials_max_rows_) {
      gemm_->run_partials(g_, as<Elem>(lw.mlp_wo), ws_.parts, T, d, dims_.inter, kMlpOutSplits, s);
      a2.add_parts = ws_.parts;
      a2.parts = kMlpOutSplits;
    } else {
      linear(GemmArgs<Elem>{g_, as<Elem>(lw.mlp_wo), nullptr, proj_, T, d, dims_.inter, false}, s);
      a2.add = proj_;
    }
    a2.tokens = T;
    a2.d = d;
    a2.eps = dims_.eps;
    if (i + 1 < L) {
      a2.weight = w_.layers[static_cast<size_t>(i + 1)].attn_norm;
      a2.y = y_;
    } else {
      a2.weight = w_.final_norm;
      a2.norm_out = ws_.h;
    }
    launch_add_ln(a2, s);
    if (dumps) dumps->f32(fmt::format("encoder.{}", i), ws_.x, dump_rows, d);
  }
  if (dumps) dumps->f32("final_norm", ws_.h, dump_rows, d);

  const int32_t H = static_cast<int32_t>(w_.head.size());
  TypeLnParams<Elem> tp;
  tp.x = ws_.h;
  tp.type_emb = w_.type_emb;
  tp.tok_row = tok_row;
  tp.qtypes = qtypes;
  tp.weight = H > 0 ? w_.head[0].n1_w : w_.scorer_norm_w;  // without decision layers y is unused
  tp.bias = H > 0 ? w_.head[0].n1_b : w_.scorer_norm_b;
  tp.y = y_;
  tp.tokens = T;
  tp.d = d;
  tp.eps = 1e-5f;
  launch_type_ln(tp, s);
  // A decision layer after its attention: out_proj, add+LN, the ReLU FFN and the residual add,
  // over `rows` rows of the attention output `att` and the fp32 residual stream `x` (in place);
  // the add+LN at its end also normalises for the next layer if there is one.
  auto decision_tail = [&](int32_t li, const Elem* att, float* x, int32_t rows) {
    const auto& hw = w_.head[static_cast<size_t>(li)];
    // A GEMM whose output the add+LN `add` adds: over at most 128 rows (small buckets; the pruned
    // layer's head rows with kSmallTail) as fp32 partials on the small GEMM, the bias added with
    // their sum (kDecisionParts), else whole.
    auto output_gemm = [&](const Elem* in, const Elem* w, const Elem* bias, int32_t k, int32_t splits,
                           AddLnParams<Elem>& add) {
      if (decision_parts_ && rows <= small_gemm_max_m_ && rows <= partials_max_rows_ &&
          (pdl_enabled() || small_tail_) && small_takes(rows, d, k, SmallGemmForm::partials, splits)) {
        small_gemm(SmallGemmArgs<Elem>{in, w, ws_.parts, rows, d, k, SmallGemmForm::partials, splits}, s);
        add.add_parts = ws_.parts;
        add.parts = splits;
        add.parts_bias = bias;
      } else {
        linear(GemmArgs<Elem>{in, w, bias, proj_, rows, d, k, false}, s);
        add.add = proj_;
      }
    };
    AddLnParams<Elem> a;
    a.x = x;
    a.lean_from_rows = lean_add_ln_from_;
    output_gemm(att, as<Elem>(hw.out_w), as<Elem>(hw.out_b), d, kDecisionOutSplits, a);
    a.weight = hw.n2_w;
    a.bias = hw.n2_b;
    a.y = y_;
    a.tokens = rows;
    a.d = d;
    a.eps = 1e-5f;
    launch_add_ln(a, s);
    linear(GemmArgs<Elem>{y_, as<Elem>(hw.l1_w), as<Elem>(hw.l1_b), up_, rows, dims_.ffn, d, true}, s);
    AddLnParams<Elem> a2;
    a2.x = x;
    a2.lean_from_rows = lean_add_ln_from_;
    output_gemm(up_, as<Elem>(hw.l2_w), as<Elem>(hw.l2_b), dims_.ffn, kDecisionFfnSplits, a2);
    a2.tokens = rows;
    a2.d = d;
    a2.eps = 1e-5f;
    if (li + 1 < H) {
      a2.weight = w_.head[static_cast<size_t>(li + 1)].n1_w;
      a2.bias = w_.head[static_cast<size_t>(li + 1)].n1_b;
      a2.y = y_;
    }
    launch_add_ln(a2, s);
  };
  // The last decision layer runs on the rows the heads read when that is a real saving
  // (prunes_last_decision_layer); every other layer on every token.
  const int32_t head_rows = S + K;  // head_tok's slots: one per row slot, one per marker
  const bool pruned = H > 0 && prunes_last_decision_layer(b);
  if (pruned) ++stats_.pruned_head_records;
  for (int32_t li = 0; li < H; ++li) {
    const auto& hw = w_.head[static_cast<size_t>(li)];
    linear(GemmArgs<Elem>{y_, as<Elem>(hw.in_w), as<Elem>(hw.in_b), qkv_, T, 3 * d, d, false}, s);
    ap.rope_cos = ap.rope_sin = nullptr;  // no positions in the decision layers
    ap.k_rotated = false;
    ap.window = -1;
    const std::string dump_name = fmt::format("head.{}", li);
    if (!pruned || li + 1 < H) {
      launch_attention(ap, s);
      decision_tail(li, att_, ws_.h, T);
    } else {
      // Attention for the query tiles that hold a head token only, then the rest of the layer on
      // compact copies of those rows (h in ws_.x and the attention output in g_, both free after
      // the encoder), where the heads read them (with dumps: written back into h first).
      AttentionParams<Elem> hp = ap;
      hp.tiles = ws_.in + l.head_tiles;
      launch_attention(hp, s);
      GatherRowsParams<Elem> gr;
      gr.index = ws_.in + l.head_tok;
      gr.x = ws_.h;
      gr.a = att_;
      gr.x_out = ws_.x;
      gr.a_out = g_;
      gr.rows = head_rows;
      gr.d = d;
      launch_gather_rows(gr, s);
      decision_tail(li, g_, ws_.x, head_rows);
      if (dumps) {  // the dumps show h: the compact rows go back into it
        if (dumps->wants(dump_name)) {  // that dump shows the layer at every token: run it whole too
          launch_attention(ap, s);
          decision_tail(li, att_, ws_.h, T);
        }
        ScatterRowsParams sc;
        sc.index = ws_.in + l.head_tok;
        sc.x_in = ws_.x;
        sc.x = ws_.h;
        sc.rows = head_rows;
        sc.d = d;
        launch_scatter_rows(sc, s);
      }
    }
    if (dumps) dumps->f32(dump_name, ws_.h, dump_rows, d);
  }
  if (dumps) dumps->markers(ws_.h);

  // Without dumps the heads read the pruned layer's compact rows (in ws_.x: each row's [CLS] at its
  // slot, the markers through head_marker_row) where they were computed: no scatter into h.
  const bool heads_read_compact = pruned && !dumps;
  const float* head_h = heads_read_compact ? ws_.x : ws_.h;
  GatherLnParams<Elem> gp;
  gp.x = head_h;
  gp.marker_tok = heads_read_compact ? ws_.in + l.head_marker_row : mark_tok;
  gp.weight = w_.scorer_norm_w;
  gp.bias = w_.scorer_norm_b;
  gp.y = my_;
  gp.markers = K;
  gp.d = d;
  gp.tokens = heads_read_compact ? head_rows : T;
  gp.eps = 1e-5f;
  launch_gather_ln(gp, s);
  linear(GemmArgs<Elem>{my_, as<Elem>(w_.scorer_fc1_w), as<Elem>(w_.scorer_fc1_b), mh_, K, d, d, false}, s);
  SmallLinearParams<Elem> sl;  // GELU applied to its inputs as it reads them
  sl.in = mh_;
  sl.gelu_in = true;
  sl.w = as<Elem>(w_.scorer_fc2_w);
  sl.bias = as<Elem>(w_.scorer_fc2_b);
  sl.out = logits_;
  sl.rows = K;
  sl.n = 1;
  sl.k = d;
  sl.ld_in = d;
  launch_small_linear(sl, s);
  FeaturesParams<Elem> fp;
  fp.logits = logits_;
  fp.marker_offsets = mark_off;
  fp.row_offsets = row_off;
  fp.h = head_h;
  fp.cls_at_slot = heads_read_compact;
  fp.act_in = act_in_;
  fp.logits_out = out;
  fp.row_slots = S;
  fp.markers_pad = K;
  fp.d = d;
  launch_features(fp, s);
  // The act head's first linear: T(acc + bias) by cuBLASLt's bias epilogue as by small_linear, its
  // GELU then applied by the second linear as it reads it (gelu_in: the values small_linear's gelu
  // stored), where the bucket has kActGemmFromRows row slots or more.
  const bool act_gemm = act_gemm_from_ > 0 && S >= act_gemm_from_;
  if (act_gemm) {
    linear(GemmArgs<Elem>{act_in_, as<Elem>(w_.act_fc1_w), as<Elem>(w_.act_fc1_b), act_h_, S, dims_.act_hidden, d + 4,
                          false},
           s);
  } else {
    SmallLinearParams<Elem> a1;
    a1.in = act_in_;
    a1.w = as<Elem>(w_.act_fc1_w);
    a1.bias = as<Elem>(w_.act_fc1_b);
    a1.out = act_h_;
    a1.rows = S;
    a1.n = dims_.act_hidden;
    a1.k = d + 4;
    a1.ld_in = d + 4;
    a1.gelu = true;
    launch_small_linear(a1, s);
  }
  SmallLinearParams<Elem> a2;
  a2.in = act_h_;
  a2.w = as<Elem>(w_.act_fc2_w);
  a2.bias = as<Elem>(w_.act_fc2_b);
  a2.out = act_;
  a2.out_f32 = out + K;
  a2.rows = S;
  a2.gelu_in = act_gemm;
  a2.n = dims_.n_act;
  a2.k = dims_.act_hidden;
  a2.ld_in = dims_.act_hidden;
  launch_small_linear(a2, s);
  if (!bus_io_)
    LAYA_CUDA_CHECK(cudaMemcpyAsync(ws_.host_out, ws_.out, static_cast<size_t>(K + S * dims_.n_act) * 4,
                                    cudaMemcpyDeviceToHost, s));
}

void CudaBackendImpl::run_eager(const Bucket& b, const StagingLayout& l, DumpCtx* dumps) {
  record(b, l, dumps);
  ++stats_.eager_runs;
}

bool CudaBackendImpl::capture(const Bucket& b, const StagingLayout& l, cudaGraphExec_t* exec) {
  const auto t0 = std::chrono::steady_clock::now();
  struct AddTime {  // on every way out, failures and exceptions included
    double& ms;
    std::chrono::steady_clock::time_point t0;
    ~AddTime() { ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); }
  } add_time{stats_.capture_ms, t0};
  if (gemm_->tunes(std::max(b.tokens, b.markers))) {  // timed on eager calls only: pick them before capturing
    record(b, l, nullptr);
    LAYA_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  cudaGraph_t graph = nullptr;
  GemmCaptureLog gemm_nodes;
  LAYA_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  std::string error;
  try {
    if (gemm_memset_kernels_) gemm_->log_captures(&gemm_nodes);
    record(b, l, nullptr);
    if (fail_captures_ > 0) {
      --fail_captures_;
      error = "injected capture failure (test hook)";
    }
  } catch (const std::exception& ex) {
    error = ex.what();
  }
  gemm_->log_captures(nullptr);
  const cudaError_t end = cudaStreamEndCapture(stream_, &graph);
  if (error.empty() && end != cudaSuccess) error = fmt::format("cudaStreamEndCapture: {}", cudaGetErrorString(end));
  // A failed edit (or an edited graph that does not instantiate) fails this capture, which then runs
  // eagerly; later captures keep the memset nodes, so a driver that refuses the edit costs one
  // capture, not every one.
  int replaced = 0;
  if (error.empty() && gemm_memset_kernels_) {
    try {
      replaced = replace_gemm_memsets(graph, gemm_nodes, ws_.gemm_ws, kGemmWorkspace);
      stats_.gemm_memsets_replaced += replaced;
    } catch (const std::exception& ex) {
      error = ex.what();
      gemm_memset_kernels_ = false;
    }
  }
  cudaError_t inst = cudaSuccess;
  if (error.empty()) {
    inst = cudaGraphInstantiate(exec, graph, 0);
    if (inst != cudaSuccess) {
      error = fmt::format("cudaGraphInstantiate: {}", cudaGetErrorString(inst));
      if (replaced > 0) gemm_memset_kernels_ = false;
    }
  }
  if (graph != nullptr) cudaGraphDestroy(graph);
  if (!error.empty()) {
    cudaGetLastError();  // capture errors are not sticky; clear them
    *exec = nullptr;
    ++stats_.capture_failures;
    spdlog::warn("cuda: graph capture for bucket {} failed, running eagerly: {}", b.to_string(), error);
    return false;
  }
  ++stats_.graph_captures;
  return true;
}

engine::ForwardResult CudaBackendImpl::forward(const engine::Batch& batch, engine::DumpSink* dumps) {
  check_usable();
  engine::ForwardResult result;
  result.n_act = dims_.n_act;
  if (batch.rows() == 0) return result;
  // Everything about the request is validated and staged before the first CUDA call.
  const Bucket b = choose_bucket(batch.tokens(), batch.rows(), batch.total_markers(), limits_);
  const StagingLayout l = StagingLayout::for_bucket(b);
  pack_inputs(batch, b, dims_.vocab, dims_.max_row_len, std::span<int32_t>(ws_.host_in, static_cast<size_t>(l.total)));

  last_device_ms_ = -1.0;
  auto start_clock = [this] {
    if (device_timing_) LAYA_CUDA_CHECK(cudaEventRecord(ev_start_, stream_));
  };
  try {
    LAYA_CUDA_CHECK(cudaSetDevice(device_));
    if (dumps != nullptr) {
      DumpCtx ctx(dumps, stream_, batch, dims_.d);
      start_clock();
      run_eager(b, l, &ctx);
    } else if (!graphs_ || eager_only_) {
      start_clock();
      run_eager(b, l, nullptr);
    } else {
      const GraphCacheBook::Plan plan = book_.plan(b, graph_cost_);
      cudaGraphExec_t exec = nullptr;
      if (plan.action == GraphCacheBook::Action::hit) {
        book_.touch(b);
        exec = graphs_by_bucket_.at(b);
        ++stats_.graph_replays;
      } else if (plan.action == GraphCacheBook::Action::capture) {
        for (const Bucket& victim : plan.evict) {  // evict before building the new graph
          auto it = graphs_by_bucket_.find(victim);
          if (it != graphs_by_bucket_.end()) {
            LAYA_CUDA_CHECK(cudaGraphExecDestroy(it->second));
            graphs_by_bucket_.erase(it);
          }
          book_.erase(victim);
          ++stats_.evictions;
        }
        if (capture(b, l, &exec)) {
          graphs_by_bucket_[b] = exec;
          book_.insert(b, graph_cost_);
        }
      } else if (plan.action == GraphCacheBook::Action::defer) {
        book_.note_miss(b);
      }
      start_clock();
      if (exec != nullptr) {
        LAYA_CUDA_CHECK(cudaGraphLaunch(exec, stream_));
      } else {
        run_eager(b, l, nullptr);
      }
    }
    if (device_timing_) LAYA_CUDA_CHECK(cudaEventRecord(ev_stop_, stream_));
    LAYA_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the one synchronisation of a forward
    if (device_timing_) {
      float ms = 0.f;
      LAYA_CUDA_CHECK(cudaEventElapsedTime(&ms, ev_start_, ev_stop_));
      last_device_ms_ = ms;
    }
  } catch (const Error& ex) {
    // Drain what was submitted before the pinned buffers can be reused; a sticky error poisons the
    // context, so the engine reports itself failed instead of running on corrupted state.
    const cudaError_t drain = cudaStreamSynchronize(stream_);
    const cudaError_t last = cudaGetLastError();
    if (drain != cudaSuccess || (last != cudaSuccess && cudaPeekAtLastError() != cudaSuccess)) {
      failed_ = true;
      failure_ = ex.what();
      spdlog::error("cuda: engine failed: {}", failure_);
    }
    throw;
  }
  ++stats_.forwards;
  const int32_t K = batch.total_markers();
  result.logits.assign(ws_.host_out, ws_.host_out + K);
  const float* act = ws_.host_out + b.markers;
  result.act_logits.assign(act, act + static_cast<size_t>(batch.rows()) * dims_.n_act);
  if (dumps != nullptr) {
    if (dumps->wants("logits")) dumps->put("logits", result.logits.data(), static_cast<size_t>(K), 1);
    if (dumps->wants("act_logits"))
      dumps->put("act_logits", result.act_logits.data(), static_cast<size_t>(batch.rows()),
                 static_cast<size_t>(dims_.n_act));
  }
  return result;
}

}  // namespace

std::unique_ptr<CudaEngine> make_cuda_engine(const checkpoint::Checkpoint& ckpt, const engine::BackendOptions& options) {
  return std::make_unique<CudaBackendImpl>(ckpt, options);
}

std::unique_ptr<engine::Backend> make_cuda_backend(const checkpoint::Checkpoint& ckpt,
                                                   const engine::BackendOptions& options) {
  return make_cuda_engine(ckpt, options);
}

}  // namespace laya::cuda
