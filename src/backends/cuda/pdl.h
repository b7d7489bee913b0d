// Whether the engine's own kernels launch with Programmatic Dependent Launch (host side; the
// launch helpers in common.cuh read it).
#pragma once

#include <cstdlib>

namespace laya::cuda {

// Programmatic Dependent Launch: the engine's own kernels are launched with programmatic stream
// serialization, so a kernel's launch overlaps the end of the one before it. Every kernel starts
// with dev::pdl_prologue(), which waits until the previous grid has completed and its memory is
// visible BEFORE touching any memory (so the results are those of plain stream order) and only
// then lets the next kernel launch. On for the launches inside a PdlScope (the engine opens one for
// the buckets whose encoder GEMMs wait too, small_gemm.cuh, docs/benchmarks/cuda.md item 58, and
// for the buckets of 1,536-4,096 tokens, item 108), between own kernels elsewhere (own edges,
// below), or for every launch with LAYA_CUDA_PDL=1 (experiment; read once).
inline bool pdl_from_env() {
  static const bool on = [] {
    const char* v = std::getenv("LAYA_CUDA_PDL");
    return v != nullptr && v[0] == '1';
  }();
  return on;
}
inline bool& pdl_scope_on() {
  static thread_local bool on = false;
  return on;
}
inline bool pdl_enabled() { return pdl_from_env() || pdl_scope_on(); }

// Own edges: outside a PdlScope too, an own kernel launches programmatically when the launch before
// it on this thread was an own kernel as well (each waits before it triggers: dev::pdl_prologue),
// never after a cuBLASLt kernel (Gemm clears the mark): programmatic edges out of cuBLASLt's
// kernels cost +0.01 ms in the buckets of 192-512 tokens (docs/benchmarks/cuda.md items 107, 111).
// LAYA_CUDA_PDL_OWN_EDGES=0 turns it off (experiment; read once).
inline bool pdl_own_edges_from_env() {
  static const bool on = [] {
    const char* v = std::getenv("LAYA_CUDA_PDL_OWN_EDGES");
    return v == nullptr || v[0] != '0';
  }();
  return on;
}
inline bool& pdl_last_launch_own() {
  static thread_local bool own = false;
  return own;
}
// Whether the next own kernel launched on the engine's stream gets a programmatic edge.
inline bool pdl_for_next_launch() { return pdl_enabled() || (pdl_own_edges_from_env() && pdl_last_launch_own()); }
// The shared-memory carveout (percent) the scope's PDL launches prefer, as a launch attribute; -1:
// the driver's choice.
inline int& pdl_scope_carveout() {
  static thread_local int percent = -1;
  return percent;
}

// PDL for the kernels this thread launches while the scope lives (when `on`), each preferring a
// `carveout` % shared-memory carveout where it is >= 0 (a per-launch attribute: it holds for the
// launches of this scope only, so one bucket's preference does not reach another's kernels).
class PdlScope {
 public:
  explicit PdlScope(bool on, int carveout = -1) : outer_(pdl_scope_on()), outer_carveout_(pdl_scope_carveout()) {
    pdl_scope_on() = outer_ || on;
    if (on) pdl_scope_carveout() = carveout;
  }
  ~PdlScope() {
    pdl_scope_on() = outer_;
    pdl_scope_carveout() = outer_carveout_;
  }
  PdlScope(const PdlScope&) = delete;
  PdlScope& operator=(const PdlScope&) = delete;

 private:
  bool outer_;
  int outer_carveout_;
};

}  // namespace laya::cuda
