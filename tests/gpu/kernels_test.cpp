// Every CUDA kernel against the CPU reference op (backends/cpu/ops.h) on random data, with edge
// shapes (length 1, window edges, empty rows, lengths up to 1024) and outputs poisoned with NaN
// before each run so an unwritten element fails. Kernels on 16-bit data run in both precision
// modes' types (typed tests: bf16 and fp16).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/cpu/ops.h"
#include "backends/cuda/activation.cuh"
#include "backends/cuda/attention.cuh"
#include "backends/cuda/build_info.h"
#include "backends/cuda/bus_copy.cuh"
#include "backends/cuda/gemm.h"
#include "backends/cuda/geglu_gemm.cuh"
#include "backends/cuda/heads.cuh"
#include "backends/cuda/norm.cuh"
#include "backends/cuda/pdl.h"
#include "backends/cuda/rope.cuh"
#include "backends/cuda/small_gemm.cuh"
#include "backends/cuda/tile.h"
#include "backends/cuda/weights.h"
#include "checkpoint/convert.h"
#include "gpu_support.h"
#include "laya/errors.h"

namespace laya::cuda {
namespace {

using test::compare;

constexpr size_t kGemmWorkspace = size_t{32} << 20;

template <typename T>
class Dev {
 public:
  explicit Dev(size_t n) : n_(n) {
    EXPECT_EQ(cudaMalloc(&p_, std::max<size_t>(n, 1) * sizeof(T)), cudaSuccess);
    poison();
  }
  Dev(const std::vector<T>& h) : Dev(h.size()) { up(h); }
  ~Dev() { cudaFree(p_); }
  T* get() const { return static_cast<T*>(p_); }
  void up(const std::vector<T>& h) { EXPECT_EQ(cudaMemcpy(p_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess); }
  std::vector<T> down() const {
    std::vector<T> h(n_);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
  void poison() { cudaMemset(p_, 0xFF, std::max<size_t>(n_, 1) * sizeof(T)); }  // NaN in f32/bf16/f16

 private:
  void* p_ = nullptr;
  size_t n_;
};

// Host conversions to and from the 16-bit type T (round to nearest even).
template <class T>
std::vector<T> to16(const std::vector<float>& f) {
  std::vector<T> out(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    const uint16_t b = std::is_same_v<T, __half> ? checkpoint::f32_to_f16(f[i]) : checkpoint::f32_to_bf16(f[i]);
    std::memcpy(static_cast<void*>(&out[i]), &b, 2);
  }
  return out;
}
template <class T>
std::vector<float> from16(const std::vector<T>& b) {
  std::vector<float> out(b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    uint16_t u;
    std::memcpy(&u, static_cast<const void*>(&b[i]), 2);
    out[i] = std::is_same_v<T, __half> ? checkpoint::f16_to_f32(u) : checkpoint::bf16_to_f32(u);
  }
  return out;
}
template <class T>
std::vector<float> round16(const std::vector<float>& f) {
  return from16(to16<T>(f));
}
std::vector<float> randn(std::mt19937& rng, size_t n, float scale = 1.f, float mean = 0.f) {
  std::normal_distribution<float> d(mean, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}
std::vector<float> round_bf16(const std::vector<float>& f) { return round16<__nv_bfloat16>(f); }

template <class T>
class CudaKernelsTyped : public ::testing::Test {};
struct Half16Names {
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, __half> ? "fp16" : "bf16";
  }
};
using Half16Types = ::testing::Types<__nv_bfloat16, __half>;
TYPED_TEST_SUITE(CudaKernelsTyped, Half16Types, Half16Names);

void expect_close(const std::vector<float>& got, const std::vector<float>& ref, const char* what) {
  const auto d = compare(got, ref);
  EXPECT_TRUE(d.ok()) << what << ": nRMS " << d.nrms << " max|d| " << d.max_abs << " ref max " << d.ref_max
                      << " finite " << d.finite;
}

// The engine's RoPE tables for 64-dim heads ([len, 32] cos and sin, as weights.cpp builds them).
std::pair<std::vector<float>, std::vector<float>> rope_tables32(double theta, int32_t len) {
  const auto table = cpu::make_rope_table(theta, len, 64);
  return {rope_half_table(table.cos, len), rope_half_table(table.sin, len)};
}

// Row offsets and the query tile table (16, 32 or 64 queries per tile: row, first query, row start,
// row end) for the given lengths (0 = empty row).
void tiles_for(const std::vector<int32_t>& lens, std::vector<int32_t>& offs, std::vector<int32_t>& tiles,
               int32_t tile = kAttnTile) {
  offs = {0};
  tiles.clear();
  for (size_t r = 0; r < lens.size(); ++r) {
    for (int32_t q = offs.back(); q < offs.back() + lens[r]; q += tile)
      tiles.insert(tiles.end(), {static_cast<int32_t>(r), q, offs.back(), offs.back() + lens[r]});
    offs.push_back(offs.back() + lens[r]);
  }
  tiles.insert(tiles.end(), 4, -1);  // one unused tile, as buckets have
}

// Attention parameters over a packed qkv buffer and its tile table (the fields every case sets; the
// caller adds out, window, kernel form and split).
template <class E>
AttentionParams<E> attention_params(const E* qkv, const Dev<int32_t>& tiles, size_t tile_ints, int32_t heads) {
  AttentionParams<E> p;
  p.qkv = qkv;
  p.tiles = tiles.get();
  p.tile_capacity = static_cast<int32_t>(tile_ints / 4);
  p.heads = heads;
  return p;
}

template <class E>
void run_attention_case_one(const std::vector<int32_t>& lens, int32_t heads, int32_t window, uint32_t seed, bool simt,
                            int32_t tile, int32_t key_split = 1, bool wgmma = false) {
  SCOPED_TRACE(::testing::Message() << "query tile " << tile << (simt ? " simt" : wgmma ? " wgmma" : " mma")
                                    << " key split " << key_split);
  std::mt19937 rng(seed);
  std::vector<int32_t> offs, tiles;
  tiles_for(lens, offs, tiles, tile);
  const int32_t T = offs.back(), d = heads * 64;
  const auto qkv = round16<E>(randn(rng, static_cast<size_t>(T) * 3 * d, 1.5f));
  Dev<E> dq(to16<E>(qkv));
  Dev<E> dout(static_cast<size_t>(T) * d);
  Dev<int32_t> dtiles(tiles);
  AttentionParams<E> p = attention_params<E>(dq.get(), dtiles, tiles.size(), heads);
  p.out = dout.get();
  p.window = window;
  p.simt = simt;
  p.query_tile = tile;
  p.key_split = key_split;
  p.wgmma = wgmma;
  launch_attention(p, nullptr);
  const auto got = from16(dout.down());
  // Launch forms that change how blocks occupy an SM, not the arithmetic: the same bits.
  auto expect_same_with = [&](bool AttentionParams<E>::*form, const char* what) {
    Dev<E> other(static_cast<size_t>(T) * d);
    AttentionParams<E> po = p;
    po.out = other.get();
    po.*form = true;
    launch_attention(po, nullptr);
    EXPECT_EQ(from16(other.down()), got) << what;
  };
  if (wgmma && key_split == 1 && tile == kAttnTile)
    expect_same_with(&AttentionParams<E>::five_blocks, "five blocks per SM (other registers)");
  if (!simt) expect_same_with(&AttentionParams<E>::one_block_per_sm, "one block per SM (padded shared memory)");
  std::vector<float> ref(static_cast<size_t>(T) * d);
  cpu::AttentionParams c;
  c.q = qkv.data();
  c.k = qkv.data() + d;
  c.v = qkv.data() + 2 * d;
  c.ld_q = c.ld_k = c.ld_v = 3 * d;
  c.out = ref.data();
  c.ld_out = d;
  c.row_offsets = offs.data();
  c.rows = static_cast<int32_t>(lens.size());
  c.heads = heads;
  c.window_half = window;
  cpu::attention(c);
  expect_close(got, ref, simt ? "attention (simt)" : wgmma ? "attention (wgmma)" : "attention (mma)");
}

template <class E>
void run_attention_case(const std::vector<int32_t>& lens, int32_t heads, int32_t window, uint32_t seed) {
  run_attention_case_one<E>(lens, heads, window, seed, false, kAttnTile);
  run_attention_case_one<E>(lens, heads, window, seed, true, kAttnTile);
  for (int32_t split : {2, 4}) run_attention_case_one<E>(lens, heads, window, seed, false, kAttnTile, split);
  // Tiles of 16 and 32 queries (small buckets): the 64-query kernel on the tile's first rows.
  for (int32_t tile : {16, 32}) run_attention_case_one<E>(lens, heads, window, seed, false, tile, tile == 16 ? 2 : 1);
  if (attention_wgmma_supported()) {  // sm_90a (KernelImageSelectsTheHopperKernelsExactlyWhereItHasThem checks it)
    for (int32_t split : {1, 2, 4}) run_attention_case_one<E>(lens, heads, window, seed, false, kAttnTile, split, true);
    for (int32_t tile : {16, 32})
      for (int32_t split : {1, 2}) run_attention_case_one<E>(lens, heads, window, seed, false, tile, split, true);
  }
}

// The kernel image the runtime loads is the one the build and the device call for, and the Hopper
// kernels are selected exactly where it is the sm_90a image: on a Hopper whose binary has it (so
// that the cases above never drop the wgmma form silently there), never elsewhere — a build for
// sm_90 without "a" or with PTX only reports binaryVersion 90 on a Hopper too, and there the
// wgmma helpers trap — and launches are programmatic only where the kernels wait.
TEST(CudaKernels, KernelImageSelectsTheHopperKernelsExactlyWhereItHasThem) {
  LAYA_REQUIRE_GPU();
  int dev = 0, major = 0, minor = 0;
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), cudaSuccess);
  const KernelImage image = current_kernel_image();
  std::printf("[          ] built for %s; runs %s\n", compiled_architectures().c_str(),
              describe_kernel_image(image).c_str());
  EXPECT_GT(image.binary, 0);
  EXPECT_LE(image.binary, 10 * major + minor);
  if (image.sm90a) EXPECT_TRUE(image.sm90);
  const bool built_90a = compiled_architectures().find("90a") != std::string::npos;
  EXPECT_EQ(image.sm90a, major == 9 && built_90a);
  EXPECT_EQ(attention_wgmma_supported(), image.sm90a);
  // (and the TMA kernels' tensor-map encoder, which every driver of CUDA 12 or later has)
  EXPECT_EQ(small_gemm_supported(48, 1024, 1024, SmallGemmForm::plain), image.sm90a);
  EXPECT_EQ(geglu_gemm_supported(1024, 2624), image.sm90a);
  EXPECT_EQ(kernel_image_waits_for_pdl(), image.sm90);
}

TYPED_TEST(CudaKernelsTyped, AttentionGlobalVarlen) {
  LAYA_REQUIRE_GPU();
  run_attention_case<TypeParam>({1, 2, 63, 64, 65, 0, 200, 513}, 2, -1, 1);
  run_attention_case<TypeParam>({1024, 7}, 16, -1, 2);
}

// The zero_row slot (the engine's padding tail row) gets zeros and costs no attention; the other
// rows are exactly what they are without it, in every kernel form.
TYPED_TEST(CudaKernelsTyped, AttentionZeroRowWritesZerosAndLeavesOtherRowsAlone) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(37);
  const std::vector<int32_t> lens{200, 0, 16, 70};
  const int32_t heads = 2, d = heads * 64;
  std::vector<int32_t> offs, tiles;
  tiles_for(lens, offs, tiles, kAttnTile);
  const int32_t T = offs.back();
  Dev<TypeParam> dq(to16<TypeParam>(randn(rng, static_cast<size_t>(T) * 3 * d, 1.5f)));
  Dev<int32_t> dtiles(tiles);
  std::vector<std::tuple<bool, int32_t, bool>> forms = {{true, 1, false}, {false, 1, false}, {false, 2, false},
                                                        {false, 4, false}};
  if (attention_wgmma_supported())
    for (int32_t split : {1, 2, 4}) forms.emplace_back(false, split, true);
  for (const auto& [simt, split, wgmma] : forms) {
    SCOPED_TRACE(::testing::Message() << (simt ? "simt" : wgmma ? "wgmma" : "mma") << " key split " << split);
    AttentionParams<TypeParam> p = attention_params<TypeParam>(dq.get(), dtiles, tiles.size(), heads);
    p.simt = simt;
    p.key_split = split;
    p.wgmma = wgmma;
    Dev<TypeParam> plain(static_cast<size_t>(T) * d), zeroed(static_cast<size_t>(T) * d);
    p.out = plain.get();
    launch_attention(p, nullptr);
    p.out = zeroed.get();
    p.zero_row = 2;
    launch_attention(p, nullptr);
    const auto a = from16(plain.down()), b = from16(zeroed.down());
    for (int32_t t = 0; t < T; ++t)
      for (int32_t j = 0; j < d; ++j) {
        const size_t at = static_cast<size_t>(t) * d + static_cast<size_t>(j);
        if (t >= offs[2] && t < offs[3])
          ASSERT_EQ(b[at], 0.f) << "token " << t;
        else
          ASSERT_EQ(b[at], a[at]) << "token " << t;
      }
  }
}

TYPED_TEST(CudaKernelsTyped, AttentionLocalWindowEdges) {
  LAYA_REQUIRE_GPU();
  run_attention_case<TypeParam>({1, 64, 65, 129, 130, 0, 300, 1024}, 2, 64, 3);
  run_attention_case<TypeParam>({5, 70, 33}, 4, 3, 4);
  run_attention_case<TypeParam>({512, 512, 512, 512}, 16, 64, 5);
}

// RoPE fused into the attention loads must give bitwise the result of launch_rope followed by the
// same attention kernel, for global and windowed layers, rows longer than the table (clamped).
TYPED_TEST(CudaKernelsTyped, AttentionWithFusedRopeEqualsSeparateRope) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(31);
  const int32_t heads = 4, d = heads * 64, table_len = 300;
  const std::vector<int32_t> lens{1, 65, 0, 300, 130};
  std::vector<std::pair<int32_t, bool>> forms = {{1, false}, {2, false}, {4, false}};  // key split, wgmma
  if (attention_wgmma_supported())
    for (int32_t split : {1, 2, 4}) forms.emplace_back(split, true);
  for (auto [split, wgmma] : forms) {
  SCOPED_TRACE(::testing::Message() << "key split " << split << (wgmma ? " wgmma" : ""));
  std::vector<int32_t> offs, tiles, pos;
  tiles_for(lens, offs, tiles, kAttnTile);
  for (int32_t l : lens)
    for (int32_t i = 0; i < l; ++i) pos.push_back(i);
  const int32_t T = offs.back();
  const auto [hc, hs] = rope_tables32(10000.0, table_len);
  const auto qkv = to16<TypeParam>(randn(rng, static_cast<size_t>(T) * 3 * d, 1.5f));
  Dev<float> dc(hc), ds(hs);
  Dev<int32_t> dpos(pos), dtiles(tiles);
  for (int32_t window : {-1, 64, 5}) {
    Dev<TypeParam> q1(qkv), q2(qkv), o1(static_cast<size_t>(T) * d), o2(static_cast<size_t>(T) * d);
    AttentionParams<TypeParam> p = attention_params<TypeParam>(q1.get(), dtiles, tiles.size(), heads);
    p.window = window;
    p.query_tile = kAttnTile;
    p.key_split = split;
    p.wgmma = wgmma;
    p.out = o1.get();
    p.rope_cos = dc.get();
    p.rope_sin = ds.get();
    p.rope_len = table_len;
    launch_attention(p, nullptr);
    launch_rope(RopeParams<TypeParam>{q2.get(), dpos.get(), dc.get(), ds.get(), T, heads, table_len}, nullptr);
    AttentionParams<TypeParam> p2 = p;
    p2.qkv = q2.get();
    p2.out = o2.get();
    p2.rope_cos = p2.rope_sin = nullptr;
    launch_attention(p2, nullptr);
    // The engine's large-batch path: K rotated once in place (launch_rope k_only), q rotated in
    // the kernel, K/V streamed with cp.async.
    Dev<TypeParam> q3(qkv), o3(static_cast<size_t>(T) * d);
    RopeParams<TypeParam> rk{q3.get(), dpos.get(), dc.get(), ds.get(), T, heads, table_len};
    rk.k_only = true;
    launch_rope(rk, nullptr);
    AttentionParams<TypeParam> p3 = p;
    p3.qkv = q3.get();
    p3.out = o3.get();
    p3.k_rotated = true;
    launch_attention(p3, nullptr);
    const auto a = from16(o1.down()), b = from16(o2.down()), c = from16(o3.down());
    for (float v : a) ASSERT_TRUE(std::isfinite(v));
    EXPECT_EQ(a, b) << "window " << window;
    EXPECT_EQ(a, c) << "k rotated once, window " << window;
    // The L2 prefetch of the table rows (PDL-chained launches) is a hint: the same bits.
    Dev<TypeParam> o4(static_cast<size_t>(T) * d);
    AttentionParams<TypeParam> p4 = p;
    p4.out = o4.get();
    p4.prefetch_rope = true;
    launch_attention(p4, nullptr);
    EXPECT_EQ(a, from16(o4.down())) << "with the table rows prefetched, window " << window;
    // k_only must leave the q and v parts untouched and rotate k exactly as the q+k pass does.
    const auto k_once = from16(q3.down()), both = from16(q2.down()), orig = from16(qkv);
    for (int32_t t = 0; t < T; ++t)
      for (int32_t j = 0; j < 3 * d; ++j) {
        const size_t at = static_cast<size_t>(t) * 3 * d + static_cast<size_t>(j);
        const float want = j < d ? orig[at] : (j < 2 * d ? both[at] : orig[at]);
        ASSERT_EQ(k_once[at], want) << "token " << t << " column " << j;
      }
  }
  }
}

