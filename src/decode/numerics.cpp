#include "decode/numerics.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace laya::decode {

namespace {
// Keep every operation a single IEEE float operation: no contraction into FMAs the reference does
// not do, and the FMAs it does do spelled out with std::fma.
inline float f_mul(float a, float b) { return a * b; }
inline float f_add(float a, float b) { return a + b; }
inline float f_sub(float a, float b) { return a - b; }
inline float f_fma(float a, float b, float c) { return std::fma(a, b, c); }
}  // namespace

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")

float numpy_exp_f32(float x) {
  const float xmax = 88.72283935546875f, xmin = -103.97208404541015625f;
  if (std::isnan(x)) return std::numeric_limits<float>::quiet_NaN();
  if (x >= xmax) return std::numeric_limits<float>::infinity();
  if (x <= xmin) return 0.0f;
  const float log2e = 1.442695040888963407359924681001892137f;
  const float magic = 0x1.800000p+23f;
  const float c1 = -6.93145752e-1f, c2 = -1.42860677e-6f;
  float q = f_mul(x, log2e);
  q = f_sub(f_add(q, magic), magic);
  float r = f_fma(q, c1, x);
  r = f_fma(q, c2, r);
  r = f_fma(q, 0.0f, r);
  float num = f_fma(5.082762527590693718096e-04f, r, 6.757896990527504603057e-03f);
  num = f_fma(num, r, 5.114512081637298353406e-02f);
  num = f_fma(num, r, 2.473615434895520810817e-01f);
  num = f_fma(num, r, 7.257664613233124478488e-01f);
  num = f_fma(num, r, 9.999999999980870924916e-01f);
  float den = f_fma(2.159509375685829852307e-02f, r, -2.742335390411667452936e-01f);
  den = f_fma(den, r, 1.0f);
  float poly = num / den;
  return std::ldexp(poly, static_cast<int>(q));
}

float numpy_log_f32(float x) {
  if (std::isnan(x)) return x;
  if (x < 0.0f) return -std::numeric_limits<float>::quiet_NaN();
  if (x == 0.0f) return -std::numeric_limits<float>::infinity();
  if (std::isinf(x)) return x;
  // exponent/mantissa split with the mantissa in [0.5, 1) (denormals pre-scaled by 2^100)
  float exponent;
  uint32_t bits;
  if (x < std::numeric_limits<float>::min()) {
    bits = std::bit_cast<uint32_t>(x * std::bit_cast<float>(0x71800000u));
    exponent = static_cast<float>(static_cast<int32_t>(bits >> 23) - 0x7E) - 100.0f;
  } else {
    bits = std::bit_cast<uint32_t>(x);
    exponent = static_cast<float>(static_cast<int32_t>(bits >> 23) - 0x7E);
  }
  float m = std::bit_cast<float>((bits & 0x7fffffu) | (126u << 23));
  if (m <= 0.707106781186547524400844362104849039f) {
    m = f_add(m, m);
    exponent = f_sub(exponent, 1.0f);
  }
  m = f_sub(m, 1.0f);
  float num = f_fma(2.589979117907922693523e-02f, m, 3.808837741388407920751e-01f);
  num = f_fma(num, m, 1.480000633576506585156e+00f);
  num = f_fma(num, m, 2.112677543073053063722e+00f);
  num = f_fma(num, m, 9.999999999999998702752e-01f);
  num = f_fma(num, m, 0.0f);
  float den = f_fma(5.875095403124574342950e-03f, m, 1.546476374983906719538e-01f);
  den = f_fma(den, m, 9.864942958519418960339e-01f);
  den = f_fma(den, m, 2.453006071784736363091e+00f);
  den = f_fma(den, m, 2.612677543073109236779e+00f);
  den = f_fma(den, m, 1.0f);
  float poly = num / den;
  return f_fma(exponent, 0.693147180559945309417f, poly);
}

namespace {
template <typename T>
T pairwise(const T* a, size_t n) {
  if (n < 8) {
    T res = 0;
    for (size_t i = 0; i < n; ++i) res = res + a[i];
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] = r[j] + a[i + static_cast<size_t>(j)];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res = res + a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise(a, n2) + pairwise(a + n2, n - n2);
}
}  // namespace

float numpy_sum_f32(std::span<const float> a) { return pairwise(a.data(), a.size()); }
double numpy_sum_f64(std::span<const double> a) { return pairwise(a.data(), a.size()); }

float sleef_expf_u10(float d) {
  const float R_LN2f = 1.442695040888963407359924681001892137426645954152985934135449406931f;
  const float L2Uf = 0.693145751953125f, L2Lf = 1.428606765330187045e-06f;
  float qf = std::nearbyint(f_mul(d, R_LN2f));
  int q = static_cast<int>(qf);
  float s = f_fma(qf, -L2Uf, d);
  s = f_fma(qf, -L2Lf, s);
  float u = 0.000198527617612853646278381f;
  u = f_fma(u, s, 0.00139304355252534151077271f);
  u = f_fma(u, s, 0.00833336077630519866943359f);
  u = f_fma(u, s, 0.0416664853692054748535156f);
  u = f_fma(u, s, 0.166666671633720397949219f);
  u = f_fma(u, s, 0.5f);
  u = f_add(1.0f, f_fma(f_mul(s, s), u, s));
  // vldexp2: u * 2^(q>>1) * 2^(q - (q>>1))
  int q1 = q >> 1;
  u = f_mul(f_mul(u, std::bit_cast<float>(static_cast<uint32_t>(q1 + 0x7f) << 23)),
            std::bit_cast<float>(static_cast<uint32_t>(q - q1 + 0x7f) << 23));
  if (d < -104.0f) u = 0.0f;
  if (d > 104.0f) u = std::numeric_limits<float>::infinity();
  return u;
}

void torch_softmax_f32(std::span<const float> in, std::span<float> out) {
  float mx = in[0];
  for (float v : in) mx = std::fmax(mx, v);
  float sum = 0.0f;
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = sleef_expf_u10(f_sub(in[i], mx));
    sum = i == 0 ? out[i] : f_add(sum, out[i]);
  }
  float inv = 1.0f / sum;
  for (size_t i = 0; i < in.size(); ++i) out[i] = f_mul(out[i], inv);
}

#pragma GCC pop_options

}  // namespace laya::decode
