// laya_bench_gemm_pdl: every GEMM configuration cuBLASLt offers for the engine's small shapes,
// beyond the heuristic's list (cublasLtMatmulAlgoGetIds + AlgoInit + configuration attributes +
// AlgoCheck). Per shape and M it
//   1. times the heuristic's first 8 candidates, the same with their cluster forced to 1x1x1, and
//      every enumerated configuration, each inside a captured graph of 24 launches (weights rotated
//      over 28 copies, as laya_bench_gemm), and names the kernels each launches (driver API on the
//      graph's kernel nodes);
//   2. times, in a chain of 28 x (small own kernel -> GEMM) with plain edges, the heuristic's #0
//      (what the engine ran), #0 with a 1x1x1 cluster (what it runs up to 64 rows, item 55) and the
//      fastest enumerated configuration;
//   3. for the plain shapes the engine's small GEMM takes (small_gemm.cuh: an own kernel that waits),
//      the same: its time alone, its output against cuBLASLt's, whether it waits, and the chain
//      with plain and with programmatic edges (item 57);
//   4. with --probe 1 (item 54): whether a configuration waits on a programmatic (PDL) edge — a
//      kernel that triggers its dependents at once, spins 40 us, then writes the GEMM's input feeds
//      the GEMM through a programmatic edge: a GEMM that waits computes on the written input (its
//      plain-order output), one that does not reads the zeros that were there — for the heuristic's
//      pick and each algorithm id's two fastest configurations, and the chain with every edge
//      programmatic for the first --top that wait. The nvjet kernels the heuristic returns do not
//      wait (docs/benchmarks/cuda.md item 24), so PDL into cuBLASLt needs another kernel family.
//   5. with --trigger 1, instead of 1-4 (item 110): whether the heuristic's pick lets its dependents
//      launch before it completes — a stamp kernel, the GEMM, then kTriggerBlocks probe blocks on a
//      programmatic edge that note %globaltimer as they enter, before their griddepcontrol.wait,
//      and again after it: a first entry well before the first return means an early launch. The
//      same graph with a plain edge is the control.
// Prints tables; asserts nothing.
//
// usage: laya_bench_gemm_pdl [--m 48] [--nk 3072x1024,1024x1024,5248x1024,1024x2624,1024x2624p2]
//                            [--probe 1] [--top 6] [--trigger 1]  (NxKpS: the engine's partials form, S splits)
#include "bench_common.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/small_gemm.cuh"

#include <cublasLt.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using laya::bench::check;
using laya::bench::config;
using laya::bench::graph_median_ms;
using laya::bench::parse_ints;

constexpr int kLayers = 28;    // weight copies: one per encoder layer
constexpr int kLaunches = 24;  // GEMM launches per timed graph
constexpr int kChain = 28;     // (own kernel -> GEMM) pairs per chain graph

__device__ __forceinline__ void pdl_wait_then_trigger() {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// Triggers its dependents at once, spins delay_ns, then copies src to dst: a dependent that does
// not wait for this grid's completion reads dst before the copy.
__global__ void laya_probe_delayed_copy(const __nv_bfloat16* src, __nv_bfloat16* dst, int n, long long delay_ns) {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  if (threadIdx.x == 0) {
    const uint64_t t0 = laya::cuda::dev::global_ns();
    while (static_cast<long long>(laya::cuda::dev::global_ns() - t0) < delay_ns) {
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
}

// Stands in for the engine's small kernels between GEMMs (an add+LN over 48 rows: 12 blocks): waits
// for its predecessor, lets the next kernel launch, reads the previous GEMM's output and rewrites the
// next GEMM's input.
__global__ void laya_probe_touch(const __nv_bfloat16* prev_out, __nv_bfloat16* next_in, const __nv_bfloat16* seed,
                                 int n) {
  pdl_wait_then_trigger();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float o = __bfloat162float(prev_out[i]);
    next_in[i] = o == 1e30f ? prev_out[i] : seed[i];
  }
}

template <class V>
void set_config(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr, V v) {
  cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &v, sizeof(v));
}
std::vector<uint32_t> cap_ids(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  size_t written = 0;
  cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &written);
  std::vector<uint32_t> v(written / sizeof(uint32_t));
  if (!v.empty()) cublasLtMatmulAlgoCapGetAttribute(&algo, attr, v.data(), v.size() * sizeof(uint32_t), &written);
  return v;
}
int cap_int(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  int32_t v = 0;
  size_t written = 0;
  cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &v, sizeof(v), &written);
  return v;
}

