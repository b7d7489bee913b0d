#include "backends/cuda/activation.cuh"

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"

namespace laya::cuda {

namespace {

__global__ void geglu_kernel(GegluParams p) {
  const int half_pairs = p.inter / 2;
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<int64_t>(p.rows) * half_pairs) return;
  const int64_t r = idx / half_pairs;
  const int c = static_cast<int>(idx % half_pairs) * 2;
  const __nv_bfloat16* row = p.up + r * 2 * p.inter;
  const float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(row + c));
  const float2 g = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(row + p.inter + c));
  const float ga = dev::bf16_round(dev::gelu_erf(a.x));
  const float gb = dev::bf16_round(dev::gelu_erf(a.y));
  *reinterpret_cast<__nv_bfloat162*>(p.out + r * p.inter + c) = __floats2bfloat162_rn(__fmul_rn(ga, g.x), __fmul_rn(gb, g.y));
}

__global__ void gelu_kernel(GeluParams p) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.n) return;
  p.data[idx] = __float2bfloat16_rn(dev::gelu_erf(__bfloat162float(p.data[idx])));
}

}  // namespace

void launch_geglu(const GegluParams& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.up && p.out && p.rows >= 0 && p.inter > 0 && p.inter % 2 == 0, ErrorKind::internal,
               "geglu: bad parameters (inter {})", p.inter);
  const int64_t n = static_cast<int64_t>(p.rows) * (p.inter / 2);
  if (n == 0) return;
  geglu_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(p);
  LAYA_CUDA_CHECK_LAUNCH();
}

void launch_gelu(const GeluParams& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.data && p.n >= 0, ErrorKind::internal, "gelu: bad parameters");
  if (p.n == 0) return;
  gelu_kernel<<<static_cast<unsigned>((p.n + 255) / 256), 256, 0, stream>>>(p);
  LAYA_CUDA_CHECK_LAUNCH();
}

}  // namespace laya::cuda
