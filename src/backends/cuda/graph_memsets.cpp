#include "backends/cuda/graph_memsets.h"

#include <algorithm>
#include <cstdint>
#include <unordered_set>

#include "backends/cuda/check.h"

namespace laya::cuda {
namespace {

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

int move_gemm_memsets(cudaGraph_t graph, const GemmCaptureLog& log, const void* workspace, size_t bytes) {
  const std::unordered_set<cudaGraphNode_t> added(log.added.begin(), log.added.end());
  const std::unordered_set<cudaGraphNode_t> before(log.before.begin(), log.before.end());
  const auto* lo = static_cast<const char*>(workspace);
  int moved = 0;
  for (cudaGraphNode_t m : log.added) {
    if (type_of(m) != cudaGraphNodeTypeMemset) continue;
    cudaMemsetParams p{};
    LAYA_CUDA_CHECK(cudaGraphMemsetNodeGetParams(m, &p));
    const auto* dst = static_cast<const char*>(p.dst);
    const size_t span = p.pitch * (p.height > 0 ? p.height - 1 : 0) + p.width * p.elementSize;
    if (dst < lo || dst + span > lo + bytes) continue;  // not the workspace: leave it
    const Edges pred = dependencies(m);
    // The call's first node, after one kernel of the forward's own (never after another call's
    // node, which may use the workspace too).
    if (pred.nodes.size() != 1 || added.count(pred.nodes[0]) != 0 || before.count(pred.nodes[0]) == 0 ||
        type_of(pred.nodes[0]) != cudaGraphNodeTypeKernel)
      continue;
    cudaGraphNode_t k = pred.nodes[0];
    const Edges next = dependents(m);
    const Edges k_pred = dependencies(k);
    const Edges k_next = dependents(k);
    LAYA_CUDA_CHECK(cudaGraphRemoveDependencies(graph, &k, &m, pred.data.data(), 1));
    // New edges are plain (default edge data): the memset waits for K's dependencies to complete,
    // and the GEMM for K.
    for (cudaGraphNode_t p0 : k_pred.nodes) LAYA_CUDA_CHECK(cudaGraphAddDependencies(graph, &p0, &m, nullptr, 1));
    for (cudaGraphNode_t n : next.nodes)
      if (std::find(k_next.nodes.begin(), k_next.nodes.end(), n) == k_next.nodes.end())
        LAYA_CUDA_CHECK(cudaGraphAddDependencies(graph, &k, &n, nullptr, 1));
    ++moved;
  }
  return moved;
}

}  // namespace laya::cuda
