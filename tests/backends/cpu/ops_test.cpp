// The reference ops against naive double-precision re-statements of the official semantics, on
// random data and edge shapes (length 1, window edges, single option, 50 options).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "backends/cpu/ops.h"

namespace laya::cpu {
namespace {

std::vector<float> randn(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

TEST(CpuOps, LayerNormMatchesDoubleReference) {
  for (bool with_bias : {false, true}) {
    const int64_t rows = 7, d = 96;
    auto x = randn(rows * d, 1, 3.0f);
    for (int64_t i = 0; i < d; ++i) x[i] += 100.0f;  // a row with a large mean
    auto w = randn(d, 2), b = randn(d, 3);
    std::vector<float> y(rows * d);
    layer_norm(x.data(), rows, d, w.data(), with_bias ? b.data() : nullptr, 1e-5f, y.data());
    std::vector<double> ref(rows * d);
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < d; ++i) mean += x[r * d + i];
      mean /= d;
      for (int64_t i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
      var /= d;
      for (int64_t i = 0; i < d; ++i)
        ref[r * d + i] = (x[r * d + i] - mean) / std::sqrt(var + 1e-5) * w[i] + (with_bias ? b[i] : 0.0);
    }
    EXPECT_LT(max_abs_diff(y, ref), 2e-5) << "bias " << with_bias;
    // in place gives the same result
    std::vector<float> z = x;
    layer_norm(z.data(), rows, d, w.data(), with_bias ? b.data() : nullptr, 1e-5f, z.data());
    EXPECT_EQ(z, y);
  }
}

TEST(CpuOps, LinearBiasAccumulateAndStrides) {
  const int64_t rows = 5, in = 33, out = 17, ld_x = 40, ld_y = 20;
  auto x = randn(rows * ld_x, 4), w = randn(out * in, 5), b = randn(out, 6);
  auto y0 = randn(rows * ld_y, 7);
  std::vector<double> ref(rows * ld_y);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < ld_y; ++o) {
      if (o >= out) {
        ref[r * ld_y + o] = y0[r * ld_y + o];  // outside the output width: untouched
        continue;
      }
      double s = b[o];
      for (int64_t i = 0; i < in; ++i) s += static_cast<double>(x[r * ld_x + i]) * w[o * in + i];
      ref[r * ld_y + o] = s;
    }
  std::vector<float> y = y0;
  linear(x.data(), rows, in, w.data(), b.data(), out, y.data(), false, ld_x, ld_y);
  EXPECT_LT(max_abs_diff(y, ref), 1e-4);

  // accumulate: y0 + x·Wᵀ + b
  std::vector<double> ref_acc = ref;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) ref_acc[r * ld_y + o] += y0[r * ld_y + o];
  y = y0;
  linear(x.data(), rows, in, w.data(), b.data(), out, y.data(), true, ld_x, ld_y);
  EXPECT_LT(max_abs_diff(y, ref_acc), 1e-4);

  // no bias, zero rows is a no-op
  std::vector<float> untouched = y0;
  linear(x.data(), 0, in, w.data(), nullptr, out, untouched.data());
  EXPECT_EQ(untouched, y0);
}

TEST(CpuOps, RopeTableFollowsHfFormula) {
  const auto t = make_rope_table(160000.0, 600, 64);
  ASSERT_EQ(t.cos.size(), 600u * 64u);
  for (int p : {0, 1, 63, 64, 65, 511, 599}) {
    for (int j = 0; j < 32; ++j) {
      const float inv = 1.0f / std::pow(160000.0f, static_cast<float>(2 * j) / 64.0f);
      const float f = static_cast<float>(p) * inv;
      EXPECT_EQ(t.cos[p * 64 + j], std::cos(f));
      EXPECT_EQ(t.cos[p * 64 + j + 32], std::cos(f));
      EXPECT_EQ(t.sin[p * 64 + j + 32], std::sin(f));
      // and close to the exact double value
      const double fd = p / std::pow(160000.0, 2.0 * j / 64.0);
      EXPECT_NEAR(t.sin[p * 64 + j], std::sin(fd), 1e-4) << p << " " << j;
    }
  }
  EXPECT_EQ(t.cos[0], 1.0f);
  EXPECT_EQ(t.sin[5], 0.0f);
}

