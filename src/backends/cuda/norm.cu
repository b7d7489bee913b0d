#include "backends/cuda/norm.cuh"

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"

namespace laya::cuda {

namespace {

constexpr int kMaxPairs = kMaxHidden / 64;  // pairs per lane
constexpr int kRowsPerBlock = 4;

// The lane's share of a LayerNorm's weight and optional bias, loaded when a kernel starts so the
// loads overlap the row's loads and reductions instead of following them. The kernels load them
// before their griddepcontrol.wait: they are constants, so under PDL they arrive while the previous
// kernel finishes (they stream from DRAM: the weights of 28 layers pass through L2 between two uses
// of a LayerNorm's weight), not after it; without PDL the wait returns at once.
struct Affine {
  float w[2 * kMaxPairs], b[2 * kMaxPairs];
  bool has_bias;
};

__device__ __forceinline__ void load_affine(Affine& a, const float* w, const float* b, int np, int lane) {
  a.has_bias = b != nullptr;
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      const int e = 2 * lane + 64 * j;
      const float2 ww = *reinterpret_cast<const float2*>(w + e);
      a.w[2 * j] = ww.x;
      a.w[2 * j + 1] = ww.y;
      const float2 bb = a.has_bias ? *reinterpret_cast<const float2*>(b + e) : make_float2(0.f, 0.f);
      a.b[2 * j] = bb.x;
      a.b[2 * j + 1] = bb.y;
    }
}

// Normalises the lane's pairs v[0..2*np) of one row in place: (v - mean) * rstd * w (+ b).
__device__ __forceinline__ void ln_inplace(float (&v)[2 * kMaxPairs], int np, int d, const Affine& af, float eps) {
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) s += v[2 * j] + v[2 * j + 1];
  const float mean = dev::warp_sum(s) / static_cast<float>(d);
  float q = 0.f;
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      const float a = v[2 * j] - mean, c = v[2 * j + 1] - mean;
      q += a * a + c * c;
    }
  const float var = dev::warp_sum(q) / static_cast<float>(d);
  const float rstd = rsqrtf(var + eps);
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      float a = __fmul_rn(__fmul_rn(v[2 * j] - mean, rstd), af.w[2 * j]);
      float c = __fmul_rn(__fmul_rn(v[2 * j + 1] - mean, rstd), af.w[2 * j + 1]);
      if (af.has_bias) {
        a = __fadd_rn(a, af.b[2 * j]);
        c = __fadd_rn(c, af.b[2 * j + 1]);
      }
      v[2 * j] = a;
      v[2 * j + 1] = c;
    }
}

template <class T>
__device__ __forceinline__ void store16(T* dst, const float (&v)[2 * kMaxPairs], int np, int lane) {
  using Pair = typename dev::Half16<T>::Pair;
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np)
      *reinterpret_cast<Pair*>(dst + 2 * lane + 64 * j) = dev::Half16<T>::from_float2(v[2 * j], v[2 * j + 1]);
}

__device__ __forceinline__ void store_f32(float* dst, const float (&v)[2 * kMaxPairs], int np, int lane) {
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) *reinterpret_cast<float2*>(dst + 2 * lane + 64 * j) = make_float2(v[2 * j], v[2 * j + 1]);
}

__device__ __forceinline__ void load_f32(const float* src, float (&v)[2 * kMaxPairs], int np, int lane) {
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      const float2 a = *reinterpret_cast<const float2*>(src + 2 * lane + 64 * j);
      v[2 * j] = a.x;
      v[2 * j + 1] = a.y;
    }
}

template <class T>
__global__ void embed_ln_kernel(EmbedLnParams<T> p) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  const int np = p.d / 64;
  Affine af;
  if (row < p.tokens) load_affine(af, p.weight, nullptr, np, lane);
  dev::pdl_prologue();
  if (row >= p.tokens) return;
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