std::vector<cudaGraphNode_t> graph_nodes(cudaGraph_t g) {
  size_t n = 0;
  check(cudaGraphGetNodes(g, nullptr, &n), "nodes");
  std::vector<cudaGraphNode_t> v(n);
  if (n > 0) check(cudaGraphGetNodes(g, v.data(), &n), "nodes");
  return v;
}

bool is_kernel(cudaGraphNode_t node) {
  cudaGraphNodeType t{};
  return cudaGraphNodeGetType(node, &t) == cudaSuccess && t == cudaGraphNodeTypeKernel;
}

std::string kernel_name(cudaGraphNode_t node) {
  CUDA_KERNEL_NODE_PARAMS p{};
  if (cuGraphKernelNodeGetParams(reinterpret_cast<CUgraphNode>(node), &p) != CUDA_SUCCESS) return "?";
  const char* name = nullptr;
  if (p.func != nullptr) cuFuncGetName(&name, p.func);
  if (name == nullptr && p.kern != nullptr) cuKernelGetName(&name, p.kern);
  return name != nullptr ? name : "?";
}

// Every kernel -> kernel edge of the graph for which pick(from, to) holds made programmatic.
template <class Pick>
void make_programmatic_if(cudaGraph_t g, Pick pick) {
  size_t n = 0;
  check(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n), "edges");
  std::vector<cudaGraphNode_t> from(n), to(n);
  std::vector<cudaGraphEdgeData> data(n);
  if (n > 0) check(cudaGraphGetEdges(g, from.data(), to.data(), data.data(), &n), "edges");
  cudaGraphEdgeData prog{};
  prog.type = cudaGraphDependencyTypeProgrammatic;
  prog.from_port = cudaGraphKernelNodePortProgrammatic;
  for (size_t i = 0; i < n; ++i) {
    if (data[i].type != cudaGraphDependencyTypeDefault || !is_kernel(from[i]) || !is_kernel(to[i])) continue;
    if (!pick(from[i], to[i])) continue;
    check(cudaGraphRemoveDependencies(g, &from[i], &to[i], &data[i], 1), "remove edge");
    check(cudaGraphAddDependencies(g, &from[i], &to[i], &prog, 1), "add edge");
  }
}

// Every kernel -> kernel edge of the graph (or only those out of a laya_probe kernel) made programmatic.
void make_programmatic(cudaGraph_t g, bool only_from_probe) {
  make_programmatic_if(g, [only_from_probe](cudaGraphNode_t from, cudaGraphNode_t) {
    return !only_from_probe || kernel_name(from).find("laya_probe") != std::string::npos;
  });
}

// The trigger probe's blocks (about one wave of the engine's attention at 512 tokens) and their
// record: per block its entry and post-wait times.
constexpr int kTriggerBlocks = 512;
struct TriggerRecord {
  uint64_t stamp;  // when the kernel before the GEMM ended
  uint64_t entry[kTriggerBlocks], after[kTriggerBlocks];
};

__global__ void laya_trigger_stamp(TriggerRecord* r) {
  if (threadIdx.x == 0) r->stamp = laya::cuda::dev::global_ns();
}

__global__ void laya_trigger_probe(TriggerRecord* r) {
  if (threadIdx.x == 0) r->entry[blockIdx.x] = laya::cuda::dev::global_ns();
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  if (threadIdx.x == 0) r->after[blockIdx.x] = laya::cuda::dev::global_ns();
}

struct Candidate {
  cublasLtMatmulAlgo_t algo{};
  int id = 0, tile = 0, stages = 0, splitk = 0, redu = 0;
  double us = 0;
  std::string kernels;
  int waits = -1;  // 1 yes, 0 no, -1 not probed
  double chain_plain = 0, chain_pdl = 0;
};

struct Shape {
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  int m = 0, n = 0, k = 0;
  int splits = 1;  // > 1: the engine's partials form (K split into a strided batch, fp32 outputs)
  void *w = nullptr, *in = nullptr, *out = nullptr, *seed = nullptr, *ws = nullptr;
  size_t w_bytes = 0, ws_bytes = 0;
  cudaStream_t stream = nullptr;