TYPED_TEST(CudaKernelsTyped, RopeMatchesReference) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(7);
  const int32_t heads = 4, d = heads * 64, table_len = 600;
  const std::vector<int32_t> lens{1, 33, 600};
  std::vector<int32_t> pos;
  for (int32_t l : lens)
    for (int32_t i = 0; i < l; ++i) pos.push_back(i);
  const int32_t T = static_cast<int32_t>(pos.size());
  for (double theta : {160000.0, 10000.0}) {
    const auto table = cpu::make_rope_table(theta, table_len, 64);  // the CPU reference's
    const auto [hc, hs] = rope_tables32(theta, table_len);
    auto qkv = round16<TypeParam>(randn(rng, static_cast<size_t>(T) * 3 * d));
    Dev<TypeParam> dq(to16<TypeParam>(qkv));
    Dev<int32_t> dpos(pos);
    Dev<float> dc(hc), ds(hs);
    launch_rope(RopeParams<TypeParam>{dq.get(), dpos.get(), dc.get(), ds.get(), T, heads, table_len}, nullptr);
    const auto got = from16(dq.down());
    int32_t at = 0;
    for (int32_t l : lens) {
      cpu::rope_rotate_half(qkv.data() + static_cast<size_t>(at) * 3 * d, l, 3 * d, heads, table);
      cpu::rope_rotate_half(qkv.data() + static_cast<size_t>(at) * 3 * d + d, l, 3 * d, heads, table);
      at += l;
    }
    expect_close(got, qkv, "rope");
  }
}

TYPED_TEST(CudaKernelsTyped, EmbedLayerNormMatchesReference) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(11);
  for (int32_t d : {128, 768, 1024}) {
    const int32_t vocab = 50, T = 37;
    std::vector<uint16_t> table16(static_cast<size_t>(vocab) * d);
    const auto tf = randn(rng, table16.size(), 0.5f);
    for (size_t i = 0; i < tf.size(); ++i) table16[i] = checkpoint::f32_to_f16(tf[i]);
    std::vector<int32_t> ids(T);
    for (int32_t i = 0; i < T; ++i) ids[static_cast<size_t>(i)] = (i * 17) % vocab;
    const auto w = randn(rng, static_cast<size_t>(d), 0.1f, 1.f);
    Dev<uint16_t> dt(table16);
    Dev<int32_t> di(ids);
    Dev<float> dw(w), dx(static_cast<size_t>(T) * d);
    Dev<TypeParam> dy(static_cast<size_t>(T) * d);
    EmbedLnParams<TypeParam> p;
    p.ids = di.get();
    p.table = reinterpret_cast<const __half*>(dt.get());
    p.weight = dw.get();
    p.x = dx.get();
    p.y = dy.get();
    p.tokens = T;
    p.d = d;
    p.vocab = vocab;
    launch_embed_ln(p, nullptr);
    std::vector<float> rows(static_cast<size_t>(T) * d), ref(rows.size());
    for (int32_t t = 0; t < T; ++t)
      for (int32_t e = 0; e < d; ++e)
        rows[static_cast<size_t>(t * d + e)] = checkpoint::f16_to_f32(table16[static_cast<size_t>(ids[t] * d + e)]);
    cpu::layer_norm(rows.data(), T, d, w.data(), nullptr, 1e-5f, ref.data());
    const auto x = dx.down();
    const auto dd = compare(x, ref);
    EXPECT_TRUE(dd.finite && dd.nrms < 1e-5) << "embed x d=" << d << " nRMS " << dd.nrms;
    expect_close(from16(dy.down()), ref, "embed y");
  }
}

