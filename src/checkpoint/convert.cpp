#include "checkpoint/convert.h"

#include <bit>
#include <cstring>

#include "laya/errors.h"

namespace laya::checkpoint {

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);  // Inf, or NaN with its payload
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal: value = mant * 2^-24; normalise into an f32 normal.
    int e = -1;
    do {
      mant <<= 1;
      ++e;
    } while ((mant & 0x400u) == 0);
    bits = sign | ((112u - static_cast<uint32_t>(e)) << 23) | ((mant & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t f32_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest even; overflow carries into Inf correctly
  return static_cast<uint16_t>(u >> 16);
}

uint16_t f32_to_f16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));  // NaN
  if (a >= 0x47800000u) {
    // >= 65536: Inf. Values in [65520, 65536) round up to Inf below, via the normal path.
    return static_cast<uint16_t>(sign | 0x7C00u);
  }
  if (a >= 0x38800000u) {  // normal f16 range (>= 2^-14)
    uint32_t r = a - (112u << 23);  // rebias exponent
    r += 0xFFFu + ((r >> 13) & 1u);  // RNE on the 13 dropped bits
    return static_cast<uint16_t>(sign | (r >> 13));  // carry may produce 0x7C00 (Inf): correct
  }
  if (a < 0x33000000u) return sign;  // < 2^-25: rounds to zero (2^-25 exactly is a tie -> even 0)
  // Subnormal result: value * 2^24 rounded to an integer, RNE.
  const uint32_t exp = a >> 23;
  const uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126u - exp;  // exp in [102, 112] -> shift in [14, 24]
  uint32_t q = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

uint16_t f16_to_bf16(uint16_t h) { return f32_to_bf16(f16_to_f32(h)); }

namespace {

template <typename Fn>
void each_u16(const TensorView& t, Fn&& fn) {
  const std::size_t n = t.data.size() / 2;
  for (std::size_t i = 0; i < n; ++i) {
    uint16_t v;
    std::memcpy(&v, t.data.data() + 2 * i, 2);
    fn(i, v);
  }
}

void check_len(const TensorView& t, std::size_t n) {
  LAYA_ASSERT(static_cast<int64_t>(n) == t.numel(), "tensor {} has {} elements, output holds {}", t.name, t.numel(), n);
}

}  // namespace

void to_f32(const TensorView& t, std::span<float> out) {
  check_len(t, out.size());
  switch (t.dtype) {
    case DType::F32:
      std::memcpy(out.data(), t.data.data(), out.size() * 4);
      break;
    case DType::F16:
      each_u16(t, [&](std::size_t i, uint16_t v) { out[i] = f16_to_f32(v); });
      break;
    case DType::BF16:
      each_u16(t, [&](std::size_t i, uint16_t v) { out[i] = bf16_to_f32(v); });
      break;
  }
}

std::vector<float> to_f32(const TensorView& t) {
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  to_f32(t, out);
  return out;
}

void to_bf16(const TensorView& t, std::span<uint16_t> out) {
  check_len(t, out.size());
  switch (t.dtype) {
    case DType::BF16:
      std::memcpy(out.data(), t.data.data(), out.size() * 2);
      break;
    case DType::F16:
      each_u16(t, [&](std::size_t i, uint16_t v) { out[i] = f16_to_bf16(v); });
      break;
    case DType::F32:
      for (std::size_t i = 0; i < out.size(); ++i) {
        float f;
        std::memcpy(&f, t.data.data() + 4 * i, 4);
        out[i] = f32_to_bf16(f);
      }
      break;
  }
}

void to_f16(const TensorView& t, std::span<uint16_t> out) {
  check_len(t, out.size());
  switch (t.dtype) {
    case DType::F16:
      std::memcpy(out.data(), t.data.data(), out.size() * 2);
      break;
    case DType::BF16:
      each_u16(t, [&](std::size_t i, uint16_t v) { out[i] = f32_to_f16(bf16_to_f32(v)); });
      break;
    case DType::F32:
      for (std::size_t i = 0; i < out.size(); ++i) {
        float f;
        std::memcpy(&f, t.data.data() + 4 * i, 4);
        out[i] = f32_to_f16(f);
      }
      break;
  }
}

}  // namespace laya::checkpoint