  cudaDataType_t out_type() const { return splits > 1 ? CUDA_R_32F : CUDA_R_16BF; }
  cublasStatus_t gemm(const Candidate& c, int layer) const {
    const float alpha = 1.f, beta = 0.f;
    return cublasLtMatmul(lt, op, &alpha, static_cast<char*>(w) + (layer % kLayers) * w_bytes, la, in, lb, &beta, out, lc,
                          out, lc, &c.algo, ws, ws_bytes, stream);
  }
};

// Captures `body` into a graph on s.stream; nullptr when a launch or the capture failed.
template <class Body>
cudaGraph_t capture(const Shape& s, Body body) {
  cudaGraph_t g = nullptr;
  check(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal), "capture");
  const bool ok = body();
  const cudaError_t end = cudaStreamEndCapture(s.stream, &g);
  if (!ok || end != cudaSuccess) {
    cudaGetLastError();
    if (g != nullptr) cudaGraphDestroy(g);
    return nullptr;
  }
  return g;
}

// A candidate as the probes' launcher.
auto lt_gemm(const Shape& s, const Candidate& c) {
  return [&s, &c](int layer) { return s.gemm(c, layer) == CUBLAS_STATUS_SUCCESS; };
}

std::vector<uint16_t> read_out(const Shape& s) {
  std::vector<uint16_t> h(static_cast<size_t>(s.m) * s.n * (s.splits > 1 ? 2 * s.splits : 1));
  check(cudaMemcpy(h.data(), s.out, h.size() * 2, cudaMemcpyDeviceToHost), "read out");
  return h;
}

// Whether the candidate waits for a programmatic predecessor (see the file comment, step 3).
template <class Gemm>  // gemm(layer) launches the GEMM on s.stream, false when it could not
int probe_waits(const Shape& s, Gemm gemm) {
  const int in_elems = s.m * s.k;
  // Its own output in plain stream order (algorithms differ in summation order).
  check(cudaMemcpy(s.in, s.seed, static_cast<size_t>(in_elems) * 2, cudaMemcpyDeviceToDevice), "in");
  if (!gemm(0)) return -1;
  check(cudaStreamSynchronize(s.stream), "reference");
  const std::vector<uint16_t> reference = read_out(s);
  cudaGraph_t g = capture(s, [&] {
    cudaMemsetAsync(s.in, 0, static_cast<size_t>(in_elems) * 2, s.stream);
    cudaMemsetAsync(s.out, 0, static_cast<size_t>(s.m) * s.n * (s.splits > 1 ? 4 * s.splits : 2), s.stream);
    laya_probe_delayed_copy<<<1, 256, 0, s.stream>>>(static_cast<const __nv_bfloat16*>(s.seed),
                                                     static_cast<__nv_bfloat16*>(s.in), in_elems, 40000);
    return gemm(0);
  });
  if (g == nullptr) return -1;
  make_programmatic(g, true);
  cudaGraphExec_t exec = nullptr;
  if (cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) {
    cudaGetLastError();
    cudaGraphDestroy(g);
    return -1;
  }
  int waits = 1;
  for (int r = 0; r < 3 && waits == 1; ++r) {
    check(cudaGraphLaunch(exec, s.stream), "probe");
    check(cudaStreamSynchronize(s.stream), "probe sync");
    if (read_out(s) != reference) waits = 0;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  return waits;
}

// µs per (touch -> GEMM) pair in a chain of kChain pairs; programmatic: every kernel edge converted.
template <class Gemm>
double time_chain(const Shape& s, Gemm gemm, bool programmatic) {
  const int in_elems = s.m * s.k;
  cudaGraph_t g = capture(s, [&] {
    bool ok = true;
    for (int i = 0; i < kChain && ok; ++i) {
      laya_probe_touch<<<12, 256, 0, s.stream>>>(static_cast<const __nv_bfloat16*>(s.out),
                                                 static_cast<__nv_bfloat16*>(s.in),
                                                 static_cast<const __nv_bfloat16*>(s.seed), std::min(in_elems, s.m * s.n));
      ok = gemm(i);
    }
    return ok;
  });
  if (g == nullptr) return -1;
  if (programmatic) make_programmatic(g, false);
  const double ms = graph_median_ms(s.stream, g);
  cudaGraphDestroy(g);
  return ms < 0 ? -1 : 1000.0 * ms / kChain;
}

// The engine's layout for s.m rows: column-major C^T[N, M] = W[N, K]^T-view x in^T (gemm.cpp),
// as a strided batch of K-splits with fp32 outputs in the partials form.
void describe(Shape& s) {
  if (cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) std::exit(1);
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta));
  cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb));
  const int ks = s.k / s.splits;
  cublasLtMatrixLayoutCreate(&s.la, CUDA_R_16BF, ks, s.n, s.k);
  cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_16BF, ks, s.m, s.k);
  cublasLtMatrixLayoutCreate(&s.lc, s.out_type(), s.n, s.m, s.n);
  if (s.splits > 1) {  // as Gemm::plan_for's partials
    const int32_t count = s.splits;
    const int64_t step_in = ks, step_out = static_cast<int64_t>(s.m) * s.n;
    for (auto [layout, step] : {std::pair{s.la, step_in}, std::pair{s.lb, step_in}, std::pair{s.lc, step_out}}) {
      cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count));
      cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &step, sizeof(step));
    }
  }
}
void release(Shape& s) {
  cublasLtMatrixLayoutDestroy(s.la);
  cublasLtMatrixLayoutDestroy(s.lb);
  cublasLtMatrixLayoutDestroy(s.lc);
  cublasLtMatmulDescDestroy(s.op);
}

