#include "backends/cpu/ops.h"

#include <cblas.h>
#include <omp.h>

#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "laya/errors.h"

// Hot loops are compiled for AVX-512 / AVX2 as well as the baseline and picked at run time, so the
// binary stays portable while using the CPU it runs on. The loops are written as element-wise
// axpy forms (no reductions across lanes), so the compiler vectorises them without reassociating
// anything: results are identical on every clone. Not under the sanitizers: their instrumented
// ifunc resolvers run while the dynamic loader relocates, before the runtime is set up (TSan: a
// segfault at start-up).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define LAYA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LAYA_CLONES
#endif

namespace {
// Runs from the executable's .preinit_array, before any shared library's constructor. OpenBLAS and
// libgomp read their settings from the environment when they are loaded, and glibc re-installs the
// original environment after this point, so the only way to give them different settings is to
// re-execute the program once with them added (values the user set are always kept):
// - OpenBLAS 0.3.21 (Debian 12) does not know recent Xeons (e.g. Sapphire Rapids) and falls back
//   to its SSE3 "Prescott" kernels, ~10x slower; name the matching AVX-512 / AVX2 kernel family.
// - OpenMP workers sleep instead of spinning between parallel regions: on a 2-core machine a
//   spinning worker steals the core OpenBLAS's threads need for the next GEMM.
// LAYA_NO_REEXEC=1 disables this (the program then runs with whatever the environment says).
void laya_cpu_preinit(int, char** argv, char** envp) {
  if (argv == nullptr || envp == nullptr) return;
  const char* coretype = nullptr;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq")) {
    coretype = "OPENBLAS_CORETYPE=SkylakeX";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    coretype = "OPENBLAS_CORETYPE=Haswell";
  }
  bool has_core = false, has_wait = false, no_reexec = false;
  int n = 0;
  for (char** e = envp; *e != nullptr; ++e, ++n) {
    has_core = has_core || std::strncmp(*e, "OPENBLAS_CORETYPE=", 18) == 0;
    has_wait = has_wait || std::strncmp(*e, "OMP_WAIT_POLICY=", 16) == 0;
    no_reexec = no_reexec || std::strncmp(*e, "LAYA_NO_REEXEC=", 15) == 0;
  }
  const bool add_core = !has_core && coretype != nullptr;
  if (no_reexec || (has_wait && !add_core)) return;
  static char wait_policy[] = "OMP_WAIT_POLICY=PASSIVE";
  static char marker[] = "LAYA_NO_REEXEC=1";  // never loop, whatever happens below
  std::vector<char*> env(envp, envp + n);
  if (add_core) env.push_back(const_cast<char*>(coretype));
  if (!has_wait) env.push_back(wait_policy);
  env.push_back(marker);
  env.push_back(nullptr);
  ::execve("/proc/self/exe", argv, env.data());
  // exec failed (no /proc, ...): carry on with the environment as it is
}
#if defined(__linux__) && defined(__GNUC__)
__attribute__((section(".preinit_array"), used)) void (*const laya_cpu_preinit_entry)(int, char**, char**) =
    &laya_cpu_preinit;
#endif
}  // namespace

namespace laya::cpu {

namespace {
int g_threads = 0;

int hw_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// Parallelise only when the work amortises the fork (roughly 64k multiply-adds).
constexpr int64_t kParallelWork = 1 << 16;

LAYA_CLONES void axpy(float* __restrict y, const float* __restrict x, float a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

LAYA_CLONES void scale_row(float* __restrict y, float a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] *= a;
}
}  // namespace

void set_threads(int n) {
  g_threads = n > 0 ? n : hw_threads();
  omp_set_num_threads(g_threads);
  openblas_set_num_threads(g_threads);
}

int threads() { return g_threads > 0 ? g_threads : hw_threads(); }

void layer_norm(const float* x, int64_t rows, int64_t d, const float* weight, const float* bias,
                float eps, float* y, int64_t ld_x, int64_t ld_y) {
  LAYA_ASSERT(d > 0 && weight != nullptr, "layer_norm: bad arguments");
  if (ld_x == 0) ld_x = d;
  if (ld_y == 0) ld_y = d;
#pragma omp parallel for schedule(static) if (rows * d >= kParallelWork)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ld_x;
    float* yr = y + r * ld_y;
    double sum = 0.0;
    for (int64_t i = 0; i < d; ++i) sum += xr[i];
    const double mean = sum / static_cast<double>(d);
    double sq = 0.0;
    for (int64_t i = 0; i < d; ++i) {
      const double c = xr[i] - mean;
      sq += c * c;
    }
    const double var = sq / static_cast<double>(d);
    const double rstd = 1.0 / std::sqrt(var + static_cast<double>(eps));
    const float meanf = static_cast<float>(mean);
    const float rstdf = static_cast<float>(rstd);
    if (bias != nullptr) {
      for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - meanf) * rstdf * weight[i] + bias[i];
    } else {
      for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - meanf) * rstdf * weight[i];
    }
  }
}