TEST(CpuOps, RopeRotateHalfMatchesNaive) {
  const auto t = make_rope_table(10000.0, 64, 64);
  const int64_t len = 9, heads = 3, ld = 3 * 64 + 5;
  auto x = randn(len * ld, 8);
  auto y = x;
  rope_rotate_half(y.data(), len, ld, heads, t);
  std::vector<double> ref(x.begin(), x.end());
  for (int64_t p = 0; p < len; ++p)
    for (int64_t h = 0; h < heads; ++h)
      for (int j = 0; j < 32; ++j) {
        const double x1 = x[p * ld + h * 64 + j], x2 = x[p * ld + h * 64 + j + 32];
        const double c = t.cos[p * 64 + j], s = t.sin[p * 64 + j];
        ref[p * ld + h * 64 + j] = x1 * c - x2 * s;
        ref[p * ld + h * 64 + j + 32] = x2 * c + x1 * s;
      }
  EXPECT_LT(max_abs_diff(y, ref), 1e-6);
  // position 0 is the identity
  for (int e = 0; e < 64 * heads; ++e) EXPECT_EQ(y[e], x[e]);
  // the trailing columns beyond the heads are untouched
  for (int64_t p = 0; p < len; ++p)
    for (int64_t e = heads * 64; e < ld; ++e) EXPECT_EQ(y[p * ld + e], x[p * ld + e]);
}

// Padded dense reference: one row at a time, mask |i-j| > w (local) with -inf, softmax in double.
std::vector<double> naive_attention(const std::vector<float>& qkv, int64_t ld, const std::vector<int32_t>& offs,
                                    int heads, int w, float scale) {
  const int64_t d = static_cast<int64_t>(heads) * 64;
  std::vector<double> out(static_cast<size_t>(offs.back() * d), 0.0);
  for (size_t r = 0; r + 1 < offs.size(); ++r) {
    const int64_t s0 = offs[r], len = offs[r + 1] - offs[r];
    for (int h = 0; h < heads; ++h)
      for (int64_t i = 0; i < len; ++i) {
        std::vector<double> sc(len, -INFINITY);
        double mx = -INFINITY;
        for (int64_t j = 0; j < len; ++j) {
          if (w >= 0 && std::abs(i - j) > w) continue;
          double s = 0;
          for (int e = 0; e < 64; ++e)
            s += static_cast<double>(qkv[(s0 + i) * ld + h * 64 + e]) * qkv[(s0 + j) * ld + d + h * 64 + e];
          sc[j] = s * scale;
          mx = std::max(mx, sc[j]);
        }
        double sum = 0;
        for (auto& v : sc) {
          v = std::exp(v - mx);
          sum += v;
        }
        for (int64_t j = 0; j < len; ++j)
          for (int e = 0; e < 64; ++e)
            out[(s0 + i) * d + h * 64 + e] += sc[j] / sum * qkv[(s0 + j) * ld + 2 * d + h * 64 + e];
      }
  }
  return out;
}

// Attention over a packed [tokens, 3·heads·64] q|k|v buffer into [tokens, heads·64], global window.
AttentionParams packed_qkv_params(const std::vector<float>& qkv, std::vector<float>& out,
                                  const std::vector<int32_t>& offs, int heads) {
  const int64_t d = heads * 64;
  AttentionParams p;
  p.q = qkv.data();
  p.k = qkv.data() + d;
  p.v = qkv.data() + 2 * d;
  p.ld_q = p.ld_k = p.ld_v = 3 * d;
  p.out = out.data();
  p.ld_out = d;
  p.row_offsets = offs.data();
  p.rows = static_cast<int32_t>(offs.size() - 1);
  p.heads = heads;
  return p;
}

void check_attention(const std::vector<int32_t>& lens, int heads, int window_half, uint32_t seed) {
  std::vector<int32_t> offs{0};
  for (int32_t l : lens) offs.push_back(offs.back() + l);
  const int64_t d = heads * 64, ld = 3 * d, tokens = offs.back();
  auto qkv = randn(tokens * ld, seed, 1.5f);
  std::vector<float> out(tokens * d, std::nanf(""));  // poisoned: every element must be written
  AttentionParams p = packed_qkv_params(qkv, out, offs, heads);
  p.window_half = window_half;
  p.scale = 0.125f;
  attention(p);
  const auto ref = naive_attention(qkv, ld, offs, heads, window_half, 0.125f);
  for (float v : out) ASSERT_TRUE(std::isfinite(v));
  EXPECT_LT(max_abs_diff(out, ref), 1e-5) << "window " << window_half;
}

TEST(CpuOps, AttentionGlobalVarlenRows) { check_attention({1, 5, 17, 2, 64}, 2, -1, 10); }
TEST(CpuOps, AttentionLocalWindowEdges) {
  // window_half 8: rows shorter than, equal to, just over and far over the band
  check_attention({1, 8, 9, 16, 17, 18, 40}, 2, 8, 11);
  check_attention({3, 130}, 1, 64, 12);
  check_attention({7}, 1, 0, 13);  // window 0: each query sees only itself -> out = v
}

