// The weight-prefetch branch of a captured forward. At small batches every GEMM streams its weight
// matrix from DRAM and waits on it (a 48-row GEMM over a 6 MB matrix is latency-bound, not
// compute-bound), and cuBLASLt's kernels cannot overlap the kernel before them. So a second
// stream, forked from the forward's stream, prefetches the weights into L2 `lookahead` GEMMs ahead
// of their use: just before GEMM i is enqueued, the branch waits until the main stream got there
// and then prefetches the weights of GEMM i + lookahead (l2_prefetch.cuh). The branch joins the
// main stream at the end of the forward, so a captured graph holds both. It only moves data into
// the cache: results are bitwise those of a forward without it.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

namespace laya::cuda {

struct WeightRange {
  const void* p = nullptr;
  int64_t bytes = 0;
};

class WeightPrefetch {
 public:
  // `order`: the weight matrix of each GEMM of a forward, in the order the forward runs them.
  WeightPrefetch(std::vector<WeightRange> order, int32_t lookahead, bool lines);
  ~WeightPrefetch();
  WeightPrefetch(const WeightPrefetch&) = delete;
  WeightPrefetch& operator=(const WeightPrefetch&) = delete;

  // Forks the branch from `main` and prefetches the first `lookahead` weights. Until end(),
  // before_gemm must be called for every GEMM of the forward, in order.
  void begin(cudaStream_t main);
  // Just before the GEMM that reads `w` is enqueued on `main` (no-op outside begin/end). Throws
  // (internal) when `w` is not the next weight of the order: the forward and the order disagree.
  void before_gemm(cudaStream_t main, const void* w);
  // Joins the branch into `main` (no-op when not begun). Safe to call twice.
  void end(cudaStream_t main) noexcept;

  size_t gemms() const { return order_.size(); }
  int32_t lookahead() const { return lookahead_; }

  // Joins the branch when the forward is left early by an exception.
  class Scope {
   public:
    Scope(WeightPrefetch* p, cudaStream_t main) : p_(p), main_(main) {
      if (p_ != nullptr) p_->begin(main_);
    }
    ~Scope() {
      if (p_ != nullptr) p_->end(main_);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    WeightPrefetch* p_;
    cudaStream_t main_;
  };

 private:
  void prefetch(size_t index);
  void release() noexcept;

  std::vector<WeightRange> order_;
  int32_t lookahead_ = 2;
  bool lines_ = false;
  cudaStream_t side_ = nullptr;
  cudaEvent_t step_ = nullptr, done_ = nullptr;
  bool active_ = false;
  size_t next_ = 0;  // the index in order_ of the next GEMM's weight
};

}  // namespace laya::cuda