void linear(const float* x, int64_t rows, int64_t in, const float* w, const float* bias, int64_t out,
            float* y, bool accumulate, int64_t ld_x, int64_t ld_y) {
  if (rows == 0 || out == 0) return;
  LAYA_ASSERT(in > 0 && x != nullptr && w != nullptr && y != nullptr, "linear: bad arguments");
  if (ld_x == 0) ld_x = in;
  if (ld_y == 0) ld_y = out;
  float beta = accumulate ? 1.0f : 0.0f;
  if (bias != nullptr && !accumulate) {
    // Seed y with the bias and accumulate the product into it: one pass over y instead of two.
    for (int64_t r = 0; r < rows; ++r) std::copy(bias, bias + out, y + r * ld_y);
    beta = 1.0f;
  } else if (bias != nullptr) {
    for (int64_t r = 0; r < rows; ++r) {
      float* yr = y + r * ld_y;
      for (int64_t j = 0; j < out; ++j) yr[j] += bias[j];
    }
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows),
              static_cast<blasint>(out), static_cast<blasint>(in), 1.0f, x, static_cast<blasint>(ld_x), w,
              static_cast<blasint>(in), beta, y, static_cast<blasint>(ld_y));
}

RopeTable make_rope_table(double theta, int32_t max_pos, int32_t head_dim) {
  LAYA_ASSERT(head_dim > 0 && head_dim % 2 == 0 && max_pos >= 0, "make_rope_table: bad arguments");
  RopeTable t;
  t.head_dim = head_dim;
  t.max_pos = max_pos;
  t.theta = theta;
  const int32_t half = head_dim / 2;
  std::vector<float> inv_freq(static_cast<size_t>(half));
  const float base = static_cast<float>(theta);
  for (int32_t j = 0; j < half; ++j) {
    // torch: arange(0, dim, 2, dtype=float) / dim  -> exact; base ** e in fp32; 1.0 / . in fp32
    const float e = static_cast<float>(2 * j) / static_cast<float>(head_dim);
    inv_freq[static_cast<size_t>(j)] = 1.0f / std::pow(base, e);
  }
  t.cos.resize(static_cast<size_t>(max_pos) * static_cast<size_t>(head_dim));
  t.sin.resize(t.cos.size());
  for (int32_t p = 0; p < max_pos; ++p) {
    float* c = t.cos.data() + static_cast<size_t>(p) * static_cast<size_t>(head_dim);
    float* s = t.sin.data() + static_cast<size_t>(p) * static_cast<size_t>(head_dim);
    for (int32_t j = 0; j < half; ++j) {
      const float f = static_cast<float>(p) * inv_freq[static_cast<size_t>(j)];
      c[j] = c[j + half] = std::cos(f);
      s[j] = s[j + half] = std::sin(f);
    }
  }
  return t;
}

void rope_rotate_half(float* x, int64_t len, int64_t ld, int32_t heads, const RopeTable& table) {
  LAYA_ASSERT(len <= table.max_pos, "rope_rotate_half: row of {} tokens exceeds the table ({})", len,
              table.max_pos);
  const int32_t hd = table.head_dim;
  const int32_t half = hd / 2;
#pragma omp parallel for schedule(static) if (len * heads * hd >= kParallelWork)
  for (int64_t p = 0; p < len; ++p) {
    const float* c = table.cos.data() + p * hd;
    const float* s = table.sin.data() + p * hd;
    for (int32_t h = 0; h < heads; ++h) {
      float* v = x + p * ld + static_cast<int64_t>(h) * hd;
      for (int32_t j = 0; j < half; ++j) {
        const float x1 = v[j];
        const float x2 = v[j + half];
        v[j] = x1 * c[j] + (-x2) * s[j];
        v[j + half] = x2 * c[j + half] + x1 * s[j + half];
      }
    }
  }
}

