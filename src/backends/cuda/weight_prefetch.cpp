#include "backends/cuda/weight_prefetch.h"

#include <utility>

#include "backends/cuda/check.h"
#include "backends/cuda/l2_prefetch.cuh"

namespace laya::cuda {

WeightPrefetch::WeightPrefetch(std::vector<WeightRange> order, int32_t lookahead, bool lines)
    : order_(std::move(order)), lookahead_(lookahead), lines_(lines) {
  LAYA_REQUIRE(lookahead_ >= 1, ErrorKind::internal, "weight prefetch: lookahead {} (>= 1)", lookahead_);
  try {
    LAYA_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
    LAYA_CUDA_CHECK(cudaEventCreateWithFlags(&step_, cudaEventDisableTiming));
    LAYA_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  } catch (...) {
    release();
    throw;
  }
}

WeightPrefetch::~WeightPrefetch() { release(); }

void WeightPrefetch::release() noexcept {
  if (step_ != nullptr) cudaEventDestroy(step_);
  if (done_ != nullptr) cudaEventDestroy(done_);
  if (side_ != nullptr) cudaStreamDestroy(side_);
  step_ = done_ = nullptr;
  side_ = nullptr;
}

void WeightPrefetch::prefetch(size_t index) {
  if (index < order_.size()) launch_l2_prefetch(order_[index].p, order_[index].bytes, lines_, side_);
}

void WeightPrefetch::begin(cudaStream_t main) {
  LAYA_REQUIRE(!active_, ErrorKind::internal, "weight prefetch: begin() twice");
  LAYA_CUDA_CHECK(cudaEventRecord(step_, main));
  LAYA_CUDA_CHECK(cudaStreamWaitEvent(side_, step_, 0));
  active_ = true;
  next_ = 0;
  for (size_t i = 0; i < static_cast<size_t>(lookahead_); ++i) prefetch(i);
}

void WeightPrefetch::before_gemm(cudaStream_t main, const void* w) {
  if (!active_) return;
  LAYA_REQUIRE(next_ < order_.size() && order_[next_].p == w, ErrorKind::internal,
               "weight prefetch: GEMM {} of the forward does not read the weight the order expects", next_);
  const size_t ahead = next_ + static_cast<size_t>(lookahead_);
  ++next_;
  if (ahead >= order_.size()) return;
  // The branch waits until the main stream has reached this GEMM, so it stays `lookahead` GEMMs
  // ahead and never evicts weights that are still to be read.
  LAYA_CUDA_CHECK(cudaEventRecord(step_, main));
  LAYA_CUDA_CHECK(cudaStreamWaitEvent(side_, step_, 0));
  prefetch(ahead);
}

void WeightPrefetch::end(cudaStream_t main) noexcept {
  if (!active_) return;
  active_ = false;
  // Errors here surface at the capture's end or the forward's synchronisation.
  if (cudaEventRecord(done_, side_) == cudaSuccess) (void)cudaStreamWaitEvent(main, done_, 0);
}

}  // namespace laya::cuda
