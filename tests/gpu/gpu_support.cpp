#include "gpu_support.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace laya::test {

bool have_gpu() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

Diff compare(const std::vector<float>& got, const std::vector<float>& ref) {
  Diff d;
  if (got.size() != ref.size()) {
    d.finite = false;
    d.nrms = 1e30;
    return d;
  }
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) d.finite = false;
    const double e = static_cast<double>(got[i]) - static_cast<double>(ref[i]);
    num += e * e;
    den += static_cast<double>(ref[i]) * ref[i];
    d.max_abs = std::max(d.max_abs, std::fabs(e));
    d.ref_max = std::max(d.ref_max, std::fabs(static_cast<double>(ref[i])));
  }
  d.nrms = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  const double n = static_cast<double>(std::max<size_t>(ref.size(), 1));
  d.nrms_unit = std::sqrt(num / n) / std::max(std::sqrt(den / n), 1.0);
  return d;
}

engine::Batch random_batch(std::mt19937& rng, int32_t rows, int32_t min_len, int32_t max_len, int32_t vocab,
                           int32_t max_markers) {
  engine::Batch b;
  std::uniform_int_distribution<int32_t> len_d(min_len, max_len), id_d(0, vocab - 1), q_d(0, 2);
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t len = len_d(rng);
    std::vector<int32_t> ids(static_cast<size_t>(len));
    for (auto& id : ids) id = id_d(rng);
    std::vector<int32_t> pos(static_cast<size_t>(len));
    std::iota(pos.begin(), pos.end(), 0);
    std::shuffle(pos.begin(), pos.end(), rng);
    const int32_t nm = std::uniform_int_distribution<int32_t>(1, std::max(1, std::min(max_markers, len)))(rng);
    std::vector<int32_t> marks(pos.begin(), pos.begin() + nm);
    std::sort(marks.begin(), marks.end());
    b.add_row(ids, marks, q_d(rng));
  }
  return b;
}

std::vector<float> row_probabilities(const engine::Batch& b, const std::vector<float>& logits) {
  std::vector<float> p(logits.size());
  for (int32_t r = 0; r < b.rows(); ++r) {
    const int32_t s = b.marker_offsets[r], e = b.marker_offsets[r + 1];
    double mx = -1e300, sum = 0.0;
    for (int32_t k = s; k < e; ++k) mx = std::max(mx, static_cast<double>(logits[k]));
    for (int32_t k = s; k < e; ++k) sum += std::exp(logits[k] - mx);
    for (int32_t k = s; k < e; ++k) p[k] = static_cast<float>(std::exp(logits[k] - mx) / sum);
  }
  return p;
}

double max_probability_gap(const engine::Batch& b, const std::vector<float>& x, const std::vector<float>& y) {
  if (x.size() != y.size()) return std::numeric_limits<double>::infinity();
  const auto px = row_probabilities(b, x), py = row_probabilities(b, y);
  double worst = 0.0;
  for (size_t i = 0; i < px.size(); ++i) worst = std::max(worst, std::fabs(static_cast<double>(px[i]) - py[i]));
  return worst;
}

}  // namespace laya::test