TYPED_TEST(CudaKernelsTyped, AddLayerNormGatherAndTypeMatchReference) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(13);
  // With a LayerNorm bias (the decision layers' form): 19 rows through the general instance, 1539
  // (>= kLeanAddLnFromRows) through the lean one with a bias (launch_add_ln); the same arithmetic,
  // so the 19 rows they share come out bitwise equal.
  const int32_t d = 1024, T = 19, T_lean = 1539;
  const auto x_all = randn(rng, static_cast<size_t>(T_lean) * d, 3.f);
  const auto add_all = round16<TypeParam>(randn(rng, x_all.size()));
  const auto w = randn(rng, d, 0.1f, 1.f), bias = randn(rng, d, 0.1f);
  Dev<float> dw(w), db(bias);
  std::vector<std::vector<float>> ys, norms, xs;
  for (const int32_t rows : {T, T_lean}) {
    SCOPED_TRACE(testing::Message() << rows << " rows with a bias");
    const std::vector<float> x0(x_all.begin(), x_all.begin() + static_cast<std::ptrdiff_t>(rows) * d);
    const std::vector<float> add(add_all.begin(), add_all.begin() + static_cast<std::ptrdiff_t>(rows) * d);
    Dev<float> dx(x0), dn(x0.size());
    Dev<TypeParam> da(to16<TypeParam>(add)), dy(x0.size());
    AddLnParams<TypeParam> p;
    p.x = dx.get();
    p.add = da.get();
    p.weight = dw.get();
    p.bias = db.get();
    p.y = dy.get();
    p.norm_out = dn.get();
    p.tokens = rows;
    p.d = d;
    launch_add_ln(p, nullptr);
    std::vector<float> sum(x0.size()), ref(x0.size());
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = x0[i] + add[i];
    cpu::layer_norm(sum.data(), rows, d, w.data(), bias.data(), 1e-5f, ref.data());
    xs.push_back(dx.down());
    EXPECT_EQ(xs.back(), sum);  // fp32 residual add is exact-equal
    norms.push_back(dn.down());
    const auto dd = compare(norms.back(), ref);
    EXPECT_TRUE(dd.finite && dd.nrms < 1e-5) << dd.nrms;
    ys.push_back(from16(dy.down()));
    expect_close(ys.back(), ref, "add_ln y");
  }
  const auto shared = static_cast<std::ptrdiff_t>(T) * d;
  EXPECT_TRUE(std::equal(ys[0].begin(), ys[0].end(), ys[1].begin(), ys[1].begin() + shared));
  EXPECT_TRUE(std::equal(norms[0].begin(), norms[0].end(), norms[1].begin(), norms[1].begin() + shared));
  const std::vector<float> x0(x_all.begin(), x_all.begin() + shared);
  Dev<float> dx(xs[0]);  // the 19 rows after the add, for the gather below
  std::vector<float> ref(xs[0].size());
  cpu::layer_norm(xs[0].data(), T, d, w.data(), bias.data(), 1e-5f, ref.data());

  // The encoder's forms (no LayerNorm bias): the GEMM output added, or x alone (the residual GEMMs
  // added it already); from kLeanAddLnFromRows rows (or AddLnParams::lean_from_rows, the engine's
  // bound) through the lean instance of the kernel (launch_add_ln): 19 rows through each, bitwise
  // equal, and 1539 rows.
  static_assert(kLeanAddLnFromRows > 19 && kLeanAddLnFromRows <= 1539);
  for (const int32_t rows : {19, 1539}) {
    const auto xr = randn(rng, static_cast<size_t>(rows) * d, 3.f);
    const auto ar = round16<TypeParam>(randn(rng, xr.size()));
    Dev<TypeParam> dar(to16<TypeParam>(ar));
    std::vector<float> added(xr.size());
    for (size_t i = 0; i < xr.size(); ++i) added[i] = xr[i] + ar[i];
    for (const bool with_add : {true, false}) {
      std::vector<std::vector<float>> outs;
      const auto lean_bounds =
          rows < kLeanAddLnFromRows ? std::vector{kLeanAddLnFromRows, 1} : std::vector{kLeanAddLnFromRows};
      for (const int32_t lean_from : lean_bounds) {
        SCOPED_TRACE(testing::Message() << rows << " rows, " << (with_add ? "add" : "x alone") << ", lean from "
                                        << lean_from);
        Dev<float> dx2(xr);
        Dev<TypeParam> dy3(xr.size());
        AddLnParams<TypeParam> q;
        q.x = dx2.get();
        q.add = with_add ? dar.get() : nullptr;
        q.weight = dw.get();
        q.y = dy3.get();
        q.tokens = rows;
        q.d = d;
        q.lean_from_rows = lean_from;
        launch_add_ln(q, nullptr);
        const std::vector<float>& in = with_add ? added : xr;
        std::vector<float> r(xr.size());
        cpu::layer_norm(in.data(), rows, d, w.data(), nullptr, 1e-5f, r.data());
        EXPECT_EQ(dx2.down(), in);
        outs.push_back(from16(dy3.down()));
        expect_close(outs.back(), r, "add_ln without bias");
      }
      if (outs.size() == 2) {
        EXPECT_EQ(outs[0], outs[1]) << "general and lean instances differ";
      }
    }
  }

  // gather + LN at marker rows
  const std::vector<int32_t> marks{0, 5, 18, 5};
  Dev<int32_t> dm(marks);
  Dev<TypeParam> dg(marks.size() * d);
  GatherLnParams<TypeParam> g;
  g.x = dx.get();
  g.marker_tok = dm.get();
  g.weight = dw.get();
  g.bias = db.get();
  g.y = dg.get();
  g.markers = 4;
  g.d = d;
  g.tokens = T;
  launch_gather_ln(g, nullptr);
  std::vector<float> gref(marks.size() * d);
  for (size_t k = 0; k < marks.size(); ++k)
    std::copy_n(ref.begin() + marks[k] * d, d, gref.begin() + static_cast<int64_t>(k) * d);
  expect_close(from16(dg.down()), gref, "gather_ln");

  // type embedding + LN
  const auto te = randn(rng, 3 * d);
  std::vector<int32_t> tok_row(T), qt{2, 0, 1};
  for (int32_t t = 0; t < T; ++t) tok_row[static_cast<size_t>(t)] = t < 7 ? 0 : (t < 12 ? 1 : 2);
  Dev<float> dte(te), dh(x0);
  Dev<int32_t> dtr(tok_row), dqt(qt);
  Dev<TypeParam> dy2(x0.size());
  TypeLnParams<TypeParam> tp;
  tp.x = dh.get();
  tp.type_emb = dte.get();
  tp.tok_row = dtr.get();
  tp.qtypes = dqt.get();
  tp.weight = dw.get();
  tp.bias = db.get();
  tp.y = dy2.get();
  tp.tokens = T;
  tp.d = d;
  launch_type_ln(tp, nullptr);
  std::vector<float> h2(x0.size()), ref2(x0.size());
  for (int32_t t = 0; t < T; ++t)
    for (int32_t e = 0; e < d; ++e)
      h2[static_cast<size_t>(t * d + e)] = x0[static_cast<size_t>(t * d + e)] + te[static_cast<size_t>(qt[tok_row[t]] * d + e)];
  cpu::layer_norm(h2.data(), T, d, w.data(), bias.data(), 1e-5f, ref2.data());
  EXPECT_EQ(dh.down(), h2);
  expect_close(from16(dy2.down()), ref2, "type_ln");
}

TYPED_TEST(CudaKernelsTyped, GegluAndGeluMatchReference) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(17);
  const int32_t rows = 23, inter = 2624;
  const auto up = round16<TypeParam>(randn(rng, static_cast<size_t>(rows) * 2 * inter, 2.f));
  Dev<TypeParam> du(to16<TypeParam>(up)), dout(static_cast<size_t>(rows) * inter);
  launch_geglu(GegluParams<TypeParam>{du.get(), dout.get(), rows, inter}, nullptr);
  std::vector<float> ref(static_cast<size_t>(rows) * inter);
  cpu::geglu(up.data(), rows, inter, ref.data());
  expect_close(from16(dout.down()), ref, "geglu");
  // With an L2 prefetch plan (sent by the 56 threads a row past the last column: 1,288 threads for
  // its 1,932 lines, some two each): the same bits.
  const auto plain = dout.down();
  L2Prefetch ahead;
  ASSERT_TRUE(ahead.add(du.get(), rows, 2, int64_t{2} * inter * 2));  // 23 rows' first 256 bytes
  ASSERT_TRUE(ahead.add_bytes(du.get(), static_cast<int64_t>(rows) * 2 * inter * 2));  // the whole input
  dout.poison();
  launch_geglu(GegluParams<TypeParam>{du.get(), dout.get(), rows, inter}, nullptr, ahead);
  EXPECT_EQ(std::memcmp(plain.data(), dout.down().data(), plain.size() * 2), 0) << "geglu with an L2 prefetch plan";
  auto g = round16<TypeParam>(randn(rng, 1000, 3.f));
  Dev<TypeParam> dg(to16<TypeParam>(g));
  launch_gelu(GeluParams<TypeParam>{dg.get(), 1000}, nullptr);
  cpu::gelu_erf(g.data(), 1000);
  expect_close(from16(dg.down()), g, "gelu");
}

TYPED_TEST(CudaKernelsTyped, GemmMatchesReferenceWithBiasAndRelu) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(19);
  Dev<uint8_t> ws(kGemmWorkspace);
  Gemm gemm(ws.get(), kGemmWorkspace);
  for (auto [m, n, k] : {std::tuple{37, 384, 128}, std::tuple{1, 3072, 1024}, std::tuple{513, 1024, 2624}}) {
    const auto a = round16<TypeParam>(randn(rng, static_cast<size_t>(m) * k));
    const auto w = round16<TypeParam>(randn(rng, static_cast<size_t>(n) * k, 0.02f));
    const auto b = round16<TypeParam>(randn(rng, static_cast<size_t>(n), 0.1f));
    Dev<TypeParam> da(to16<TypeParam>(a)), dw(to16<TypeParam>(w)), db(to16<TypeParam>(b)), dc(static_cast<size_t>(m) * n);
    for (int variant = 0; variant < 3; ++variant) {
      dc.poison();
      GemmArgs<TypeParam> g{da.get(), dw.get(), variant == 0 ? nullptr : db.get(), dc.get(), m, n, k, variant == 2};
      gemm.run(g, nullptr);
      std::vector<float> ref(static_cast<size_t>(m) * n);
      cpu::linear(a.data(), m, k, w.data(), variant == 0 ? nullptr : b.data(), n, ref.data());
      if (variant == 2) cpu::relu(ref.data(), static_cast<int64_t>(ref.size()));
      expect_close(from16(dc.down()), ref, "gemm");
    }
  }
}