namespace {
// One (row, head) of attention: scores via a transposed key block (axpy over keys), softmax per
// query, then out_i = Σ_j p_j v_j (axpy over the head dimension).
void attention_one(const AttentionParams& p, int64_t start, int64_t len, int32_t h, std::vector<float>& kt,
                   std::vector<float>& s) {
  const int32_t hd = p.head_dim;
  const float* q = p.q + start * p.ld_q + static_cast<int64_t>(h) * hd;
  const float* k = p.k + start * p.ld_k + static_cast<int64_t>(h) * hd;
  const float* v = p.v + start * p.ld_v + static_cast<int64_t>(h) * hd;
  float* out = p.out + start * p.ld_out + static_cast<int64_t>(h) * hd;
  kt.resize(static_cast<size_t>(hd) * static_cast<size_t>(len));
  s.resize(static_cast<size_t>(len));
  for (int64_t j = 0; j < len; ++j)
    for (int32_t e = 0; e < hd; ++e) kt[static_cast<size_t>(e * len + j)] = k[j * p.ld_k + e];
  const bool local = p.window_half >= 0;
  for (int64_t i = 0; i < len; ++i) {
    const int64_t j0 = local ? std::max<int64_t>(0, i - p.window_half) : 0;
    const int64_t j1 = local ? std::min<int64_t>(len, i + p.window_half + 1) : len;
    const int64_t n = j1 - j0;
    float* si = s.data();
    std::fill(si, si + n, 0.0f);
    const float* qi = q + i * p.ld_q;
    for (int32_t e = 0; e < hd; ++e) axpy(si, kt.data() + static_cast<int64_t>(e) * len + j0, qi[e], n);
    float mx = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < n; ++j) {
      si[j] *= p.scale;
      mx = std::max(mx, si[j]);
    }
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      si[j] = std::exp(si[j] - mx);
      sum += si[j];
    }
    const float inv = static_cast<float>(1.0 / sum);
    float* oi = out + i * p.ld_out;
    std::fill(oi, oi + hd, 0.0f);
    for (int64_t j = 0; j < n; ++j) axpy(oi, v + (j0 + j) * p.ld_v, si[j], hd);
    scale_row(oi, inv, hd);
  }
}
}  // namespace

namespace {
// One (row, head) of a long row with single-threaded sgemm over query blocks of 64: S = scale·Q·Kᵀ
// on the keys the block can see (the band's hull on local layers), mask outside the band, softmax,
// O = P·V.
constexpr int64_t kQueryBlock = 64;
constexpr int64_t kBlasMinLen = 32;

void attention_one_blas(const AttentionParams& p, int64_t start, int64_t len, int32_t h, std::vector<float>& s) {
  const int32_t hd = p.head_dim;
  const float* q = p.q + start * p.ld_q + static_cast<int64_t>(h) * hd;
  const float* k = p.k + start * p.ld_k + static_cast<int64_t>(h) * hd;
  const float* v = p.v + start * p.ld_v + static_cast<int64_t>(h) * hd;
  float* out = p.out + start * p.ld_out + static_cast<int64_t>(h) * hd;
  const bool local = p.window_half >= 0;
  for (int64_t i0 = 0; i0 < len; i0 += kQueryBlock) {
    const int64_t i1 = std::min(len, i0 + kQueryBlock);
    const int64_t nq = i1 - i0;
    const int64_t j0 = local ? std::max<int64_t>(0, i0 - p.window_half) : 0;
    const int64_t j1 = local ? std::min<int64_t>(len, i1 + p.window_half) : len;
    const int64_t nk = j1 - j0;
    s.resize(static_cast<size_t>(nq * nk));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(nq), static_cast<blasint>(nk), hd,
                1.0f, q + i0 * p.ld_q, static_cast<blasint>(p.ld_q), k + j0 * p.ld_k, static_cast<blasint>(p.ld_k),
                0.0f, s.data(), static_cast<blasint>(nk));
    for (int64_t i = i0; i < i1; ++i) {
      float* si = s.data() + (i - i0) * nk;
      // keys outside the band get probability exactly 0
      const int64_t a = local ? std::max<int64_t>(j0, i - p.window_half) - j0 : 0;
      const int64_t b = local ? std::min<int64_t>(j1, i + p.window_half + 1) - j0 : nk;
      float mx = -std::numeric_limits<float>::infinity();
      for (int64_t j = a; j < b; ++j) {
        si[j] *= p.scale;
        mx = std::max(mx, si[j]);
      }
      double sum = 0.0;
      for (int64_t j = a; j < b; ++j) {
        si[j] = std::exp(si[j] - mx);
        sum += si[j];
      }
      const float inv = static_cast<float>(1.0 / sum);
      for (int64_t j = 0; j < a; ++j) si[j] = 0.0f;
      for (int64_t j = a; j < b; ++j) si[j] *= inv;
      for (int64_t j = b; j < nk; ++j) si[j] = 0.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(nq), hd, static_cast<blasint>(nk),
                1.0f, s.data(), static_cast<blasint>(nk), v + j0 * p.ld_v, static_cast<blasint>(p.ld_v), 0.0f,
                out + i0 * p.ld_out, static_cast<blasint>(p.ld_out));
  }
}
}  // namespace