// The heuristic's first 8 candidates (the engine runs #0 below 4096 rows: id -1), then each with its
// cluster forced to 1x1x1 where AlgoCheck accepts it (ids -101..-108); empty without a result.
std::vector<Candidate> heuristic_candidates(const Shape& s) {
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &s.ws_bytes, sizeof(s.ws_bytes));
  cublasLtMatmulHeuristicResult_t res[8]{};
  int found = 0;
  cublasLtMatmulAlgoGetHeuristic(s.lt, s.op, s.la, s.lb, s.lc, s.lc, pref, 8, res, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  std::vector<Candidate> all;
  for (int h = 0; h < found; ++h) {
    Candidate c;
    c.algo = res[h].algo;
    c.id = -1 - h;
    all.push_back(c);
  }
  for (int h = 0; h < found; ++h) {
    Candidate c;
    c.algo = res[h].algo;
    set_config(c.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, static_cast<uint16_t>(CUBLASLT_CLUSTER_SHAPE_1x1x1));
    cublasLtMatmulHeuristicResult_t r{};
    if (cublasLtMatmulAlgoCheck(s.lt, s.op, s.la, s.lb, s.lc, s.lc, &c.algo, &r) != CUBLAS_STATUS_SUCCESS ||
        r.workspaceSize > s.ws_bytes)
      continue;
    c.id = -101 - h;
    all.push_back(c);
  }
  if (!all.empty()) {
    const cublasLtMatmulAlgo_t& a = all.front().algo;
    std::printf("\nM=%d N=%d K=%d%s heuristic #0: algo id %d tile %d stages %d splitK %d inner %d cluster %d custom %d\n",
                s.m, s.n, s.k, s.splits > 1 ? " (partials)" : "", config(a, CUBLASLT_ALGO_CONFIG_ID),
                config(a, CUBLASLT_ALGO_CONFIG_TILE_ID), config(a, CUBLASLT_ALGO_CONFIG_STAGES_ID),
                config(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM), config(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID),
                config(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID), config(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION));
  }
  return all;
}