// GEMMs with the heuristic's pick forced to a 1x1x1 cluster (Gemm's SingleCtaClusterRule: here up
// to 64 rows and at 1,024; the engine's rule: up to 64, at 769-1,535 and for two shapes at 129-768,
// cluster_rule.h): against the fp32 reference and against the pick as the heuristic returns it, for
// the engine's encoder shapes at 48, 64 and 1,024 rows (the MLP output GEMM in its partials form
// too), the decision layers' FFN GEMMs (K = 4096: split K with a reduction kernel), a head-sized one
// and shapes outside the ranges. Reports whether the two are bitwise equal (same tile, another
// cluster: expected, not required).
TYPED_TEST(CudaKernelsTyped, GemmWithSingleCtaClusterMatchesReferenceAndHeuristicPick) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(29);
  Dev<uint8_t> ws(kGemmWorkspace);
  const SingleCtaClusterRule rule{{{1, 64, {}}, {1024, 1024, {}}}};
  Gemm heuristic(ws.get(), kGemmWorkspace), single(ws.get(), kGemmWorkspace, Gemm::kNeverTune, rule);
  struct Case {
    int32_t m, n, k, splits;
  };
  for (const Case c : {Case{48, 3072, 1024, 1}, Case{48, 1024, 1024, 1}, Case{64, 5248, 1024, 1},
                       Case{48, 1024, 2624, 2}, Case{48, 4096, 1024, 1}, Case{48, 1024, 4096, 1},
                       Case{8, 1024, 1024, 1}, Case{65, 1024, 1024, 1}, Case{1024, 3072, 1024, 1},
                       Case{1024, 1024, 2624, 1}, Case{1024, 5248, 1024, 1}, Case{1025, 1024, 1024, 1}}) {
    SCOPED_TRACE(testing::Message() << "M=" << c.m << " N=" << c.n << " K=" << c.k << " splits " << c.splits);
    const auto a = round16<TypeParam>(randn(rng, static_cast<size_t>(c.m) * c.k));
    const auto w = round16<TypeParam>(randn(rng, static_cast<size_t>(c.n) * c.k, 0.02f));
    std::vector<float> ref(static_cast<size_t>(c.m) * c.n);
    cpu::linear(a.data(), c.m, c.k, w.data(), nullptr, c.n, ref.data());
    Dev<TypeParam> da(to16<TypeParam>(a)), dw(to16<TypeParam>(w));
    std::vector<float> got[2];
    for (int which = 0; which < 2; ++which) {
      Gemm& g = which == 0 ? heuristic : single;
      if (c.splits == 1) {
        Dev<TypeParam> dc(static_cast<size_t>(c.m) * c.n);
        dc.poison();
        g.run(GemmArgs<TypeParam>{da.get(), dw.get(), nullptr, dc.get(), c.m, c.n, c.k, false}, nullptr);
        got[which] = from16(dc.down());
      } else {  // the partials, summed in order as the add+LN sums them
        Dev<float> dp(static_cast<size_t>(c.splits) * c.m * c.n);
        g.run_partials(da.get(), dw.get(), dp.get(), c.m, c.n, c.k, c.splits, nullptr);
        const auto parts = dp.down();
        got[which].assign(ref.size(), 0.f);
        for (int32_t s = 0; s < c.splits; ++s)
          for (size_t i = 0; i < ref.size(); ++i) got[which][i] += parts[static_cast<size_t>(s) * ref.size() + i];
      }
      expect_close(got[which], ref, which == 0 ? "gemm, heuristic pick" : "gemm, 1x1x1 cluster");
    }
    expect_close(got[1], got[0], "1x1x1 cluster vs heuristic pick");
    std::printf("  M=%d N=%d K=%d splits %d: 1x1x1 cluster %s the heuristic pick\n", c.m, c.n, c.k, c.splits,
                got[1] == got[0] ? "bitwise equal to" : "close to (not bitwise equal)");
  }
}

// The residual GEMM (Gemm::run_residual): x += in . W^T in fp32, in place — once, also when the
// shape is timed on first use (the candidates write to the scratch, never into x), and again on a
// second call.
TYPED_TEST(CudaKernelsTyped, GemmResidualAddsTheProductIntoX) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(23);
  Dev<uint8_t> ws(kGemmWorkspace);
  Gemm plain(ws.get(), kGemmWorkspace), timed(ws.get(), kGemmWorkspace, 1);  // timed: every shape
  for (auto [m, n, k] : {std::tuple{37, 384, 128}, std::tuple{1, 1024, 1024}, std::tuple{513, 1024, 2624}}) {
    SCOPED_TRACE(testing::Message() << "M=" << m << " N=" << n << " K=" << k);
    const auto a = round16<TypeParam>(randn(rng, static_cast<size_t>(m) * k));
    const auto w = round16<TypeParam>(randn(rng, static_cast<size_t>(n) * k, 0.02f));
    const auto x0 = randn(rng, static_cast<size_t>(m) * n);
    std::vector<float> prod(static_cast<size_t>(m) * n), once(prod.size()), twice(prod.size());
    cpu::linear(a.data(), m, k, w.data(), nullptr, n, prod.data());
    for (size_t i = 0; i < prod.size(); ++i) {
      once[i] = x0[i] + prod[i];
      twice[i] = once[i] + prod[i];
    }
    Dev<TypeParam> da(to16<TypeParam>(a)), dw(to16<TypeParam>(w));
    for (Gemm* g : {&plain, &timed}) {
      Dev<float> dx(x0), scratch(static_cast<size_t>(m) * n);
      g->run_residual(da.get(), dw.get(), dx.get(), scratch.get(), m, n, k, nullptr);
      const auto got = dx.down();
      expect_close(got, once, g == &plain ? "residual gemm" : "residual gemm, timed");
      // The product itself, against the fp32 reference (x0 would hide an error in it).
      std::vector<float> added(got.size());
      for (size_t i = 0; i < got.size(); ++i) added[i] = got[i] - x0[i];
      expect_close(added, prod, "residual gemm: the product added");
      g->run_residual(da.get(), dw.get(), dx.get(), scratch.get(), m, n, k, nullptr);
      expect_close(dx.down(), twice, "residual gemm, second call");
    }
  }
}

// The fused GeGLU GEMM's GELU table of every pattern, filled (launch_fill_gelu_all).
struct GeluAllTable : Dev<uint16_t> {
  GeluAllTable() : Dev<uint16_t>(kGeluAllEntries) { launch_fill_gelu_all(get(), nullptr); }
};

// The MLP input GEMM with GeGLU fused (sm_90): against the fp32 reference rounded as the unfused
// path rounds, against the unfused path (cuBLASLt + geglu_kernel: another summation order, so
// close, not equal), deterministic; row tails (M not a multiple of 128) leave the rows past M alone,
// and the warpgroups whose rows all lie past M (which skip their MMAs) change no output.
TYPED_TEST(CudaKernelsTyped, GegluGemmMatchesReferenceAndUnfusedPath) {
  LAYA_REQUIRE_GPU();
  if (!geglu_gemm_supported(64, 64)) GTEST_SKIP() << "fused GeGLU GEMM needs the sm_90a kernel image: test not run";
  std::mt19937 rng(29);
  Dev<uint8_t> ws(kGemmWorkspace);
  Gemm gemm(ws.get(), kGemmWorkspace);
  const GeluAllTable gelu_all;
  auto geglu_args = [&](const TypeParam* in, const TypeParam* w, TypeParam* out, int m, int k, int inter) {
    GegluGemmArgs<TypeParam> args{in, w, out, m, k, inter};
    args.gelu_all = gelu_all.get();
    return args;
  };
  for (auto [m, k, inter] : {std::tuple{1, 64, 64}, std::tuple{129, 128, 192}, std::tuple{300, 1024, 2624},
                             std::tuple{1856, 1024, 2624}}) {
    SCOPED_TRACE(testing::Message() << "M=" << m << " K=" << k << " inter=" << inter);
    const auto a = round16<TypeParam>(randn(rng, static_cast<size_t>(m) * k));
    const auto w = round16<TypeParam>(randn(rng, static_cast<size_t>(2 * inter) * k, 0.05f));
    Dev<TypeParam> da(to16<TypeParam>(a)), dw(to16<TypeParam>(w));
    Dev<TypeParam> dout(static_cast<size_t>(m + 1) * inter), dup(static_cast<size_t>(m) * 2 * inter),
        dref(static_cast<size_t>(m) * inter);
    dout.poison();
    launch_geglu_gemm(geglu_args(da.get(), dw.get(), dout.get(), m, k, inter), nullptr);
    auto got = from16(dout.down());
    const std::vector<float> past_m(got.begin() + static_cast<int64_t>(m) * inter, got.end());
    got.resize(static_cast<size_t>(m) * inter);
    for (float v : past_m) ASSERT_TRUE(std::isnan(v)) << "a row past M was written";
    std::vector<float> up(static_cast<size_t>(m) * 2 * inter), ref(static_cast<size_t>(m) * inter);
    cpu::linear(a.data(), m, k, w.data(), nullptr, 2 * inter, up.data());
    cpu::geglu(round16<TypeParam>(up).data(), m, inter, ref.data());
    expect_close(got, ref, "geglu gemm vs reference");
    gemm.run(GemmArgs<TypeParam>{da.get(), dw.get(), nullptr, dup.get(), m, 2 * inter, k, false}, nullptr);
    launch_geglu(GegluParams<TypeParam>{dup.get(), dref.get(), m, inter}, nullptr);
    const auto unfused = from16(dref.down());
    expect_close(got, unfused, "geglu gemm vs cuBLASLt + geglu");
    size_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += got[i] != unfused[i];
    std::printf("geglu gemm M=%d K=%d inter=%d: %zu of %zu outputs differ from cuBLASLt + geglu\n", m, k, inter,
                differ, got.size());
    const auto first = dout.down();
    dout.poison();
    launch_geglu_gemm(geglu_args(da.get(), dw.get(), dout.get(), m, k, inter), nullptr);
    EXPECT_EQ(std::memcmp(first.data(), dout.down().data(), first.size() * 2), 0) << "not deterministic";
    // Capped grids: each CTA then carries several tiles' epilogues into its next tiles (and the
    // last one out of its loop) in another pattern; the same bits.
    for (int ctas : {1, 5}) {
      dout.poison();
      auto args = geglu_args(da.get(), dw.get(), dout.get(), m, k, inter);
      args.max_ctas = ctas;
      launch_geglu_gemm(args, nullptr);
      EXPECT_EQ(std::memcmp(first.data(), dout.down().data(), first.size() * 2), 0) << "at most " << ctas << " CTAs";
    }
    // Every consumer warpgroup multiplying, its rows past M included (the rows it skips by default
    // are never stored): the same bits.
    dout.poison();
    auto all_rows = geglu_args(da.get(), dw.get(), dout.get(), m, k, inter);
    all_rows.skip_rows_past_m = false;
    launch_geglu_gemm(all_rows, nullptr);
    EXPECT_EQ(std::memcmp(first.data(), dout.down().data(), first.size() * 2), 0) << "rows past M multiplied";
  }
  Dev<TypeParam> x(64 * 64);
  EXPECT_THROW(launch_geglu_gemm(GegluGemmArgs<TypeParam>{x.get(), x.get(), x.get(), 1, 96, 64}, nullptr), Error);
  EXPECT_THROW(launch_geglu_gemm(GegluGemmArgs<TypeParam>{x.get(), x.get(), x.get(), 1, 64, 32}, nullptr), Error);
  if constexpr (std::is_same_v<TypeParam, __nv_bfloat16>) {  // without its table of every pattern
    EXPECT_THROW(launch_geglu_gemm(GegluGemmArgs<TypeParam>{x.get(), x.get(), x.get(), 1, 64, 64}, nullptr), Error);
  }
}