void attention(const AttentionParams& p) {
  LAYA_ASSERT(p.q && p.k && p.v && p.out && p.row_offsets && p.heads > 0 && p.head_dim > 0,
              "attention: bad arguments");
  const int64_t pairs = static_cast<int64_t>(p.rows) * p.heads;
  int64_t work = 0;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int64_t len = p.row_offsets[r + 1] - p.row_offsets[r];
    work += len * len * p.heads * p.head_dim;
  }
  const bool parallel = work >= kParallelWork && threads() > 1;
  // Each (row, head) runs its small GEMMs on one thread; the pairs are spread over the workers.
  if (parallel) openblas_set_num_threads(1);
#pragma omp parallel if (parallel)
  {
    std::vector<float> kt;
    std::vector<float> s;
#pragma omp for schedule(dynamic, 1)
    for (int64_t idx = 0; idx < pairs; ++idx) {
      const int32_t r = static_cast<int32_t>(idx / p.heads);
      const int32_t h = static_cast<int32_t>(idx % p.heads);
      const int64_t start = p.row_offsets[r];
      const int64_t len = p.row_offsets[r + 1] - start;
      if (len >= kBlasMinLen) {
        attention_one_blas(p, start, len, h, s);
      } else if (len > 0) {
        attention_one(p, start, len, h, kt, s);
      }
    }
  }
  if (parallel) openblas_set_num_threads(threads());
}

float gelu_erf(float x) {
  // torch's CPU GELU: x * 0.5 * (1 + erf(x * M_SQRT1_2)), in the tensor's dtype
  return x * 0.5f * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2)));
}

void gelu_erf(float* x, int64_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelWork)
  for (int64_t i = 0; i < n; ++i) x[i] = gelu_erf(x[i]);
}

void geglu(const float* in, int64_t rows, int64_t inter, float* out) {
#pragma omp parallel for schedule(static) if (rows * inter >= kParallelWork)
  for (int64_t r = 0; r < rows; ++r) {
    const float* a = in + r * 2 * inter;
    const float* g = a + inter;
    float* o = out + r * inter;
    for (int64_t j = 0; j < inter; ++j) o[j] = gelu_erf(a[j]) * g[j];
  }
}

void relu(float* x, int64_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelWork)
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? 0.0f : x[i];
}

void softmax(float* x, int64_t n) {
  if (n <= 0) return;
  float mx = x[0];
  for (int64_t i = 1; i < n; ++i) mx = std::max(mx, x[i]);
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - mx);
    sum += x[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

std::array<float, 4> act_features(std::span<const float> logits) {
  const int64_t n = static_cast<int64_t>(logits.size());
  LAYA_ASSERT(n >= 1, "act_features: a question has at least one option");
  std::vector<float> p(logits.begin(), logits.end());
  softmax(p.data(), n);
  const float k = static_cast<float>(std::max<int64_t>(n, 2));
  float ent = 0.0f;
  float top1 = -1.0f, top2 = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    ent += p[i] * std::log(std::max(p[i], 1e-9f));
    if (p[i] > top1) {
      top2 = top1;
      top1 = p[i];
    } else if (p[i] > top2) {
      top2 = p[i];
    }
  }
  if (n == 1) top2 = 0.0f;
  ent = -ent / std::log(k);
  return {top1, top1 - top2, ent, k / 255.0f};
}

}  // namespace laya::cpu