// Every algorithm id's configurations that AlgoCheck accepts: tile x split-K (1, 2, 4) x cluster
// (auto, 1x1, 2x1, 1x2, the heuristic's) x custom option (up to 3) x up to two stage counts, at
// most 300 per id (nvjet offers hundreds of tiles: the first 48). Prints what each id offers.
std::vector<Candidate> enumerated_candidates(const Shape& s, const Candidate& heur, int* n_ids, int* checked) {
  const auto heur_inner = static_cast<uint16_t>(config(heur.algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID));
  const auto heur_cluster = static_cast<uint16_t>(config(heur.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
  std::vector<int> ids(256);
  cublasLtMatmulAlgoGetIds(s.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF, s.out_type(), s.out_type(),
                           static_cast<int>(ids.size()), ids.data(), n_ids);
  std::vector<Candidate> all;
  for (int i = 0; i < *n_ids; ++i) {
    const int id = ids[static_cast<size_t>(i)];
    cublasLtMatmulAlgo_t base{};
    if (cublasLtMatmulAlgoInit(s.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF, s.out_type(),
                               s.out_type(), id, &base) != CUBLAS_STATUS_SUCCESS)
      continue;
    auto tiles = cap_ids(base, CUBLASLT_ALGO_CAP_TILE_IDS);
    auto stages = cap_ids(base, CUBLASLT_ALGO_CAP_STAGES_IDS);
    if (tiles.empty()) tiles.push_back(CUBLASLT_MATMUL_TILE_UNDEFINED);
    if (stages.empty()) stages.push_back(CUBLASLT_MATMUL_STAGES_UNDEFINED);
    if (tiles.size() > 48) tiles.resize(48);
    const bool splitk = cap_int(base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0;
    const int redu_mask = cap_int(base, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
    int redu = CUBLASLT_REDUCTION_SCHEME_NONE;
    for (int r : {CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                  CUBLASLT_REDUCTION_SCHEME_INPLACE})
      if ((redu_mask & r) != 0) redu = r;
    const int custom_max = std::min(cap_int(base, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX), 3);
    int passed = 0, last_status = 0;
    for (uint32_t tile : tiles)
      for (int sk : {1, 2, 4})
        for (uint16_t cluster : {uint16_t{0}, uint16_t{2}, uint16_t{3}, uint16_t{5}, heur_cluster})
          for (int custom = 0; custom <= custom_max; ++custom) {
            int kept = 0;
            for (uint32_t st : stages) {
              if ((sk > 1 && !splitk) || kept >= 2 || passed >= 300) continue;
              Candidate c;
              c.algo = base;
              set_config(c.algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, heur_inner);
              set_config(c.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster);
              set_config(c.algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, static_cast<uint32_t>(custom));
              set_config(c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, tile);
              set_config(c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, st);
              set_config(c.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, static_cast<int32_t>(sk));
              set_config(c.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                         static_cast<uint32_t>(sk > 1 ? redu : CUBLASLT_REDUCTION_SCHEME_NONE));
              cublasLtMatmulHeuristicResult_t r{};
              ++*checked;
              const cublasStatus_t status = cublasLtMatmulAlgoCheck(s.lt, s.op, s.la, s.lb, s.lc, s.lc, &c.algo, &r);
              if (status != CUBLAS_STATUS_SUCCESS || r.workspaceSize > s.ws_bytes) {
                last_status = static_cast<int>(status);
                continue;
              }
              c.id = id;
              all.push_back(c);
              ++kept;
              ++passed;
            }
          }
    std::printf("  algo id %d: %zu tiles (first %u), %zu stage ids (first %u), custom max %d, splitK %d; %d pass AlgoCheck (last failure status %d)\n",
                id, tiles.size(), tiles[0], stages.size(), stages[0], custom_max, splitk ? 1 : 0, passed, last_status);
  }
  return all;
}

// Times the candidate in a graph of kLaunches launches and names its kernels (c.us < 0: it did
// not run).
void time_candidate(const Shape& s, Candidate& c) {
  c.tile = config(c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
  c.stages = config(c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
  c.splitk = config(c.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  c.redu = config(c.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  c.us = -1;
  if (s.gemm(c, 0) != CUBLAS_STATUS_SUCCESS || cudaStreamSynchronize(s.stream) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  cudaGraph_t g = capture(s, [&] {
    bool ok = true;
    for (int i = 0; i < kLaunches && ok; ++i) ok = s.gemm(c, i) == CUBLAS_STATUS_SUCCESS;
    return ok;
  });
  if (g == nullptr) return;
  for (cudaGraphNode_t node : graph_nodes(g)) {
    if (!is_kernel(node)) continue;
    const std::string name = kernel_name(node);
    if (c.kernels.find(name) == std::string::npos) c.kernels += (c.kernels.empty() ? "" : " + ") + name;
  }
  const double t = graph_median_ms(s.stream, g);
  cudaGraphDestroy(g);
  if (t > 0) c.us = 1000.0 * t / kLaunches;
}

// The engine's small GEMM (small_gemm.cuh, plain form) as the probes' launcher: layer l reads weight
// copy l % kLayers. Its edges in the chains are made programmatic by make_programmatic, so the
// launch attribute (LAYA_CUDA_PDL) is not needed here.
auto own_gemm(const Shape& s) {
  return [&s](int layer) {
    const auto* w = reinterpret_cast<const __nv_bfloat16*>(static_cast<const char*>(s.w) + (layer % kLayers) * s.w_bytes);
    laya::cuda::launch_small_gemm(
        laya::cuda::SmallGemmArgs<__nv_bfloat16>{static_cast<const __nv_bfloat16*>(s.in), w, s.out, s.m, s.n, s.k}, s.stream);
    return true;
  };
}

// The engine's small GEMM against the heuristic's cuBLASLt pick: its output, its time alone in a graph of
// kLaunches launches, whether it waits, and the chain with plain and programmatic edges.
void report_own_gemm(const Shape& s, const Candidate& heur, double heur_chain_plain) {
  if (s.splits != 1 || !laya::cuda::small_gemm_supported(s.m, s.n, s.k, laya::cuda::SmallGemmForm::plain)) return;
  auto own = own_gemm(s);
  check(cudaMemcpy(s.in, s.seed, static_cast<size_t>(s.m) * s.k * 2, cudaMemcpyDeviceToDevice), "in");
  s.gemm(heur, 0);
  check(cudaStreamSynchronize(s.stream), "lt");
  const auto ref = read_out(s);
  own(0);
  check(cudaStreamSynchronize(s.stream), "own");
  const auto got = read_out(s);
  float worst = 0.f, scale = 0.f;
  size_t differ = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    auto bf16_value = [](uint16_t bits) {
      const uint32_t u = uint32_t{bits} << 16;
      float f = 0.f;
      std::memcpy(&f, &u, 4);
      return f;
    };
    const float a = bf16_value(got[i]), b = bf16_value(ref[i]);
    worst = std::max(worst, std::fabs(a - b));
    scale = std::max(scale, std::fabs(b));
    differ += got[i] != ref[i];
  }
  cudaGraph_t g = capture(s, [&] {
    bool ok = true;
    for (int i = 0; i < kLaunches && ok; ++i) ok = own(i);
    return ok;
  });
  const double alone = g == nullptr ? -1 : 1000.0 * graph_median_ms(s.stream, g) / kLaunches;
  if (g != nullptr) cudaGraphDestroy(g);
  const int waits = probe_waits(s, own);
  std::printf("own small-M GEMM: %.2f us alone; max |own - cuBLASLt| %.3g (max |ref| %.3g, %zu of %zu differ); waits %d; "
              "chain plain %.2f, programmatic %.2f us a pair (cuBLASLt #0 plain %.2f)\n",
              alone, worst, scale, differ, ref.size(), waits, time_chain(s, own, false), time_chain(s, own, true),
              heur_chain_plain);
}

// all: the heuristic's candidates first (ids < 0), then the enumerated ones, each timed.
// Step 5 (--trigger): the heuristic's pick between a stamp kernel and the probe blocks, the edge into
// the probe programmatic or plain; prints, as the median of 5 replays, when the first probe block
// entered and when the first wait returned (µs after the stamp). A GEMM that lets its dependents
// launch early shows the first entry well before the first return.
void report_trigger(const Shape& s, const Candidate& heur) {
  TriggerRecord* rec = nullptr;
  check(cudaMalloc(&rec, sizeof(TriggerRecord)), "trigger record");
  for (const bool programmatic : {false, true}) {
    cudaGraph_t g = capture(s, [&] {
      laya_trigger_stamp<<<1, 32, 0, s.stream>>>(rec);
      const bool ok = s.gemm(heur, 0) == CUBLAS_STATUS_SUCCESS;
      laya_trigger_probe<<<kTriggerBlocks, 128, 0, s.stream>>>(rec);
      return ok;
    });
    if (g == nullptr) {
      std::printf("M=%d N=%d K=%d trigger probe: capture failed\n", s.m, s.n, s.k);
      continue;
    }
    if (programmatic)
      make_programmatic_if(g, [](cudaGraphNode_t, cudaGraphNode_t to) {
        return kernel_name(to).find("laya_trigger_probe") != std::string::npos;
      });
    cudaGraphExec_t exec = nullptr;
    check(cudaGraphInstantiate(&exec, g, 0), "instantiate");
    std::vector<double> first_entry, first_after;
    TriggerRecord h;
    for (int r = 0; r < 6; ++r) {  // the first replay warms up
      check(cudaGraphLaunch(exec, s.stream), "trigger probe");
      check(cudaStreamSynchronize(s.stream), "trigger probe sync");
      check(cudaMemcpy(&h, rec, sizeof(h), cudaMemcpyDeviceToHost), "trigger record");
      if (r == 0) continue;
      const uint64_t entry = *std::min_element(h.entry, h.entry + kTriggerBlocks);
      const uint64_t after = *std::min_element(h.after, h.after + kTriggerBlocks);
      first_entry.push_back((static_cast<double>(entry) - static_cast<double>(h.stamp)) / 1000.0);
      first_after.push_back((static_cast<double>(after) - static_cast<double>(h.stamp)) / 1000.0);
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::printf("M=%d N=%d K=%d trigger probe, %s edge: first block in %.2f us, first wait returned %.2f us "
                "after the stamp  (%s)\n",
                s.m, s.n, s.k, programmatic ? "programmatic" : "plain", median(first_entry), median(first_after),
                heur.kernels.c_str());
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
  }
  cudaFree(rec);
}

void report(const Shape& s, std::vector<Candidate>& all, int n_ids, int checked, bool probe, int top) {
  std::vector<Candidate> ok;
  for (const Candidate& c : all)
    if (c.us > 0) ok.push_back(c);
  if (ok.empty() || all.front().us <= 0) {
    std::printf("M=%d N=%d K=%d: nothing ran\n", s.m, s.n, s.k);
    return;
  }
  std::sort(ok.begin(), ok.end(), [](const Candidate& a, const Candidate& b) { return a.us < b.us; });
  std::printf("M=%d N=%d K=%d: %d algorithm ids, %d configurations checked, %zu ran\n", s.m, s.n, s.k, n_ids, checked,
              ok.size());
  // The heuristic's candidates as they come and with a 1x1x1 cluster, in the heuristic's order.
  std::printf("%6s %8s  %s\n", "#", "us", "kernels");
  const Candidate* first_forced = nullptr;
  for (const Candidate& c : all) {
    if (c.id >= 0 || c.us <= 0) continue;
    if (c.id <= -101 && first_forced == nullptr) first_forced = &c;
    const std::string label = c.id <= -101 ? "1x1 #" + std::to_string(-101 - c.id) : "#" + std::to_string(-1 - c.id);
    std::printf("%6s %8.2f  %s\n", label.c_str(), c.us, c.kernels.c_str());
  }
  const Candidate* best = nullptr;
  for (const Candidate& c : ok)
    if (c.id >= 0) {
      best = &c;
      break;
    }
  Candidate heur = all.front();
  // In a chain with a small own kernel before each GEMM (plain edges): the engine's context.
  const double heur_chain = time_chain(s, lt_gemm(s, heur), false);
  std::printf("chain (us per own kernel + GEMM): heuristic #0 %.2f", heur_chain);
  if (first_forced != nullptr)
    std::printf(", #%d with 1x1x1 cluster %.2f", -101 - first_forced->id, time_chain(s, lt_gemm(s, *first_forced), false));
  if (best != nullptr) std::printf(", best enumerated (%.2f us alone) %.2f", best->us, time_chain(s, lt_gemm(s, *best), false));
  std::printf("\n");
  report_own_gemm(s, heur, heur_chain);
  if (!probe) {
    if (best != nullptr)
      std::printf("best enumerated: id %d tile %d stages %d splitK %d: %s\n", best->id, best->tile, best->stages,
                  best->splitk, best->kernels.c_str());
    return;
  }
  // Which kernels wait on a programmatic edge (item 54): the heuristic's pick and, per algorithm
  // id, its two fastest configurations; chains for the first `top` that wait.
  heur.waits = probe_waits(s, lt_gemm(s, heur));
  heur.chain_plain = time_chain(s, lt_gemm(s, heur), false);
  heur.chain_pdl = time_chain(s, lt_gemm(s, heur), true);  // racy where it does not wait: for its time only
  std::vector<Candidate> shown;
  std::vector<int> per_id(1024, 0);
  int waiting_shown = 0;
  for (Candidate& c : ok) {
    if (c.id < 0 || per_id[static_cast<size_t>(c.id) % per_id.size()]++ >= 2) continue;
    c.waits = probe_waits(s, lt_gemm(s, c));
    if (c.waits == 1 && waiting_shown < top) {
      ++waiting_shown;
      c.chain_plain = time_chain(s, lt_gemm(s, c), false);
      c.chain_pdl = time_chain(s, lt_gemm(s, c), true);
    }
    shown.push_back(c);
    if (shown.size() >= 40) break;
  }
  std::printf("heuristic #0: %.2f us, waits %d, chain plain %.2f us/pair (pdl, racy if it does not wait: %.2f)\n",
              heur.us, heur.waits, heur.chain_plain, heur.chain_pdl);
  std::printf("%5s %5s %6s %6s %5s %8s %6s %12s %12s  %s\n", "id", "tile", "stages", "splitK", "redu", "us", "waits",
              "chain plain", "chain pdl", "kernels");
  for (const Candidate& c : shown)
    std::printf("%5d %5d %6d %6d %5d %8.2f %6d %12.2f %12.2f  %s\n", c.id, c.tile, c.stages, c.splitk, c.redu, c.us,
                c.waits, c.chain_plain, c.chain_pdl, c.kernels.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> ms{48};
  std::vector<laya::bench::GemmShape> nks{{3072, 1024, 1}, {1024, 1024, 1}, {5248, 1024, 1}, {1024, 2624, 1}, {1024, 2624, 2}};
  int top = 6;
  bool probe = false, trigger = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i], val = argv[i + 1];
    if (opt == "--m") {
      ms = parse_ints(val, ',');
    } else if (opt == "--nk") {
      nks = laya::bench::parse_shapes(val);
    } else if (opt == "--probe") {
      probe = std::atoi(val.c_str()) != 0;
    } else if (opt == "--trigger") {
      trigger = std::atoi(val.c_str()) != 0;
    } else if (opt == "--top") {
      top = std::max(1, std::atoi(val.c_str()));
    } else {
      std::fprintf(stderr, "unknown option %s\n", opt.c_str());
      return 2;
    }
  }
  Shape s;
  if (cublasLtCreate(&s.lt) != CUBLAS_STATUS_SUCCESS) return 1;
  check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "stream");
  s.ws_bytes = 32u << 20;
  check(cudaMalloc(&s.ws, s.ws_bytes), "workspace");
  std::printf("cuBLASLt %zu; us per GEMM in a graph of %d launches; chain: us per (own kernel -> GEMM) pair, %d pairs\n",
              cublasLtGetVersion(), kLaunches, kChain);
  for (const auto& [n, k, splits] : nks) {
    s.splits = std::max(1, splits);
    const int max_m = *std::max_element(ms.begin(), ms.end());
    s.n = n;
    s.k = k;
    s.w_bytes = static_cast<size_t>(n) * k * 2;
    s.w = laya::bench::pattern_copies(n, k, kLayers);
    s.seed = laya::bench::pattern_copies(max_m, k, 1);  // the GEMM input the probes and chains write
    const size_t io = static_cast<size_t>(max_m) * std::max(n, k) * 4 * s.splits;
    check(cudaMalloc(&s.in, io), "in");
    check(cudaMalloc(&s.out, io), "out");
    for (int m : ms) {
      s.m = m;
      check(cudaMemcpy(s.in, s.seed, static_cast<size_t>(m) * k * 2, cudaMemcpyDeviceToDevice), "in");
      describe(s);
      std::vector<Candidate> all = heuristic_candidates(s);
      if (all.empty()) {
        std::printf("M=%d N=%d K=%d: no heuristic result\n", m, n, k);
      } else if (trigger) {
        time_candidate(s, all.front());  // names its kernels
        report_trigger(s, all.front());
      } else {
        int n_ids = 0, checked = 0;
        for (Candidate& c : enumerated_candidates(s, all.front(), &n_ids, &checked)) all.push_back(c);
        for (Candidate& c : all) time_candidate(s, c);
        report(s, all, n_ids, checked, probe, top);
      }
      release(s);
    }
    cudaFree(s.w);
    cudaFree(s.in);
    cudaFree(s.seed);
    cudaFree(s.out);
  }
  return 0;
}