// Split-K partials without cuBLASLt's reduction (Gemm::run_partials) and their consumer,
// add+LayerNorm with add_parts: x + T(p0 + p1) exactly, the partials' sum close to the fp32 GEMM.
// Every finite normal 16-bit activation through the fused GEMM's GeGLU epilogue (bf16: the GELU
// table and, outside its range, the computed form) gives bitwise what geglu_kernel gives: one-hot A
// rows pick act = W[c][r] exactly (one product by 1, the rest by 0), with mul = 1. K = 1024 as in
// the english layout: 16 k-tiles per tile, so the deferred epilogue chunks run beside MMAs in flight.
TYPED_TEST(CudaKernelsTyped, GegluGemmEpilogueEqualsGegluForEveryActivation) {
  LAYA_REQUIRE_GPU();
  if (!geglu_gemm_supported(64, 64)) GTEST_SKIP() << "fused GeGLU GEMM needs the sm_90a kernel image: test not run";
  constexpr int m = 64, k = 1024, inter = 1024;  // 64 x 1024 = every 16-bit pattern once
  const bool bf16 = std::is_same_v<TypeParam, __nv_bfloat16>;
  const uint32_t exp_mask = bf16 ? 0x7F80u : 0x7C00u;
  auto pattern = [&](int r, int c) {  // act of row r, column c; zero, subnormal, inf and NaN patterns as +0
    const uint32_t bits = static_cast<uint32_t>(c * m + r);
    const uint32_t e = bits & exp_mask;
    return static_cast<uint16_t>(e == 0 || e == exp_mask ? 0u : bits);
  };
  const uint16_t one = bf16 ? 0x3F80 : 0x3C00;
  std::vector<uint16_t> a(static_cast<size_t>(m) * k, 0), w(static_cast<size_t>(2 * inter) * k), up(static_cast<size_t>(m) * 2 * inter);
  for (int r = 0; r < m; ++r) a[static_cast<size_t>(r) * k + r] = one;
  for (int c = 0; c < inter; ++c)
    for (int j = 0; j < k; ++j) {
      w[static_cast<size_t>(c) * k + j] = j < m ? pattern(j, c) : 0;
      w[static_cast<size_t>(inter + c) * k + j] = one;
    }
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < inter; ++c) {
      up[static_cast<size_t>(r) * 2 * inter + c] = pattern(r, c);
      up[static_cast<size_t>(r) * 2 * inter + inter + c] = one;
    }
  auto as16 = [](const std::vector<uint16_t>& v) {
    std::vector<TypeParam> out(v.size());
    std::memcpy(static_cast<void*>(out.data()), v.data(), v.size() * 2);
    return out;
  };
  Dev<TypeParam> da(as16(a)), dw(as16(w)), dup(as16(up)), dout(static_cast<size_t>(m) * inter),
      dref(static_cast<size_t>(m) * inter);
  launch_geglu(GegluParams<TypeParam>{dup.get(), dref.get(), m, inter}, nullptr);
  const auto ref = dref.down();
  const GeluAllTable gelu_all;
  // One CTA per tile (every epilogue after its CTA's loop), one CTA for all 16 tiles (every epilogue
  // but the last deferred into the next tile) and three CTAs.
  for (int ctas : {0, 1, 3}) {
    SCOPED_TRACE(testing::Message() << "at most " << ctas << " CTAs");
    dout.poison();
    GegluGemmArgs<TypeParam> args{da.get(), dw.get(), dout.get(), m, k, inter};
    args.gelu_all = gelu_all.get();
    args.max_ctas = ctas;
    launch_geglu_gemm(args, nullptr);
    const auto got = dout.down();
    size_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += std::memcmp(&got[i], &ref[i], 2) != 0;
    EXPECT_EQ(differ, 0u) << "of " << got.size() << " activations";
  }
}

// The GeGLU pass with the bf16 GELU table (gelu_lut.cuh) against its computed form, for every 16-bit
// pattern of the activation — zeros, subnormals, |a| >= 16, infinities and NaNs take the computed
// branch, the rest the table — times random gates: bitwise equal. The table holds bf16 values only.
TEST(CudaKernels, GegluWithGeluTableEqualsComputedForEveryActivation) {
  LAYA_REQUIRE_GPU();
  using B = __nv_bfloat16;
  constexpr int rows = 64, inter = 1024;  // 65,536 activations: every pattern once
  std::mt19937 rng(5);
  const auto gates = round16<B>(randn(rng, static_cast<size_t>(rows) * inter, 2.f));
  std::vector<B> up(static_cast<size_t>(rows) * 2 * inter);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < inter; ++c) {
      up[static_cast<size_t>(r) * 2 * inter + c] = __ushort_as_bfloat16(static_cast<unsigned short>(r * inter + c));
      up[static_cast<size_t>(r) * 2 * inter + inter + c] = __float2bfloat16(gates[static_cast<size_t>(r) * inter + c]);
    }
  Dev<B> dup(up), computed(static_cast<size_t>(rows) * inter), looked_up(static_cast<size_t>(rows) * inter);
  Dev<uint16_t> lut(kGeluLutEntries);
  launch_fill_gelu_lut(lut.get(), nullptr);
  GegluParams<B> p{dup.get(), computed.get(), rows, inter};
  launch_geglu(p, nullptr);
  p.out = looked_up.get();
  p.gelu_lut = lut.get();
  launch_geglu(p, nullptr);
  const auto want = computed.down(), got = looked_up.down();
  size_t differ = 0;
  for (size_t i = 0; i < got.size(); ++i) differ += std::memcmp(&got[i], &want[i], 2) != 0;
  EXPECT_EQ(differ, 0u) << "of " << got.size() << " activations";
  Dev<__half> h(static_cast<size_t>(2) * inter);
  EXPECT_THROW(launch_geglu(GegluParams<__half>{h.get(), h.get(), 1, inter, lut.get()}, nullptr), Error);
}

// The GELU table of every bf16 pattern (the fused GeGLU GEMM's, for activations outside its shared
// table) against the computed GELU (gelu_kernel) of each pattern: bitwise equal, NaNs both NaN.
TEST(CudaKernels, GeluOfEveryPatternTableEqualsComputed) {
  LAYA_REQUIRE_GPU();
  using B = __nv_bfloat16;
  std::vector<B> every(kGeluAllEntries);
  for (int i = 0; i < kGeluAllEntries; ++i) every[static_cast<size_t>(i)] = __ushort_as_bfloat16(static_cast<unsigned short>(i));
  Dev<B> computed(every);
  launch_gelu(GeluParams<B>{computed.get(), kGeluAllEntries}, nullptr);
  const auto want = computed.down();
  const auto got = GeluAllTable().down();
  size_t differ = 0, nans = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    uint16_t w;
    std::memcpy(&w, &want[i], 2);
    const bool want_nan = (w & 0x7F80u) == 0x7F80u && (w & 0x7Fu) != 0;
    const bool got_nan = (got[i] & 0x7F80u) == 0x7F80u && (got[i] & 0x7Fu) != 0;
    nans += want_nan;
    differ += want_nan ? !got_nan : got[i] != w;
  }
  EXPECT_EQ(differ, 0u) << "of " << got.size() << " patterns";
  EXPECT_EQ(nans, 2u * 127u + 1u) << "the NaN patterns and -inf (-inf * 0) give NaN";
}