TEST(CpuOps, AttentionIsIndependentOfOtherRows) {
  // the same row alone and packed between others gives bit-identical results
  const int heads = 2, d = 128, ld = 3 * d, len = 23;
  auto row = randn(len * ld, 14);
  auto other = randn(30 * ld, 15);
  std::vector<float> packed(other.begin(), other.begin() + 11 * ld);
  packed.insert(packed.end(), row.begin(), row.end());
  packed.insert(packed.end(), other.begin() + 11 * ld, other.end());
  auto run = [&](const std::vector<float>& qkv, std::vector<int32_t> offs) {
    std::vector<float> out(static_cast<size_t>(offs.back() * d));
    attention(packed_qkv_params(qkv, out, offs, heads));
    return out;
  };
  const auto alone = run(row, {0, len});
  const auto with = run(packed, {0, 11, 11 + len, 11 + len + 19});
  for (int64_t i = 0; i < len * d; ++i) ASSERT_EQ(alone[i], with[11 * d + i]);
}

TEST(CpuOps, GeluGegluReluSoftmax) {
  auto x = randn(1000, 16, 3.0f);
  std::vector<float> g = x;
  gelu_erf(g.data(), static_cast<int64_t>(g.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = 0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0)));
    EXPECT_NEAR(g[i], r, 1e-6 * (1 + std::abs(r)));
  }
  EXPECT_EQ(gelu_erf(0.0f), 0.0f);

  const int64_t rows = 3, inter = 50;
  auto in = randn(rows * 2 * inter, 17);
  std::vector<float> out(rows * inter);
  geglu(in.data(), rows, inter, out.data());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < inter; ++j)
      EXPECT_EQ(out[r * inter + j], gelu_erf(in[r * 2 * inter + j]) * in[r * 2 * inter + inter + j]);

  std::vector<float> rl{-1.0f, 0.0f, 2.5f, -0.0f};
  relu(rl.data(), 4);
  EXPECT_EQ(rl, (std::vector<float>{0.0f, 0.0f, 2.5f, 0.0f}));

  std::vector<float> sm{1000.0f, 1001.0f, 999.0f};
  softmax(sm.data(), 3);
  const double e0 = std::exp(-1.0), e2 = std::exp(-2.0), z = 1 + e0 + e2;
  EXPECT_NEAR(sm[0], e0 / z, 1e-7);
  EXPECT_NEAR(sm[1], 1 / z, 1e-7);
  EXPECT_NEAR(sm[2], e2 / z, 1e-7);
}

TEST(CpuOps, ActFeaturesSingleTwoAndFiftyOptions) {
  // single option: p = [1], k clamps to 2, entropy 0, top2 = 0
  std::vector<float> one{-3.0f};
  auto f = act_features(one);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], 1.0f);
  EXPECT_EQ(f[2], 0.0f);
  EXPECT_FLOAT_EQ(f[3], 2.0f / 255.0f);

  // two equal options: uniform, entropy 1, gap 0
  std::vector<float> two{0.5f, 0.5f};
  f = act_features(two);
  EXPECT_FLOAT_EQ(f[0], 0.5f);
  EXPECT_EQ(f[1], 0.0f);
  EXPECT_NEAR(f[2], 1.0f, 1e-6);

  auto fifty = randn(50, 18, 2.0f);
  f = act_features(fifty);
  std::vector<double> p(50);
  double mx = -1e30, z = 0;
  for (float v : fifty) mx = std::max<double>(mx, v);
  for (int i = 0; i < 50; ++i) z += p[i] = std::exp(fifty[i] - mx);
  for (auto& v : p) v /= z;
  auto sorted = p;
  std::sort(sorted.rbegin(), sorted.rend());
  double ent = 0;
  for (double v : p) ent -= v * std::log(std::max(v, 1e-9));
  EXPECT_NEAR(f[0], sorted[0], 1e-6);
  EXPECT_NEAR(f[1], sorted[0] - sorted[1], 1e-6);
  EXPECT_NEAR(f[2], ent / std::log(50.0), 1e-6);
  EXPECT_FLOAT_EQ(f[3], 50.0f / 255.0f);

  // a probability below the 1e-9 clamp contributes p·ln(1e-9), not p·ln(p)
  std::vector<float> peaked{0.0f, -30.0f};
  f = act_features(peaked);
  const double p1 = std::exp(-30.0) / (1 + std::exp(-30.0));
  const double expect = -((1 - p1) * std::log(1 - p1) + p1 * std::log(1e-9)) / std::log(2.0);
  EXPECT_NEAR(f[2], expect, 1e-9);
}

}  // namespace
}  // namespace laya::cpu
