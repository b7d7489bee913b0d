#include "backends/cuda/graph_memsets.h"

#include <algorithm>
#include <cstdint>
#include <unordered_set>

#include "backends/cuda/bus_copy.cuh"
#include "backends/cuda/check.h"

namespace laya::cuda {
namespace {

constexpr size_t kMaxFillElements = 4096;  // larger memsets stay memset nodes

// The capture's current last nodes (what the next captured operation will depend on).
std::vector<cudaGraphNode_t> capture_leaves(cudaStream_t stream, bool* capturing) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t* deps = nullptr;
  size_t n = 0;
  LAYA_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &deps, nullptr, &n));
  *capturing = status == cudaStreamCaptureStatusActive;
  return *capturing ? std::vector<cudaGraphNode_t>(deps, deps + n) : std::vector<cudaGraphNode_t>{};
}

// A node's incoming (or outgoing) edges. The edge data must be asked for: with a programmatic edge
// among them the query without it fails (cudaErrorLossyQuery).
struct Edges {
  std::vector<cudaGraphNode_t> nodes;
  std::vector<cudaGraphEdgeData> data;
};

Edges edges(cudaGraphNode_t node, cudaError_t (*query)(cudaGraphNode_t, cudaGraphNode_t*, cudaGraphEdgeData*, size_t*)) {
  size_t n = 0;
  LAYA_CUDA_CHECK(query(node, nullptr, nullptr, &n));
  Edges e{std::vector<cudaGraphNode_t>(n), std::vector<cudaGraphEdgeData>(n)};
  if (n > 0) LAYA_CUDA_CHECK(query(node, e.nodes.data(), e.data.data(), &n));
  return e;
}
Edges dependencies(cudaGraphNode_t node) { return edges(node, cudaGraphNodeGetDependencies); }
Edges dependents(cudaGraphNode_t node) { return edges(node, cudaGraphNodeGetDependentNodes); }

cudaGraphNodeType type_of(cudaGraphNode_t node) {
  cudaGraphNodeType t{};
  LAYA_CUDA_CHECK(cudaGraphNodeGetType(node, &t));
  return t;
}

}  // namespace

CaptureCallLog::CaptureCallLog(GemmCaptureLog* log, cudaStream_t stream) : stream_(stream) {
  if (log == nullptr) return;
  bool capturing = false;
  before_ = capture_leaves(stream, &capturing);
  if (capturing) log_ = log;
}

void CaptureCallLog::finish() {
  if (log_ == nullptr) return;
  bool capturing = false;
  std::vector<cudaGraphNode_t> stack = capture_leaves(stream_, &capturing);
  if (!capturing) return;
  // The call's nodes: everything reachable backwards from the new last nodes without passing the
  // old ones (a stream capture is a chain; the walk also holds for a call that forks and joins).
  const std::unordered_set<cudaGraphNode_t> old(before_.begin(), before_.end());
  std::unordered_set<cudaGraphNode_t> seen;
  while (!stack.empty()) {
    cudaGraphNode_t n = stack.back();
    stack.pop_back();
    if (old.count(n) != 0 || !seen.insert(n).second) continue;
    log_->added.push_back(n);
    for (cudaGraphNode_t d : dependencies(n).nodes) stack.push_back(d);
  }
  log_->before.insert(log_->before.end(), before_.begin(), before_.end());
  log_ = nullptr;
}

int replace_gemm_memsets(cudaGraph_t graph, const GemmCaptureLog& log, const void* workspace, size_t bytes) {
  const std::unordered_set<cudaGraphNode_t> added(log.added.begin(), log.added.end());
  const std::unordered_set<cudaGraphNode_t> before(log.before.begin(), log.before.end());
  const auto* lo = static_cast<const char*>(workspace);
  int replaced = 0;
  for (cudaGraphNode_t m : log.added) {
    if (type_of(m) != cudaGraphNodeTypeMemset) continue;
    cudaMemsetParams p{};
    LAYA_CUDA_CHECK(cudaGraphMemsetNodeGetParams(m, &p));
    const auto* dst = static_cast<const char*>(p.dst);
    const size_t height = std::max<size_t>(p.height, 1);
    const size_t span = p.pitch * (height - 1) + p.width * p.elementSize;
    if (dst < lo || dst + span > lo + bytes || p.width * height > kMaxFillElements) continue;  // not a counter: leave it
    const Edges pred = dependencies(m);
    // The call's first node, after one kernel of the forward's own (never after another call's
    // node: the edge into the stand-in is programmatic, which needs a kernel before it, and the
    // stand-in must not write before the workspace's previous user has completed).
    if (pred.nodes.size() != 1 || added.count(pred.nodes[0]) != 0 || before.count(pred.nodes[0]) == 0 ||
        type_of(pred.nodes[0]) != cudaGraphNodeTypeKernel)
      continue;
    cudaGraphNode_t k = pred.nodes[0];
    const Edges next = dependents(m);
    FillParams fp;
    fp.dst = p.dst;
    fp.pitch = p.pitch;
    fp.value = p.value;
    fp.elem_bytes = static_cast<int32_t>(p.elementSize);
    fp.width = static_cast<int32_t>(p.width);
    fp.height = static_cast<int32_t>(height);
    void* args[] = {&fp};
    cudaKernelNodeParams kp{};
    kp.func = const_cast<void*>(fill_kernel_function());
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(kFillThreads);
    kp.kernelParams = args;
    cudaGraphNode_t z = nullptr;
    LAYA_CUDA_CHECK(cudaGraphAddKernelNode(&z, graph, nullptr, 0, &kp));
    // K -> stand-in programmatic: it launches while K runs and waits for K's completion, which
    // implies the previous GEMM's (K waited for it); the GEMM then waits for the stand-in, plainly.
    cudaGraphEdgeData programmatic{};
    programmatic.from_port = cudaGraphKernelNodePortProgrammatic;
    programmatic.type = cudaGraphDependencyTypeProgrammatic;
    LAYA_CUDA_CHECK(cudaGraphAddDependencies(graph, &k, &z, &programmatic, 1));
    for (cudaGraphNode_t n : next.nodes) LAYA_CUDA_CHECK(cudaGraphAddDependencies(graph, &z, &n, nullptr, 1));
    LAYA_CUDA_CHECK(cudaGraphDestroyNode(m));
    ++replaced;
  }
  return replaced;
}

}  // namespace laya::cuda