// kForm: which parameters the instance serves (the caller's choice, see launch_add_ln); the same
// arithmetic in each. kAnyForm: all of them. The lean forms take no partials: kWeightForm (the
// encoder's: a LayerNorm weight, no bias) holds 90 registers instead of 179, so five blocks of 4 rows
// fit on an SM instead of two; kWeightBiasForm (the decision layers': weight and bias) 126, four
// blocks. Large buckets are bandwidth-bound and need the rows in flight; small ones are
// latency-bound and were measured slower with the lean form (items 29 and 48).
// kPairs: the row's pairs a lane (d / 64) when the instance is compiled for one hidden size, 0 for
// any. Every encoder layer runs this kernel twice, each time with its code cold in the SM's
// instruction caches (docs/benchmarks/cuda.md item 192: ≈ 0.05 µs a KB of straight-line code), so
// the hidden sizes of the shipped layouts get instances without the per-pair bounds checks.
enum AddLnForm : int { kAnyForm = 0, kWeightForm = 1, kWeightBiasForm = 2 };
template <class T, int kForm, int kPairs>
__global__ void add_ln_kernel(AddLnParams<T> p) {
  constexpr bool kLean = kForm != kAnyForm;
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  const int np = kPairs > 0 ? kPairs : p.d / 64;
  Affine af;
  if (row < p.tokens && (kLean || p.weight != nullptr))
    load_affine(af, p.weight, kForm == kWeightForm ? nullptr : p.bias, np, lane);
  dev::pdl_prologue();
  if (row >= p.tokens) return;
  float* x = p.x + static_cast<size_t>(row) * p.d;
  float v[2 * kMaxPairs];
  load_f32(x, v, np, lane);
  if (p.add != nullptr) {
    using Pair = typename dev::Half16<T>::Pair;
    const T* a = p.add + static_cast<size_t>(row) * p.d;
#pragma unroll
    for (int j = 0; j < kMaxPairs; ++j)
      if (j < np) {
        const float2 f = dev::Half16<T>::to_float2(*reinterpret_cast<const Pair*>(a + 2 * lane + 64 * j));
        v[2 * j] = __fadd_rn(v[2 * j], f.x);
        v[2 * j + 1] = __fadd_rn(v[2 * j + 1], f.y);
      }
    store_f32(x, v, np, lane);
  } else if (!kLean && p.add_parts != nullptr) {
    // Each part's loads for the whole row are issued together (one memory round trip per part,
    // not one per pair; the unrolled parts' loads may be issued before the earlier ones are
    // added), then added in part order.
    const size_t part = static_cast<size_t>(p.tokens) * p.d;
    const float* a = p.add_parts + static_cast<size_t>(row) * p.d;
    float sum[2 * kMaxPairs];
    load_f32(a, sum, np, lane);
#pragma unroll
    for (int s = 1; s < kMaxAddParts; ++s) {
      if (s >= p.parts) break;
      float f[2 * kMaxPairs];
      load_f32(a + s * part, f, np, lane);
#pragma unroll
      for (int j = 0; j < 2 * kMaxPairs; ++j)
        if (j < 2 * np) sum[j] = __fadd_rn(sum[j], f[j]);
    }
    if (p.parts_bias != nullptr) {
      using Pair = typename dev::Half16<T>::Pair;
#pragma unroll
      for (int j = 0; j < kMaxPairs; ++j)
        if (j < np) {
          const float2 b = dev::Half16<T>::to_float2(*reinterpret_cast<const Pair*>(p.parts_bias + 2 * lane + 64 * j));
          sum[2 * j] = __fadd_rn(sum[2 * j], b.x);
          sum[2 * j + 1] = __fadd_rn(sum[2 * j + 1], b.y);
        }
    }
#pragma unroll
    for (int j = 0; j < 2 * kMaxPairs; ++j)
      if (j < 2 * np) v[j] = __fadd_rn(v[j], dev::round16<T>(sum[j]));
    store_f32(x, v, np, lane);
  }
  if (kLean || p.weight != nullptr) ln_inplace(v, np, p.d, af, p.eps);
  if (p.y != nullptr) store16(p.y + static_cast<size_t>(row) * p.d, v, np, lane);
  if (p.norm_out != nullptr) store_f32(p.norm_out + static_cast<size_t>(row) * p.d, v, np, lane);
}

