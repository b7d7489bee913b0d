#include "backends/cuda/graph_pdl.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "backends/cuda/check.h"

namespace laya::cuda {

GraphPdl parse_graph_pdl(const char* value) {
  if (value == nullptr) return GraphPdl::off;
  if (std::strcmp(value, "own") == 0) return GraphPdl::own;
  if (std::strcmp(value, "all") == 0) return GraphPdl::all;
  return GraphPdl::off;
}

GraphPdl graph_pdl_mode() {
  static const GraphPdl mode = parse_graph_pdl(std::getenv("LAYA_CUDA_GRAPH_PDL"));
  return mode;
}

std::string GraphEdgeCount::to_string() const {
  return fmt::format("{} kernel nodes, {} other nodes, {} kernel edges ({} programmatic, {} converted)", kernel_nodes,
                     other_nodes, kernel_edges, programmatic_edges, converted);
}

namespace {

bool is_kernel(cudaGraphNode_t node) {
  cudaGraphNodeType type{};
  LAYA_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
  return type == cudaGraphNodeTypeKernel;
}

// One of the engine's own kernels: registered with this binary's runtime under a name in
// namespace laya (cuBLASLt's kernels are launched through the driver and do not resolve here).
bool is_own_kernel(cudaGraphNode_t node) {
  cudaKernelNodeParams p{};
  if (cudaGraphKernelNodeGetParams(node, &p) != cudaSuccess || p.func == nullptr) {
    cudaGetLastError();
    return false;
  }
  const char* name = nullptr;
  if (cudaFuncGetName(&name, p.func) != cudaSuccess || name == nullptr) {
    cudaGetLastError();
    return false;
  }
  return std::strstr(name, "laya") != nullptr;
}

struct Edges {
  std::vector<cudaGraphNode_t> from, to;
  std::vector<cudaGraphEdgeData> data;
};

Edges graph_edges(cudaGraph_t graph) {
  size_t n = 0;
  LAYA_CUDA_CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &n));
  Edges e;
  e.from.resize(n);
  e.to.resize(n);
  e.data.resize(n);
  if (n > 0) LAYA_CUDA_CHECK(cudaGraphGetEdges(graph, e.from.data(), e.to.data(), e.data.data(), &n));
  return e;
}

GraphEdgeCount count_nodes(cudaGraph_t graph) {
  size_t n = 0;
  LAYA_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n > 0) LAYA_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
  GraphEdgeCount c;
  for (cudaGraphNode_t node : nodes) (is_kernel(node) ? c.kernel_nodes : c.other_nodes)++;
  return c;
}

}  // namespace

GraphEdgeCount count_graph_edges(cudaGraph_t graph) {
  GraphEdgeCount c = count_nodes(graph);
  const Edges e = graph_edges(graph);
  for (size_t i = 0; i < e.from.size(); ++i) {
    if (!is_kernel(e.from[i]) || !is_kernel(e.to[i])) continue;
    ++c.kernel_edges;
    if (e.data[i].type == cudaGraphDependencyTypeProgrammatic) ++c.programmatic_edges;
  }
  return c;
}

GraphEdgeCount make_edges_programmatic(cudaGraph_t graph, GraphPdl mode) {
  int converted = 0;
  if (mode != GraphPdl::off) {
    const Edges e = graph_edges(graph);
    cudaGraphEdgeData programmatic{};
    programmatic.type = cudaGraphDependencyTypeProgrammatic;
    programmatic.from_port = cudaGraphKernelNodePortProgrammatic;
    for (size_t i = 0; i < e.from.size(); ++i) {
      if (e.data[i].type != cudaGraphDependencyTypeDefault || !is_kernel(e.from[i]) || !is_kernel(e.to[i])) continue;
      if (mode == GraphPdl::own && !is_own_kernel(e.to[i])) continue;
      LAYA_CUDA_CHECK(cudaGraphRemoveDependencies(graph, &e.from[i], &e.to[i], &e.data[i], 1));
      LAYA_CUDA_CHECK(cudaGraphAddDependencies(graph, &e.from[i], &e.to[i], &programmatic, 1));
      ++converted;
    }
  }
  GraphEdgeCount c = count_graph_edges(graph);
  c.converted = converted;
  return c;
}

}  // namespace laya::cuda
