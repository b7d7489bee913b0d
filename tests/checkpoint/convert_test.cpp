#include "checkpoint/convert.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "laya/errors.h"

namespace laya::checkpoint {
namespace {

// Independent reference: the value of an fp16 bit pattern by arithmetic on doubles.
double f16_value(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v;
  if (exp == 31) {
    v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);
  } else {
    v = std::ldexp(static_cast<double>(1024 + mant), exp - 25);
  }
  return sign ? -v : v;
}

// Independent reference rounding of a finite double to bf16 bits (nearest, ties to even), by
// comparing the two neighbouring bf16 values.
uint16_t ref_bf16(double v) {
  if (std::isnan(v)) return 0x7FC0;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x7F80;
  // Truncate toward zero to a bf16 (via float bits; a is exactly representable as float for fp16 inputs).
  const float af = static_cast<float>(a);
  EXPECT_EQ(static_cast<double>(af), a);
  uint32_t bits = std::bit_cast<uint32_t>(af);
  uint16_t lo = static_cast<uint16_t>(bits >> 16);
  uint16_t hi = static_cast<uint16_t>(lo + 1);
  double vlo = std::bit_cast<float>(static_cast<uint32_t>(lo) << 16);
  double vhi = std::bit_cast<float>(static_cast<uint32_t>(hi) << 16);
  uint16_t r;
  if (a - vlo < vhi - a) r = lo;
  else if (a - vlo > vhi - a) r = hi;
  else r = (lo & 1) ? hi : lo;
  return sign | r;
}

TEST(Convert, F16ToF32ExhaustiveAgainstArithmetic) {
  int nans = 0, subnormals = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<uint16_t>(i);
    const float f = f16_to_f32(h);
    const double want = f16_value(h);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << i;
      // payload and sign preserved
      const uint32_t bits = std::bit_cast<uint32_t>(f);
      ASSERT_EQ(bits >> 31, static_cast<uint32_t>(i >> 15)) << i;
      ASSERT_EQ((bits >> 13) & 1023u, i & 1023u) << i;
      ++nans;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), want) << i;
    ASSERT_EQ(std::signbit(f), std::signbit(want)) << i;  // signed zeros
    if ((i & 0x7C00) == 0 && (i & 0x3FF) != 0) ++subnormals;
  }
  EXPECT_EQ(nans, 2 * 1023);
  EXPECT_EQ(subnormals, 2 * 1023);
}

TEST(Convert, F16ToBf16ExhaustiveAgainstReference) {
  for (uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<uint16_t>(i);
    const uint16_t got = f16_to_bf16(h);
    const double v = f16_value(h);
    if (std::isnan(v)) {
      ASSERT_TRUE(std::isnan(bf16_to_f32(got))) << i;
      continue;
    }
    ASSERT_EQ(got, ref_bf16(v)) << "fp16 bits " << i << " value " << v;
  }
}

TEST(Convert, F32ToF16RoundTripsEveryF16) {
  for (uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<uint16_t>(i);
    const float f = f16_to_f32(h);
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(f16_to_f32(f32_to_f16(f)))) << i;
      continue;
    }
    ASSERT_EQ(f32_to_f16(f), h) << i;
  }
}

TEST(Convert, F32ToF16RoundsToNearestEven) {
  // Halfway between 1.0 (0x3C00) and the next fp16 (0x3C01): ties go to even (0x3C00).
  const float one = 1.0f, ulp = std::ldexp(1.0f, -10);
  EXPECT_EQ(f32_to_f16(one + ulp / 2), 0x3C00);
  EXPECT_EQ(f32_to_f16(one + ulp * 1.5f), 0x3C02);  // tie between 0x3C01 and 0x3C02 -> even
  EXPECT_EQ(f32_to_f16(std::nextafter(one + ulp / 2, 2.0f)), 0x3C01);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7BFF);
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7BFF);
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7C00);  // tie at max -> rounds to even = Inf
  EXPECT_EQ(f32_to_f16(1e10f), 0x7C00);
  EXPECT_EQ(f32_to_f16(-1e10f), 0xFC00);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);     // smallest subnormal
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);     // tie -> even (zero)
  EXPECT_EQ(f32_to_f16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(f32_to_f16(std::ldexp(3.0f, -25)), 0x0002);     // tie between 1 and 2 -> 2
  EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
  EXPECT_EQ(f32_to_f16(std::ldexp(1023.5f, -24)), 0x0400);  // subnormal rounding up into normal
  EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(std::numeric_limits<float>::quiet_NaN()))));
}