// The small-M GEMM that waits on PDL (sm_90a), in each form: against the fp32 reference rounded as
// the cuBLASLt path rounds (plain: one rounding, after the bias and ReLU if any; partials: their
// in-order sum; geglu: the GEMM rounded, then geglu as geglu_kernel), against the cuBLASLt path
// itself, deterministic, in the wide layout where the shape allows it, the same in the
// instrumented instance (whose events are stamped in order), rows past m untouched; dimensions and
// arguments it does not take are refused.
TYPED_TEST(CudaKernelsTyped, SmallGemmMatchesReferenceInEachForm) {
  LAYA_REQUIRE_GPU();
  if (!small_gemm_supported(1, 32, 64, SmallGemmForm::plain)) GTEST_SKIP() << "small GEMM needs sm_90a: test not run";
  std::mt19937 rng(31);
  Dev<uint8_t> ws(kGemmWorkspace);
  Gemm gemm(ws.get(), kGemmWorkspace);
  struct Case {
    int32_t m, n, k;
    SmallGemmForm form;
    int32_t splits;
    bool bias, relu;
  };
  const auto plain = SmallGemmForm::plain, geglu_form = SmallGemmForm::geglu, partials = SmallGemmForm::partials;
  for (const Case c : {Case{48, 3072, 1024, plain, 1, false, false}, Case{1, 32, 64, plain, 1, false, false},
                       Case{64, 1024, 1024, plain, 1, false, false}, Case{17, 128, 640, plain, 1, false, false},
                       Case{48, 3072, 1024, plain, 1, true, false}, Case{48, 4096, 1024, plain, 1, true, true},
                       Case{3, 1024, 4096, plain, 1, true, false}, Case{33, 96, 128, plain, 1, true, true},
                       Case{48, 2624, 1024, geglu_form, 1, false, false}, Case{5, 192, 128, geglu_form, 1, false, false},
                       Case{48, 1024, 2624, partials, 2, false, false}, Case{33, 128, 192, partials, 3, false, false},
                       Case{9, 64, 128, plain, 1, false, false}, Case{64, 128, 256, geglu_form, 1, false, false},
                       Case{20, 64, 64, partials, 1, false, false}, Case{100, 128, 256, plain, 1, true, false},
                       Case{128, 64, 128, geglu_form, 1, false, false}, Case{80, 128, 192, partials, 2, false, false},
                       Case{120, 128, 256, plain, 1, true, true}, Case{97, 128, 256, partials, 2, false, false}}) {
    SCOPED_TRACE(testing::Message() << "M=" << c.m << " N=" << c.n << " K=" << c.k << " form " << static_cast<int>(c.form)
                                    << " splits " << c.splits << " bias " << c.bias << " relu " << c.relu);
    // Up to 64 rows both layouts (the wide one where n allows), above only the wide one.
    const bool narrow = small_gemm_supported(c.m, c.n, c.k, c.form, c.splits);
    EXPECT_EQ(narrow, c.m <= 64) << "which shapes the narrow layout takes";
    const bool geglu = c.form == geglu_form, parts = c.form == partials;
    const int32_t w_rows = geglu ? 2 * c.n : c.n;
    const auto a = round16<TypeParam>(randn(rng, static_cast<size_t>(c.m) * c.k));
    const auto w = round16<TypeParam>(randn(rng, static_cast<size_t>(w_rows) * c.k, 0.05f));
    const auto bias = round16<TypeParam>(randn(rng, static_cast<size_t>(c.n), 0.5f));
    Dev<TypeParam> da(to16<TypeParam>(a)), dw(to16<TypeParam>(w)), dbias(to16<TypeParam>(bias));
    const TypeParam* bias_ptr = c.bias ? dbias.get() : nullptr;
    const size_t out_elems = static_cast<size_t>(c.m) * c.n;
    std::vector<float> prod(static_cast<size_t>(c.m) * w_rows), ref(out_elems);
    cpu::linear(a.data(), c.m, c.k, w.data(), c.bias ? bias.data() : nullptr, w_rows, prod.data());
    if (c.relu)
      for (float& v : prod) v = std::max(v, 0.f);
    if (geglu)
      cpu::geglu(round16<TypeParam>(prod).data(), c.m, c.n, ref.data());
    else
      ref = parts ? prod : round16<TypeParam>(prod);
    // One row past m in every output slice, NaN-poisoned, must stay so.
    auto run = [&](bool wide = false, uint64_t* timeline = nullptr) {
      SmallGemmArgs<TypeParam> args{da.get(), dw.get(), nullptr, c.m, c.n, c.k, c.form, c.splits, bias_ptr, c.relu};
      args.wide = wide;
      args.timeline = timeline;
      std::vector<float> got(out_elems, 0.f);
      if (parts) {
        Dev<float> dout(static_cast<size_t>(c.splits) * (c.m + 1) * c.n);
        dout.poison();
        args.out = dout.get();
        launch_small_gemm(args, nullptr);
        const auto all = dout.down();
        for (int32_t s = 0; s < c.splits; ++s) {
          for (size_t i = 0; i < out_elems; ++i) got[i] += all[static_cast<size_t>(s) * c.m * c.n + i];
          EXPECT_TRUE(std::isnan(all.back())) << "a row past M was written";
        }
      } else {
        Dev<TypeParam> dout(static_cast<size_t>(c.m + 1) * c.n);
        dout.poison();
        args.out = dout.get();
        launch_small_gemm(args, nullptr);
        const auto all = from16(dout.down());
        for (size_t i = out_elems; i < all.size(); ++i) EXPECT_TRUE(std::isnan(all[i])) << "a row past M was written";
        got.assign(all.begin(), all.begin() + static_cast<int64_t>(out_elems));
      }
      return got;
    };
    const bool wide = small_gemm_supported(c.m, c.n, c.k, c.form, c.splits, true);
    EXPECT_EQ(wide, c.n % (geglu ? 32 : 64) == 0) << "which shapes the wide layout takes";
    ASSERT_TRUE(narrow || wide);
    const auto got = run(!narrow);
    expect_close(got, ref, "small gemm vs reference");
    EXPECT_EQ(got, run(!narrow)) << "not deterministic";
    // The wide layout where the shape allows: against the reference, deterministic.
    if (wide && narrow) {
      const auto got_wide = run(true);
      expect_close(got_wide, ref, "small gemm (wide) vs reference");
      EXPECT_EQ(got_wide, run(true)) << "wide: not deterministic";
      std::printf("  small gemm M=%d N=%d K=%d form %d: wide layout %s the narrow one\n", c.m, c.n, c.k,
                  static_cast<int>(c.form), got_wide == got ? "bitwise equal to" : "close to (not bitwise equal)");
    }
    // The instrumented instance (wide where it runs): the same outputs, every CTA's events in order.
    const int32_t ctas = c.n / ((geglu ? 16 : 32) * (wide ? 2 : 1)) * c.splits;
    Dev<uint64_t> timeline(std::vector<uint64_t>(static_cast<size_t>(ctas) * kSmallGemmTimelineFields, 0));
    EXPECT_EQ(run(wide), run(wide, timeline.get())) << "instrumented";
    const auto stamps = timeline.down();
    for (int32_t cta = 0; cta < ctas; ++cta) {
      const uint64_t* r = stamps.data() + static_cast<size_t>(cta) * kSmallGemmTimelineFields;
      auto ns = [&](SmallGemmEvent e) { return r[2 * static_cast<int>(e)]; };
      auto clk = [&](SmallGemmEvent e) { return r[2 * static_cast<int>(e) + 1]; };
      EXPECT_GT(ns(SmallGemmEvent::entry), 0u) << "CTA " << cta;
      for (const auto& [from, to] : {std::pair{SmallGemmEvent::entry, SmallGemmEvent::initialized},
                                std::pair{SmallGemmEvent::initialized, SmallGemmEvent::weights_requested},
                                std::pair{SmallGemmEvent::weights_requested, SmallGemmEvent::producer_waited},
                                std::pair{SmallGemmEvent::initialized, SmallGemmEvent::consumer_waited},
                                std::pair{SmallGemmEvent::consumer_waited, SmallGemmEvent::first_stage},
                                std::pair{SmallGemmEvent::first_stage, SmallGemmEvent::last_mma},
                                std::pair{SmallGemmEvent::last_mma, SmallGemmEvent::exit}}) {
        const auto where = testing::Message() << "CTA " << cta << ", events " << static_cast<int>(from) << " -> "
                                               << static_cast<int>(to);
        EXPECT_LE(ns(from), ns(to)) << where;
        EXPECT_LE(clk(from), clk(to)) << where;
      }
    }
    if (!parts) {  // the cuBLASLt path (+ geglu_kernel)
      Dev<TypeParam> dup(static_cast<size_t>(c.m) * w_rows), dg(out_elems);
      gemm.run(GemmArgs<TypeParam>{da.get(), dw.get(), bias_ptr, dup.get(), c.m, w_rows, c.k, c.relu}, nullptr);
      if (geglu) launch_geglu(GegluParams<TypeParam>{dup.get(), dg.get(), c.m, c.n}, nullptr);
      const auto lt = from16(geglu ? dg.down() : dup.down());
      expect_close(got, lt, "small gemm vs cuBLASLt");
      std::printf("  small gemm M=%d N=%d K=%d form %d%s%s: %s the cuBLASLt path\n", c.m, c.n, c.k,
                  static_cast<int>(c.form), c.bias ? " +bias" : "", c.relu ? " relu" : "",
                  got == lt ? "bitwise equal to" : "close to (not bitwise equal)");
    }
  }
  EXPECT_FALSE(small_gemm_supported(65, 32, 64, SmallGemmForm::plain));
  EXPECT_FALSE(small_gemm_supported(8, 48, 64, SmallGemmForm::plain));
  EXPECT_FALSE(small_gemm_supported(8, 32, 96, SmallGemmForm::plain));
  EXPECT_FALSE(small_gemm_supported(8, 32, 128, SmallGemmForm::plain, 2));
  EXPECT_FALSE(small_gemm_supported(8, 32, 128, SmallGemmForm::partials, 3));
  EXPECT_FALSE(small_gemm_supported(8, 96, 64, SmallGemmForm::plain, 1, true));
  EXPECT_FALSE(small_gemm_supported(8, 48, 64, SmallGemmForm::geglu, 1, true));
  EXPECT_FALSE(small_gemm_supported(129, 64, 64, SmallGemmForm::plain, 1, true));
  Dev<TypeParam> x(64 * 128);
  EXPECT_THROW(launch_small_gemm(SmallGemmArgs<TypeParam>{x.get(), x.get(), x.get(), 65, 32, 64}, nullptr), Error);
  SmallGemmArgs<TypeParam> bad{x.get(), x.get(), x.get(), 8, 32, 64, SmallGemmForm::geglu};
  bad.bias = x.get();
  EXPECT_THROW(launch_small_gemm(bad, nullptr), Error) << "a bias in the geglu form";
  bad = SmallGemmArgs<TypeParam>{x.get(), x.get(), x.get(), 8, 32, 64};
  bad.relu = true;
  EXPECT_THROW(launch_small_gemm(bad, nullptr), Error) << "ReLU without a bias";

}

// The rope form (the encoder's QKV GEMM with RoPE in its epilogue) gives bitwise what the plain
// form followed by launch_rope gives — q and k rotated, v untouched — for rows of several lengths,
// positions past the table (clamped), every token count of the wide layout's instances and the
// narrow layout (16-dim boxes); rows past m stay untouched; more than 64 rows narrow, a bias, missing
// tables and part of a head are refused.
TYPED_TEST(CudaKernelsTyped, SmallGemmRopeFormEqualsPlainThenRope) {
  LAYA_REQUIRE_GPU();
  if (!small_gemm_supported(1, 64, 64, SmallGemmForm::rope, 1, true))
    GTEST_SKIP() << "small GEMM needs sm_90a: test not run";
  std::mt19937 rng(37);
  const int32_t heads = 4, d = heads * 64, n = 3 * d, table_len = 40;
  const auto [hc, hs] = rope_tables32(160000.0, table_len);
  Dev<float> dc(hc), ds(hs);
  // Both layouts (narrow: up to 64 rows).
  for (const auto& [m, wide] : {std::pair{1, true}, std::pair{16, true}, std::pair{33, true}, std::pair{48, true},
                               std::pair{64, true}, std::pair{100, true}, std::pair{128, true}, std::pair{1, false},
                               std::pair{17, false}, std::pair{49, false}, std::pair{64, false}}) {
    for (const int32_t k : {256, 1024}) {
      SCOPED_TRACE(testing::Message() << "M=" << m << " K=" << k << (wide ? " wide" : " narrow"));
      std::vector<int32_t> pos;  // rows of 7, 60 (past the table) and the rest
      for (const int32_t len : {7, 60, 128})
        for (int32_t i = 0; i < len && static_cast<int32_t>(pos.size()) < m; ++i) pos.push_back(i);
      Dev<int32_t> dpos(pos);
      const auto a = to16<TypeParam>(randn(rng, static_cast<size_t>(m) * k));
      const auto w = to16<TypeParam>(randn(rng, static_cast<size_t>(n) * k, 0.05f));
      Dev<TypeParam> da(a), dw(w), plain(static_cast<size_t>(m + 1) * n), fused(static_cast<size_t>(m + 1) * n);
      plain.poison();
      fused.poison();
      SmallGemmArgs<TypeParam> args{da.get(), dw.get(), plain.get(), m, n, k};
      args.wide = wide;
      launch_small_gemm(args, nullptr);
      launch_rope(RopeParams<TypeParam>{plain.get(), dpos.get(), dc.get(), ds.get(), m, heads, table_len}, nullptr);
      args.out = fused.get();
      args.form = SmallGemmForm::rope;
      args.rope_pos = dpos.get();
      args.rope_cos = dc.get();
      args.rope_sin = ds.get();
      args.rope_len = table_len;
      args.rope_cols = 2 * d;
      launch_small_gemm(args, nullptr);
      const auto want = from16(plain.down()), got = from16(fused.down());
      size_t differ = 0;
      for (size_t i = 0; i < static_cast<size_t>(m) * n; ++i)
        differ += std::memcmp(&want[i], &got[i], sizeof(float)) != 0;
      EXPECT_EQ(differ, 0u) << "outputs differing from the plain form + launch_rope";
      for (size_t i = static_cast<size_t>(m) * n; i < got.size(); ++i)
        EXPECT_TRUE(std::isnan(got[i])) << "a row past M";
    }
  }
  EXPECT_FALSE(small_gemm_supported(65, 64, 64, SmallGemmForm::rope)) << "the narrow layout's 64 rows";
  Dev<TypeParam> x(64 * 128);
  Dev<int32_t> p0(std::vector<int32_t>(8, 0));
  SmallGemmArgs<TypeParam> bad{x.get(), x.get(), x.get(), 8, 64, 64, SmallGemmForm::rope};
  bad.wide = true;
  EXPECT_THROW(launch_small_gemm(bad, nullptr), Error) << "no tables";
  bad.rope_pos = p0.get();
  bad.rope_cos = bad.rope_sin = dc.get();
  bad.rope_len = table_len;
  bad.rope_cols = 32;
  EXPECT_THROW(launch_small_gemm(bad, nullptr), Error) << "part of a head";
  bad.rope_cols = 64;
  bad.bias = x.get();
  EXPECT_THROW(launch_small_gemm(bad, nullptr), Error) << "a bias";
}

