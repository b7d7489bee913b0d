// Programmatic edges in a captured forward graph (experiment, LAYA_CUDA_GRAPH_PDL).
//
// A plain graph edge between two kernels starts the second one only after the first has
// completed and flushed: at 1×48 that boundary (≈ 1–2 µs) is paid ≈ 250 times per forward. A
// programmatic edge lets the second kernel launch as soon as every block of the first has
// triggered (griddepcontrol.launch_dependents) or exited; the second kernel's
// griddepcontrol.wait then holds it until the first has completed and its memory is visible.
// So an edge may only become programmatic where the consumer waits before touching memory: the
// engine's own kernels do (dev::pdl_prologue, first statement of each), and cuBLASLt 13's sm90
// kernels carry the same wait (ACQBULK in their SASS; docs/cuda.md, "Programmatic edges").
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace laya::cuda {

enum class GraphPdl {
  off,  // edges as captured
  own,  // programmatic where the consumer is one of the engine's own kernels
  all,  // programmatic between any two kernels (cuBLASLt's kernels wait too)
};

// LAYA_CUDA_GRAPH_PDL = off | own | all (read once; default off). Unknown values are off.
GraphPdl graph_pdl_mode();
GraphPdl parse_graph_pdl(const char* value);

struct GraphEdgeCount {
  int kernel_nodes = 0;
  int other_nodes = 0;
  int kernel_edges = 0;        // kernel → kernel
  int programmatic_edges = 0;  // of those, already programmatic
  int converted = 0;           // made programmatic by make_edges_programmatic
  std::string to_string() const;
};

// Counts the graph's nodes and edges (for logs and tests).
GraphEdgeCount count_graph_edges(cudaGraph_t graph);

// Turns the default kernel → kernel edges whose consumer qualifies under `mode` into
// programmatic ones (trigger port). Throws laya::Error when a graph call fails.
GraphEdgeCount make_edges_programmatic(cudaGraph_t graph, GraphPdl mode);

}  // namespace laya::cuda