#if defined(__FLT16_MAX__)
TEST(Convert, F32ToF16MatchesTheCompilersFloat16) {
  std::mt19937 rng(1234);
  for (int i = 0; i < 2'000'000; ++i) {
    uint32_t bits = rng();
    // Focus half of the samples on the fp16 range.
    if (i & 1) bits = (bits & 0x807FFFFFu) | ((100u + rng() % 45u) << 23);
    const float f = std::bit_cast<float>(bits);
    if (std::isnan(f)) continue;
    const _Float16 ref = static_cast<_Float16>(f);
    uint16_t want;
    std::memcpy(&want, &ref, 2);
    ASSERT_EQ(f32_to_f16(f), want) << std::hexfloat << f;
  }
}
#endif

TEST(Convert, F32ToBf16) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(f32_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F808000u)), 0x3F80);  // tie -> even
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F818000u)), 0x3F82);  // tie -> even (up)
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3F808001u)), 0x3F81);
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x7F7FFFFFu)), 0x7F80);  // overflow -> Inf
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(f32_to_bf16(-std::numeric_limits<float>::infinity()), 0xFF80);
  // NaN with a payload only in the low bits must stay NaN (not become Inf).
  const uint16_t n = f32_to_bf16(std::bit_cast<float>(0x7F800001u));
  EXPECT_TRUE(std::isnan(bf16_to_f32(n)));
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::bit_cast<float>(0xFFC00000u)))));
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x00000001u)), 0x0000);  // tiny denormal rounds to 0
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x00008000u)), 0x0000);  // tie -> even
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x00018000u)), 0x0002);
  for (uint32_t i = 0; i < 65536; ++i) {  // every bf16 round-trips
    const float f = bf16_to_f32(static_cast<uint16_t>(i));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_bf16(f), i);
  }
}

TEST(Convert, TensorConversions) {
  uint16_t h[4] = {0x3C00, 0x8000, 0x0001, 0x7C00};
  TensorView t{"x", DType::F16, {4}, std::as_bytes(std::span<const uint16_t>(h))};
  auto f = to_f32(t);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_TRUE(std::signbit(f[1]) && f[1] == 0.0f);
  EXPECT_EQ(f[2], std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(f[3]));
  std::vector<uint16_t> b(4);
  to_bf16(t, b);
  EXPECT_EQ(b[0], 0x3F80);
  EXPECT_EQ(b[1], 0x8000);
  EXPECT_EQ(b[2], 0x3380);  // 2^-24 is a normal bf16
  EXPECT_EQ(b[3], 0x7F80);
  std::vector<uint16_t> back(4);
  to_f16(t, back);
  EXPECT_EQ(std::memcmp(back.data(), h, 8), 0);
  float g[2] = {1.0f, -3.5f};
  TensorView tf{"y", DType::F32, {2}, std::as_bytes(std::span<const float>(g))};
  std::vector<uint16_t> hb(2);
  to_f16(tf, hb);
  EXPECT_EQ(hb[0], 0x3C00);
  EXPECT_EQ(hb[1], 0xC300);
  std::vector<float> wrong(3);
  EXPECT_THROW(to_f32(t, wrong), laya::Error);
}

}  // namespace
}  // namespace laya::checkpoint