TYPED_TEST(CudaKernelsTyped, GemmPartialsAndTheirAddLayerNorm) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(29);
  Dev<uint8_t> ws(kGemmWorkspace);
  Gemm gemm(ws.get(), kGemmWorkspace);
  // N = 1024 and 768: the add+LN instances compiled for the english and multilingual hidden sizes;
  // 256: the one for any size.
  for (auto [m, n, k] : {std::tuple{48, 1024, 2624}, std::tuple{1, 128, 192}, std::tuple{64, 256, 4096},
                         std::tuple{48, 768, 1152}}) {
    SCOPED_TRACE(testing::Message() << "M=" << m << " N=" << n << " K=" << k);
    const auto a = round16<TypeParam>(randn(rng, static_cast<size_t>(m) * k));
    const auto w = round16<TypeParam>(randn(rng, static_cast<size_t>(n) * k, 0.02f));
    Dev<TypeParam> da(to16<TypeParam>(a)), dw(to16<TypeParam>(w));
    Dev<float> parts(static_cast<size_t>(2) * m * n);
    gemm.run_partials(da.get(), dw.get(), parts.get(), m, n, k, 2, nullptr);
    const auto p = parts.down();
    std::vector<float> sum(static_cast<size_t>(m) * n), ref(sum.size());
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = p[i] + p[i + sum.size()];
    cpu::linear(a.data(), m, k, w.data(), nullptr, n, ref.data());
    expect_close(sum, ref, "partials");
    if (n % 64 != 0) continue;  // add_ln needs d a multiple of 64
    const auto x0 = randn(rng, sum.size(), 2.f);
    const auto lw = randn(rng, static_cast<size_t>(n), 0.1f, 1.f);
    Dev<float> dx(x0), dlw(lw), dn(sum.size());
    AddLnParams<TypeParam> al;
    al.x = dx.get();
    al.add_parts = parts.get();
    al.parts = 2;
    al.weight = dlw.get();
    al.norm_out = dn.get();
    al.tokens = m;
    al.d = n;
    launch_add_ln(al, nullptr);
    const auto rounded = round16<TypeParam>(sum);
    std::vector<float> x1(sum.size()), lref(sum.size());
    for (size_t i = 0; i < x1.size(); ++i) x1[i] = x0[i] + rounded[i];
    EXPECT_EQ(dx.down(), x1);
    cpu::layer_norm(x1.data(), m, n, lw.data(), nullptr, 1e-5f, lref.data());
    const auto dd = compare(dn.down(), lref);
    EXPECT_TRUE(dd.finite && dd.nrms < 1e-5) << dd.nrms;
  }
  // K that does not split into multiples of 8 is refused before any launch.
  Dev<TypeParam> x(64);
  Dev<float> o(64);
  EXPECT_THROW(gemm.run_partials(x.get(), x.get(), o.get(), 1, 8, 24, 2, nullptr), Error);
}

// The add+LN over 1..4 fp32 partials, with and without the GEMM's bias: x gains T(((p0 + p1) + p2)
// + p3 (+ bias)) bitwise (the parts in order, the bias last, one rounding), and the LayerNorm of
// that; more than kMaxAddParts parts, or a bias without parts, are refused.
TYPED_TEST(CudaKernelsTyped, AddLayerNormSumsPartialsAndTheirBias) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(41);
  const int32_t m = 5, d = 192;
  const size_t n = static_cast<size_t>(m) * d;
  const auto all = randn(rng, kMaxAddParts * n, 3.f);
  const auto bias = round16<TypeParam>(randn(rng, static_cast<size_t>(d), 0.5f));
  const auto lw = randn(rng, static_cast<size_t>(d), 0.1f, 1.f);
  Dev<float> dparts(all), dlw(lw);
  Dev<TypeParam> dbias(to16<TypeParam>(bias));
  for (int32_t parts = 1; parts <= kMaxAddParts; ++parts)
    for (const bool with_bias : {false, true}) {
      SCOPED_TRACE(testing::Message() << parts << " parts, bias " << with_bias);
      const auto x0 = randn(rng, n, 2.f);
      Dev<float> dx(x0), dn(n);
      AddLnParams<TypeParam> al;
      al.x = dx.get();
      al.add_parts = dparts.get();
      al.parts = parts;
      al.parts_bias = with_bias ? dbias.get() : nullptr;
      al.weight = dlw.get();
      al.norm_out = dn.get();
      al.tokens = m;
      al.d = d;
      launch_add_ln(al, nullptr);
      std::vector<float> sum(n), x1(n), lref(n);
      for (size_t i = 0; i < n; ++i) {
        float v = all[i];
        for (int32_t s = 1; s < parts; ++s) v += all[static_cast<size_t>(s) * n + i];
        if (with_bias) v += bias[i % d];
        sum[i] = v;
      }
      const auto rounded = round16<TypeParam>(sum);
      for (size_t i = 0; i < n; ++i) x1[i] = x0[i] + rounded[i];
      EXPECT_EQ(dx.down(), x1);
      cpu::layer_norm(x1.data(), m, d, lw.data(), nullptr, 1e-5f, lref.data());
      const auto dd = compare(dn.down(), lref);
      EXPECT_TRUE(dd.finite && dd.nrms < 1e-5) << dd.nrms;
    }
  Dev<float> dx(n);
  AddLnParams<TypeParam> bad;
  bad.x = dx.get();
  bad.add_parts = dparts.get();
  bad.parts = kMaxAddParts + 1;
  bad.tokens = m;
  bad.d = d;
  EXPECT_THROW(launch_add_ln(bad, nullptr), Error) << "too many parts";
  bad.add_parts = nullptr;
  bad.parts = 0;
  bad.parts_bias = dbias.get();
  EXPECT_THROW(launch_add_ln(bad, nullptr), Error) << "a bias without parts";
}

TYPED_TEST(CudaKernelsTyped, SmallLinearAndFeaturesMatchReference) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(23);
  // k = 1028 (the act head's d + 4): 257 groups of 4 elements over an output's 128 threads (one
  // thread takes three); 2052: 513 groups (one takes five); 1027: the element-wise fallback (k not a
  // multiple of 4).
  for (const int32_t k : {1028, 2052, 1027}) {
    SCOPED_TRACE(k);
    const int32_t rows = 5, n = 256;
    const auto a = round16<TypeParam>(randn(rng, static_cast<size_t>(rows) * k));
    const auto w = round16<TypeParam>(randn(rng, static_cast<size_t>(n) * k, 0.05f));
    const auto b = round16<TypeParam>(randn(rng, static_cast<size_t>(n), 0.1f));
    Dev<TypeParam> da(to16<TypeParam>(a)), dw(to16<TypeParam>(w)), db(to16<TypeParam>(b)),
        dout(static_cast<size_t>(rows) * n);
    Dev<float> df(static_cast<size_t>(rows) * n);
    SmallLinearParams<TypeParam> p;
    p.in = da.get();
    p.w = dw.get();
    p.bias = db.get();
    p.out = dout.get();
    p.out_f32 = df.get();
    p.rows = rows;
    p.n = n;
    p.k = k;
    p.ld_in = k;
    p.gelu = true;
    launch_small_linear(p, nullptr);
    std::vector<float> ref(static_cast<size_t>(rows) * n);
    cpu::linear(a.data(), rows, k, w.data(), b.data(), n, ref.data());
    cpu::gelu_erf(ref.data(), static_cast<int64_t>(ref.size()));
    expect_close(df.down(), ref, "small_linear");
    EXPECT_EQ(from16(dout.down()), df.down());
    // GELU on the inputs as they are read (the scorer's form) equals launch_gelu, then the linear.
    p.gelu = false;
    p.gelu_in = true;
    launch_small_linear(p, nullptr);
    const auto fused = df.down();
    launch_gelu(GeluParams<TypeParam>{da.get(), static_cast<int64_t>(rows) * k}, nullptr);
    p.gelu_in = false;
    launch_small_linear(p, nullptr);
    EXPECT_EQ(fused, df.down());
  }

  // features: rows with 1, 3, 0 and 45 markers (two chunks of the warp's loads); the CLS state of
  // each row
  const int32_t d = 128;
  const std::vector<int32_t> mo{0, 1, 4, 4, 49}, ro{0, 3, 9, 9, 12};
  const auto logits = round16<TypeParam>(randn(rng, 51, 2.f));  // 49 real + 2 padding markers
  const auto h = randn(rng, static_cast<size_t>(12) * d, 5.f);
  Dev<TypeParam> dl(to16<TypeParam>(logits)), dact(static_cast<size_t>(4) * (d + 4));
  Dev<int32_t> dmo(mo), dro(ro);
  Dev<float> dh(h), dlo(51);
  FeaturesParams<TypeParam> fp;
  fp.logits = dl.get();
  fp.marker_offsets = dmo.get();
  fp.row_offsets = dro.get();
  fp.h = dh.get();
  fp.act_in = dact.get();
  fp.logits_out = dlo.get();
  fp.row_slots = 4;
  fp.markers_pad = 51;
  fp.d = d;
  launch_features(fp, nullptr);
  EXPECT_EQ(dlo.down(), logits);
  const auto act = from16(dact.down());
  for (const int32_t r : {0, 1, 3}) {
    const auto f = cpu::act_features(std::span<const float>(logits.data() + mo[r], static_cast<size_t>(mo[r + 1] - mo[r])));
    for (int i = 0; i < 4; ++i)
      EXPECT_NEAR(act[static_cast<size_t>(r * (d + 4) + d + i)], f[static_cast<size_t>(i)], 4e-3) << r << " " << i;
    for (int32_t e = 0; e < d; ++e)
      ASSERT_NEAR(act[static_cast<size_t>(r * (d + 4) + e)], h[static_cast<size_t>(ro[r] * d + e)],
                  std::fabs(h[static_cast<size_t>(ro[r] * d + e)]) * 4e-3);
  }
  for (int32_t e = 0; e < d + 4; ++e) EXPECT_EQ(act[static_cast<size_t>(2 * (d + 4) + e)], 0.f);  // empty row
}

// The pruned last decision layer's row moves: gather copies the listed rows (zeros for -1), scatter
// writes them back to the listed tokens and leaves every other row alone.
TYPED_TEST(CudaKernelsTyped, GatherAndScatterRowsMoveTheListedRows) {
  LAYA_REQUIRE_GPU();
  std::mt19937 rng(31);
  const int32_t tokens = 37, d = 1024;
  const std::vector<int32_t> index{0, 36, -1, 5, -1, 17, 4};
  const auto n = static_cast<int32_t>(index.size());
  const auto x = randn(rng, static_cast<size_t>(tokens) * d, 3.f);
  const auto a = round16<TypeParam>(randn(rng, static_cast<size_t>(tokens) * d));
  Dev<int32_t> di(index);
  Dev<float> dx(x), dxc(std::vector<float>(static_cast<size_t>(n) * d, 7.f));
  Dev<TypeParam> da(to16<TypeParam>(a)), dac(to16<TypeParam>(std::vector<float>(static_cast<size_t>(n) * d, 7.f)));
  GatherRowsParams<TypeParam> g;
  g.index = di.get();
  g.x = dx.get();
  g.a = da.get();
  g.x_out = dxc.get();
  g.a_out = dac.get();
  g.rows = n;
  g.d = d;
  launch_gather_rows(g, nullptr);
  const auto xc = dxc.down();
  const auto ac = from16(dac.down());
  for (int32_t i = 0; i < n; ++i)
    for (int32_t e = 0; e < d; ++e) {
      const size_t at = static_cast<size_t>(i) * d + static_cast<size_t>(e);
      const int32_t t = index[static_cast<size_t>(i)];
      const size_t src = static_cast<size_t>(t) * d + static_cast<size_t>(e);
      ASSERT_EQ(xc[at], t < 0 ? 0.f : x[src]) << i << " " << e;
      ASSERT_EQ(ac[at], t < 0 ? 0.f : a[src]) << i << " " << e;
    }

  // scatter new values back: listed tokens take them, the others keep x
  const auto fresh = randn(rng, static_cast<size_t>(n) * d);
  Dev<float> dfresh(fresh);
  ScatterRowsParams sc;
  sc.index = di.get();
  sc.x_in = dfresh.get();
  sc.x = dx.get();
  sc.rows = n;
  sc.d = d;
  launch_scatter_rows(sc, nullptr);
  const auto got = dx.down();
  std::vector<float> want = x;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t t = index[static_cast<size_t>(i)];
    if (t >= 0)
      std::copy_n(fresh.begin() + static_cast<std::ptrdiff_t>(i) * d, d, want.begin() + static_cast<std::ptrdiff_t>(t) * d);
  }
  EXPECT_EQ(got, want);
}

