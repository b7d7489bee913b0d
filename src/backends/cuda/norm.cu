#include "backends/cuda/norm.cuh"

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/norm_row.cuh"

namespace laya::cuda {

namespace {

using dev::Affine;
using dev::kAnyForm;
using dev::kMaxPairs;
using dev::kWeightBiasForm;
using dev::kWeightForm;
using dev::ln_inplace;
using dev::load_affine;
using dev::load_f32;
using dev::store16;
using dev::store_f32;

constexpr int kRowsPerBlock = 4;
// Buckets of at least this many tokens run the add+LNs without partials (the encoder's, without a
// LayerNorm bias, and the decision layers', with one) through the lean instances of add_ln_kernel.
// Measured on the H200 (docs/benchmarks/cuda.md items 29 and 48).
constexpr int32_t kLeanAddLnFromRows = 1536;

template <class T>
__global__ void embed_ln_kernel(EmbedLnParams<T> p) {
  dev::pdl_prologue();
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  if (row >= p.tokens) return;
  const int np = p.d / 64;
  Affine af;
  load_affine(af, p.weight, nullptr, np, lane);
  int id = p.ids[row];
  id = id < 0 ? 0 : (id >= p.vocab ? p.vocab - 1 : id);  // ids are validated on the host; never read out of range
  const __half* src = p.table + static_cast<size_t>(id) * p.d;
  float v[2 * kMaxPairs];
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      const float2 a = __half22float2(*reinterpret_cast<const __half2*>(src + 2 * lane + 64 * j));
      v[2 * j] = a.x;
      v[2 * j + 1] = a.y;
    }
  ln_inplace(v, np, p.d, af, p.eps);
  store_f32(p.x + static_cast<size_t>(row) * p.d, v, np, lane);
  store16(p.y + static_cast<size_t>(row) * p.d, v, np, lane);
}

// add_ln_row's kForm (norm_row.cuh): which parameters the instance serves.
template <class T, int kForm>
__global__ void add_ln_kernel(AddLnParams<T> p) {
  dev::pdl_prologue();
  const int row = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  if (row >= p.tokens) return;
  dev::add_ln_row<T, kForm>(p, row, threadIdx.x & 31);
}

template <class T>
__global__ void type_ln_kernel(TypeLnParams<T> p) {
  dev::pdl_prologue();
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  if (row >= p.tokens) return;
  const int np = p.d / 64;
  Affine af;
  load_affine(af, p.weight, p.bias, np, lane);
  float* x = p.x + static_cast<size_t>(row) * p.d;
  int q = p.qtypes[p.tok_row[row]];
  q = q < 0 ? 0 : (q > 2 ? 2 : q);
  const float* te = p.type_emb + static_cast<size_t>(q) * p.d;
  float v[2 * kMaxPairs];
  load_f32(x, v, np, lane);
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      const float2 t = *reinterpret_cast<const float2*>(te + 2 * lane + 64 * j);
      v[2 * j] = __fadd_rn(v[2 * j], t.x);
      v[2 * j + 1] = __fadd_rn(v[2 * j + 1], t.y);
    }
  store_f32(x, v, np, lane);
  ln_inplace(v, np, p.d, af, p.eps);
  store16(p.y + static_cast<size_t>(row) * p.d, v, np, lane);
}

template <class T>
__global__ void gather_ln_kernel(GatherLnParams<T> p) {
  dev::pdl_prologue();
  const int lane = threadIdx.x & 31;
  const int k = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  if (k >= p.markers) return;
  const int np = p.d / 64;
  Affine af;
  load_affine(af, p.weight, p.bias, np, lane);
  int t = p.marker_tok[k];
  t = t < 0 ? 0 : (t >= p.tokens ? p.tokens - 1 : t);
  float v[2 * kMaxPairs];
  load_f32(p.x + static_cast<size_t>(t) * p.d, v, np, lane);
  ln_inplace(v, np, p.d, af, p.eps);
  store16(p.y + static_cast<size_t>(k) * p.d, v, np, lane);
}

void check_d(int32_t d, const char* what) {
  LAYA_REQUIRE(d >= 64 && d <= 64 * kMaxPairs && d % 64 == 0, ErrorKind::internal,
               "{}: hidden size {} unsupported (multiple of 64, at most {})", what, d, 64 * kMaxPairs);
}

unsigned grid_for(int32_t rows) { return static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock); }

}  // namespace

template <class T>
void launch_embed_ln(const EmbedLnParams<T>& p, cudaStream_t stream) {
  check_d(p.d, "embed_ln");
  LAYA_REQUIRE(p.ids && p.table && p.weight && p.x && p.y && p.tokens >= 0 && p.vocab > 0, ErrorKind::internal,
               "embed_ln: bad parameters");
  if (p.tokens == 0) return;
  launch_kernel(embed_ln_kernel<T>, grid_for(p.tokens), 32 * kRowsPerBlock, stream, false, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_add_ln(const AddLnParams<T>& p, cudaStream_t stream) {
  check_d(p.d, "add_ln");
  LAYA_REQUIRE(p.x && p.tokens >= 0 && (p.bias == nullptr || p.weight != nullptr) &&
                   (p.add == nullptr || p.add_parts == nullptr) && (p.add_parts == nullptr || p.parts >= 1),
               ErrorKind::internal, "add_ln: bad parameters");
  if (p.tokens == 0) return;
  const bool lean = p.tokens >= kLeanAddLnFromRows && p.weight != nullptr && p.add_parts == nullptr;
  auto* kernel = !lean                ? add_ln_kernel<T, kAnyForm>
                 : p.bias == nullptr ? add_ln_kernel<T, kWeightForm>
                                     : add_ln_kernel<T, kWeightBiasForm>;
  launch_kernel(kernel, grid_for(p.tokens), 32 * kRowsPerBlock, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_type_ln(const TypeLnParams<T>& p, cudaStream_t stream) {
  check_d(p.d, "type_ln");
  LAYA_REQUIRE(p.x && p.type_emb && p.tok_row && p.qtypes && p.weight && p.y && p.tokens >= 0, ErrorKind::internal,
               "type_ln: bad parameters");
  if (p.tokens == 0) return;
  launch_kernel(type_ln_kernel<T>, grid_for(p.tokens), 32 * kRowsPerBlock, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_gather_ln(const GatherLnParams<T>& p, cudaStream_t stream) {
  check_d(p.d, "gather_ln");
  LAYA_REQUIRE(p.x && p.marker_tok && p.weight && p.y && p.markers >= 0 && p.tokens > 0, ErrorKind::internal,
               "gather_ln: bad parameters");
  if (p.markers == 0) return;
  launch_kernel(gather_ln_kernel<T>, grid_for(p.markers), 32 * kRowsPerBlock, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

#define LAYA_INSTANTIATE_NORM(T)                                                \
  template void launch_embed_ln<T>(const EmbedLnParams<T>&, cudaStream_t);     \
  template void launch_add_ln<T>(const AddLnParams<T>&, cudaStream_t);         \
  template void launch_type_ln<T>(const TypeLnParams<T>&, cudaStream_t);       \
  template void launch_gather_ln<T>(const GatherLnParams<T>&, cudaStream_t);
LAYA_FOR_HALF16(LAYA_INSTANTIATE_NORM)

}  // namespace laya::cuda