template <class T>
__global__ void type_ln_kernel(TypeLnParams<T> p) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  const int np = p.d / 64;
  // Before the wait: the LayerNorm's weights and the row's type embedding — the question type comes
  // from the staging block, which the forward's first kernel wrote and which is complete by now
  // (see pdl_prologue, common.cuh), the embedding is a constant.
  Affine af;
  float te[2 * kMaxPairs];
  if (row < p.tokens) {
    load_affine(af, p.weight, p.bias, np, lane);
    int q = __ldcg(p.qtypes + __ldcg(p.tok_row + row));
    q = q < 0 ? 0 : (q > 2 ? 2 : q);
    load_f32(p.type_emb + static_cast<size_t>(q) * p.d, te, np, lane);
  }
  dev::pdl_prologue();
  if (row >= p.tokens) return;
  float* x = p.x + static_cast<size_t>(row) * p.d;
  float v[2 * kMaxPairs];
  load_f32(x, v, np, lane);
#pragma unroll
  for (int j = 0; j < 2 * kMaxPairs; ++j)
    if (j < 2 * np) v[j] = __fadd_rn(v[j], te[j]);
  store_f32(x, v, np, lane);
  ln_inplace(v, np, p.d, af, p.eps);
  store16(p.y + static_cast<size_t>(row) * p.d, v, np, lane);
}

template <class T>
__global__ void gather_ln_kernel(GatherLnParams<T> p) {
  const int lane = threadIdx.x & 31;
  const int k = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  const int np = p.d / 64;
  Affine af;
  int t = 0;
  if (k < p.markers) {
    load_affine(af, p.weight, p.bias, np, lane);
    t = __ldcg(p.marker_tok + k);  // staged: complete before this kernel starts (see pdl_prologue, common.cuh)
    t = t < 0 ? 0 : (t >= p.tokens ? p.tokens - 1 : t);
  }
  dev::pdl_prologue();
  if (k >= p.markers) return;
  float v[2 * kMaxPairs];
  load_f32(p.x + static_cast<size_t>(t) * p.d, v, np, lane);
  ln_inplace(v, np, p.d, af, p.eps);
  store16(p.y + static_cast<size_t>(k) * p.d, v, np, lane);
}

void check_d(int32_t d, const char* what) {
  LAYA_REQUIRE(d >= 64 && d <= 64 * kMaxPairs && d % 64 == 0, ErrorKind::internal,
               "{}: hidden size {} unsupported (multiple of 64, at most {})", what, d, 64 * kMaxPairs);
}

template <class T, int kForm>
auto add_ln_instance_of_form(int pairs) {
  return pairs == 16 ? add_ln_kernel<T, kForm, 16> : pairs == 12 ? add_ln_kernel<T, kForm, 12> : add_ln_kernel<T, kForm, 0>;
}

template <class T>
auto add_ln_instance(int form, int pairs) {
  return form == kAnyForm      ? add_ln_instance_of_form<T, kAnyForm>(pairs)
         : form == kWeightForm ? add_ln_instance_of_form<T, kWeightForm>(pairs)
                               : add_ln_instance_of_form<T, kWeightBiasForm>(pairs);
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
                   (p.add == nullptr || p.add_parts == nullptr) &&
                   (p.add_parts == nullptr || (p.parts >= 1 && p.parts <= kMaxAddParts)) &&
                   (p.parts_bias == nullptr || p.add_parts != nullptr),
               ErrorKind::internal, "add_ln: bad parameters");
  if (p.tokens == 0) return;
  const bool lean = p.tokens >= p.lean_from_rows && p.weight != nullptr && p.add_parts == nullptr;
  const int form = !lean ? kAnyForm : p.bias == nullptr ? kWeightForm : kWeightBiasForm;
  const int pairs = p.d == 1024 ? 16 : p.d == 768 ? 12 : 0;  // english / multilingual, else any
  auto* kernel = add_ln_instance<T>(form, pairs);
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