// The staging block's copy by a kernel reading pinned host memory over the bus: every word of
// every count (whole 16-byte chunks, a tail of 1-3 words, and a source 4 bytes off alignment, which
// takes the word path) arrives, and nothing past the count is written (guard words keep their
// poison).
TEST(CudaKernels, CopyFromHostCopiesEveryWordAndNothingElse) {
  LAYA_REQUIRE_GPU();
  constexpr int64_t kMax = 70001, kGuard = 8;
  int32_t* host = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&host), (kMax + 1) * 4), cudaSuccess);
  for (int64_t i = 0; i <= kMax; ++i) host[i] = static_cast<int32_t>(i * 2654435761u);
  int32_t* host_dev = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void**>(&host_dev), host, 0), cudaSuccess);
  for (const int64_t offset : {0, 1})
    for (const int64_t n : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{5}, int64_t{1023}, int64_t{1024}, kMax - 1}) {
      Dev<int32_t> dst(static_cast<size_t>(n + kGuard));  // poisoned: -1 everywhere
      launch_copy_from_host(host_dev + offset, dst.get(), n, nullptr);
      const auto got = dst.down();
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) wrong += got[static_cast<size_t>(i)] != host[offset + i];
      EXPECT_EQ(wrong, 0) << n << " words from offset " << offset;
      for (int64_t i = n; i < n + kGuard; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], -1) << "guard word " << i - n;
    }
  EXPECT_THROW(launch_copy_from_host(nullptr, nullptr, 4, nullptr), Error);
  cudaFreeHost(host);
}

// graph_memsets.h on a captured graph of stand-ins: a "GEMM call" is a memset of its workspace
// counter, a kernel that reads the counter and one that leaves it non-zero (as cuBLASLt's memset and
// persistent kernel do). A call's memset after an own kernel becomes the fill kernel behind a
// programmatic edge from that kernel; one right after another call's node, or outside the
// workspace, stays a memset; every read still sees 0.
TEST(CudaGraphEdit, GemmMemsetsBecomeKernelsAfterTheOwnKernelBefore) {
  LAYA_REQUIRE_GPU();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  Dev<int32_t> ws(4), out(4), junk(4), src(std::vector<int32_t>{5, 9});
  GemmCaptureLog log;
  auto call = [&](int slot) {
    CaptureCallLog entry(&log, s);
    ASSERT_EQ(cudaMemsetAsync(ws.get(), 0, 4, s), cudaSuccess);
    launch_copy_from_host(ws.get(), out.get() + slot, 1, s);
    launch_copy_from_host(src.get(), ws.get(), 1, s);
    entry.finish();
  };
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  try {  // own kernels launch with programmatic edges after each other (pdl.h): the log copes with them
    launch_copy_from_host(src.get() + 1, junk.get(), 1, s);      // own kernel A
    call(0);                                                     // its memset: replaced
    launch_copy_from_host(src.get() + 1, junk.get() + 1, 1, s);  // own kernel K
    call(1);                                                     // replaced
    call(2);                                                     // after call 1's node: stays
  } catch (const std::exception& ex) {
    cudaStreamEndCapture(s, &graph);  // never leave this thread capturing (later tests allocate)
    FAIL() << ex.what();
  }
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  // log.added lists each call's nodes from its last back to its first: call c's are [3c, 3c + 3).
  ASSERT_EQ(log.added.size(), 9u);
  ASSERT_EQ(log.before.size(), 3u);
  auto node = [&](int c, int i) { return log.added[static_cast<size_t>(3 * c + 2 - i)]; };  // i: 0 first
  EXPECT_EQ(replace_gemm_memsets(graph, log, out.get(), 16), 0);  // the memsets are not in that range
  const cudaGraphNode_t a = [&] {
    size_t k = 1;
    cudaGraphNode_t d = nullptr;
    cudaGraphEdgeData e{};
    EXPECT_EQ(cudaGraphNodeGetDependencies(node(0, 0), &d, &e, &k), cudaSuccess);
    return d;
  }();
  EXPECT_EQ(replace_gemm_memsets(graph, log, ws.get(), 16), 2);
  // The read of each call now depends on one node: for calls 0 and 1 a kernel behind a
  // programmatic edge from the own kernel before the call, for call 2 its memset.
  auto only_dependency = [](cudaGraphNode_t n, cudaGraphEdgeData* e) {
    size_t k = 0;
    EXPECT_EQ(cudaGraphNodeGetDependencies(n, nullptr, nullptr, &k), cudaSuccess);
    EXPECT_EQ(k, 1u);
    cudaGraphNode_t d = nullptr;
    k = 1;
    EXPECT_EQ(cudaGraphNodeGetDependencies(n, &d, e, &k), cudaSuccess);
    return d;
  };
  auto type = [](cudaGraphNode_t n) {
    cudaGraphNodeType t{};
    EXPECT_EQ(cudaGraphNodeGetType(n, &t), cudaSuccess);
    return t;
  };
  cudaGraphEdgeData e{};
  for (int c = 0; c < 2; ++c) {
    const cudaGraphNode_t z = only_dependency(node(c, 1), &e);
    EXPECT_EQ(type(z), cudaGraphNodeTypeKernel) << "call " << c;
    EXPECT_EQ(e.type, cudaGraphDependencyTypeDefault) << "call " << c << ": stand-in -> read";
    const cudaGraphNode_t before = only_dependency(z, &e);
    EXPECT_EQ(before, c == 0 ? a : log.before[1]) << "call " << c;
    EXPECT_EQ(e.type, cudaGraphDependencyTypeProgrammatic) << "call " << c << ": own kernel -> stand-in";
  }
  EXPECT_EQ(type(node(2, 0)), cudaGraphNodeTypeMemset);
  EXPECT_EQ(only_dependency(node(2, 0), &e), node(1, 2)) << "call 2's memset: after call 1's last node";
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  const auto got = out.down();
  for (int c = 0; c < 3; ++c) EXPECT_EQ(got[static_cast<size_t>(c)], 0) << "call " << c << " read its counter";
  EXPECT_EQ(ws.down()[0], 5);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

// Own edges (pdl.h): outside a PdlScope an own kernel launches programmatically only right after
// another own kernel on the engine's stream. A cuBLASLt GEMM clears the mark (edges out of nvjet
// cost at 192-512 tokens, docs/benchmarks/cuda.md items 107, 111), a launch on the legacy stream never
// sets it, and a scope chains every launch.
TEST(CudaKernels, ProgrammaticEdgesFollowOwnKernelsOnly) {
  LAYA_REQUIRE_GPU();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  Dev<uint8_t> ws(kGemmWorkspace);
  Gemm gemm(ws.get(), kGemmWorkspace);
  std::mt19937 rng(41);
  const auto a = round16<__nv_bfloat16>(randn(rng, 64 * 128));
  const auto w = round16<__nv_bfloat16>(randn(rng, 256 * 128, 0.05f));
  Dev<__nv_bfloat16> da(to16<__nv_bfloat16>(a)), dw(to16<__nv_bfloat16>(w)), dc(64 * 256);
  const GemmArgs<__nv_bfloat16> g{da.get(), dw.get(), nullptr, dc.get(), 64, 256, 128, false};
  // The experiment switches (the GPU suites run this binary under them): LAYA_CUDA_PDL=1 chains
  // every launch, LAYA_CUDA_PDL_OWN_EDGES=0 no own edge; the mark itself behaves the same.
  const bool every = pdl_from_env(), own_edges = every || pdl_own_edges_from_env();

  pdl_last_launch_own() = true;
  gemm.run(g, s);
  EXPECT_FALSE(pdl_last_launch_own()) << "a cuBLASLt launch clears the mark";
  EXPECT_EQ(pdl_for_next_launch(), every);
  launch_gelu(GeluParams<__nv_bfloat16>{dc.get(), 64 * 256}, s);  // after the GEMM: a plain edge
  EXPECT_TRUE(pdl_last_launch_own());
  EXPECT_EQ(pdl_for_next_launch(), own_edges);
  Dev<__nv_bfloat16> other(256);  // the legacy stream does not order with s: its own buffer
  launch_gelu(GeluParams<__nv_bfloat16>{other.get(), 256}, nullptr);  // the legacy stream: never
  EXPECT_FALSE(pdl_last_launch_own());
  gemm.run(g, s);  // dc = x . W^T again
  {
    const PdlScope scope(true);
    EXPECT_TRUE(pdl_for_next_launch()) << "a scope chains the launch after a GEMM too";
    launch_gelu(GeluParams<__nv_bfloat16>{dc.get(), 64 * 256}, s);
  }
  EXPECT_EQ(pdl_for_next_launch(), own_edges);
  launch_gelu(GeluParams<__nv_bfloat16>{dc.get(), 64 * 256}, s);  // an own edge (where on)
  // The last three launches on s, programmatic or not, computed GELU(GELU(x . W^T)) in order.
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  std::vector<float> ref(64 * 256);
  cpu::linear(a.data(), 64, 128, w.data(), nullptr, 256, ref.data());
  ref = round_bf16(ref);
  cpu::gelu_erf(ref.data(), static_cast<int64_t>(ref.size()));
  ref = round_bf16(ref);
  cpu::gelu_erf(ref.data(), static_cast<int64_t>(ref.size()));
  expect_close(from16(dc.down()), ref, "gemm then gelu twice");
  cudaStreamDestroy(s);
}

TEST(CudaKernels, LaunchersRejectBadShapes) {
  AttentionParams<__nv_bfloat16> p;  // null pointers
  EXPECT_THROW(launch_attention(p, nullptr), Error);
  AddLnParams<__half> a;
  a.d = 100;  // not a multiple of 64
  EXPECT_THROW(launch_add_ln(a, nullptr), Error);
  GegluParams<__half> g;
  EXPECT_THROW(launch_geglu(g, nullptr), Error);
  GegluParams<__half> one_row;  // valid; the prefetch plans below are not (refused before any launch)
  one_row.up = one_row.out = reinterpret_cast<__half*>(uintptr_t{256});
  one_row.rows = 1;
  one_row.inter = 8;
  L2Prefetch ahead;
  ahead.add(one_row.up, 2, 2, 256);
  ahead.spans[0].stride = 128;  // rows overlap: two lines a row, one line apart
  EXPECT_THROW(launch_geglu(one_row, nullptr, ahead), Error) << "a span's rows overlap";
  ahead.spans[0].stride = 256;
  ahead.end[0] = 5;
  EXPECT_THROW(launch_geglu(one_row, nullptr, ahead), Error) << "a plan whose line count is off";
}

}  // namespace
}  // namespace laya::cuda
