// Helpers of the GPU tests: GPU detection (skip loudly), dump capture, random batches, parity
// metrics.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/batch.h"
#include "engine/dump.h"

namespace laya::test {

bool have_gpu();

#define LAYA_REQUIRE_GPU() \
  if (!::laya::test::have_gpu()) GTEST_SKIP() << "no CUDA GPU: test not run"

class MapSink : public engine::DumpSink {
 public:
  bool wants(std::string_view) const override { return true; }
  void put(std::string_view name, const float* data, size_t rows, size_t cols) override {
    auto& t = tensors[std::string(name)];
    t.assign(data, data + rows * cols);
    shapes[std::string(name)] = {rows, cols};
  }
  std::map<std::string, std::vector<float>> tensors;
  std::map<std::string, std::pair<size_t, size_t>> shapes;
};

struct Diff {
  double nrms = 0.0;       // rms(got - ref) / rms(ref) (absolute when ref is all zeros)
  double nrms_unit = 0.0;  // rms(got - ref) / max(rms(ref), 1): nRMS with the max bound's unit floor
  double max_abs = 0.0;
  double ref_max = 0.0;
  bool finite = true;
  // The bound (nRMS <= 5e-3, max|d| <= 0.02 max(|ref|, 1)) by default.
  bool ok(double nrms_bound = 5e-3, double max_scale = 0.02) const {
    return finite && nrms <= nrms_bound && max_abs <= max_scale * std::max(ref_max, 1.0);
  }
  // The same with nrms_unit: a tensor whose values are all far below 1 (a head output of a one-row
  // request) is held to an absolute RMS error, as the max bound already is.
  bool ok_unit_floor(double nrms_bound = 5e-3, double max_scale = 0.02) const {
    return finite && nrms_unit <= nrms_bound && max_abs <= max_scale * std::max(ref_max, 1.0);
  }
};
Diff compare(const std::vector<float>& got, const std::vector<float>& ref);

// A random batch: `rows` rows, lengths uniform in [min_len, max_len], 1..max_markers markers per
// row at distinct positions, random qtypes, ids in [0, vocab).
engine::Batch random_batch(std::mt19937& rng, int32_t rows, int32_t min_len, int32_t max_len, int32_t vocab,
                           int32_t max_markers = 6);

// Per-row softmax probabilities of per-marker logits.
std::vector<float> row_probabilities(const engine::Batch& b, const std::vector<float>& logits);

// The largest |difference| between the per-row probabilities of two logits vectors of batch b
// (infinity when their sizes differ).
double max_probability_gap(const engine::Batch& b, const std::vector<float>& x, const std::vector<float>& y);

}  // namespace laya::test
