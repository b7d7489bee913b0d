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
// the buckets whose encoder GEMMs wait too, small_gemm.cuh: only there does it pay,
// docs/benchmarks/cuda.md item 58), or for every launch with LAYA_CUDA_PDL=1 (experiment; read once).
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
