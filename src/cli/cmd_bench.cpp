// laya-engine bench: in-process forward latency on synthetic rows of given shapes.
//
//   laya-engine bench --model DIR|demo [--backend cpu|cuda] [--device N] [--threads N]
//                     [--shapes 1x48,4x64,1x464,4x464,16x512] [--warmup N] [--iters N] [--json]
//
// A shape RxT is one batch of R question rows of T tokens each ([CLS], a few option markers, filler
// tokens, [SEP]; qtypes cycle choice/score/noul); T1+T2+... is one batch of rows of those lengths.
// Warm-up iterations are run and discarded, then every measured forward is timed on the host
// around the whole Backend::forward call, with the backend's device timing off, as `serve` runs
// it; where the backend has a device clock, as many forwards again with device timing on give
// Backend::last_device_ms() (the device samples). Never asserts on time.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/backend_factory.h"
#include "cli/graph_options.h"
#include "cli/command.h"
#include "laya/errors.h"

namespace laya::cli {
namespace {

constexpr int64_t kMaxBenchTokens = int64_t{1} << 24;  // a bound on what a synthetic batch allocates

// One batch: its rows' token counts and its name as given ("4x464", or "300+40+40" for rows of
// unequal lengths, as batching across requests forms them).
struct Shape {
  std::vector<int32_t> lengths;
  std::string name;
  int32_t tokens = 0;  // all rows', at most kMaxBenchTokens
};

int32_t parse_count(const std::string& text, const std::string& item) {
  size_t used = 0;
  int32_t v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::logic_error&) {
    used = 0;
  }
  LAYA_REQUIRE(used == text.size() && !text.empty(), ErrorKind::bad_request,
               "shape '{}': expected ROWSxTOKENS (e.g. 4x464) or TOKENS+TOKENS+... (e.g. 300+40+40)", item);
  return v;
}

std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    Shape s{{}, item, 0};
    if (const auto x = item.find('x'); x != std::string::npos) {
      const int32_t rows = parse_count(item.substr(0, x), item), tokens = parse_count(item.substr(x + 1), item);
      LAYA_REQUIRE(rows >= 1 && rows <= 65536, ErrorKind::bad_request, "shape '{}': need 1..65536 rows", item);
      s.lengths.assign(static_cast<size_t>(rows), tokens);
    } else {
      std::stringstream parts(item + '+');  // "8+" must end in an empty (refused) length
      std::string len;
      while (std::getline(parts, len, '+')) s.lengths.push_back(parse_count(len, item));
    }
    int64_t total = 0;
    for (const int32_t t : s.lengths) {
      LAYA_REQUIRE(t >= 2, ErrorKind::bad_request, "shape '{}': every row needs >= 2 tokens", item);
      total += t;
    }
    // The backend refuses what it cannot take; this bounds what the synthetic batch allocates.
    LAYA_REQUIRE(total <= kMaxBenchTokens, ErrorKind::bad_request, "shape '{}': {} tokens (at most {})", item, total,
                 kMaxBenchTokens);
    s.tokens = static_cast<int32_t>(total);
    out.push_back(std::move(s));
  }
  LAYA_REQUIRE(!out.empty(), ErrorKind::bad_request, "--shapes: no shape given");
  return out;
}

engine::Batch synthetic_batch(const Shape& s, const LoadedModel& m, uint32_t seed) {
  std::mt19937 rng(seed);
  const int32_t vocab = m.config().encoder.vocab_size;
  const int32_t lo = std::min(vocab - 1, 100);
  std::uniform_int_distribution<int32_t> tok(lo, std::max(lo, std::min(vocab - 1, 20000)));
  engine::Batch b;
  for (int32_t r = 0; r < static_cast<int32_t>(s.lengths.size()); ++r) {
    const int32_t tokens = s.lengths[static_cast<size_t>(r)];
    std::vector<int32_t> ids(static_cast<size_t>(tokens));
    for (auto& id : ids) id = tok(rng);
    ids.front() = m.special.cls_id >= 0 ? m.special.cls_id : ids.front();
    ids.back() = m.special.sep_id >= 0 ? m.special.sep_id : ids.back();
    const int32_t n_opts = std::clamp(2 + r % 4, 1, std::max(1, tokens - 2));
    std::vector<int32_t> markers;
    for (int32_t k = 0; k < n_opts; ++k) {
      const int32_t pos = std::min(tokens - 1, 10 + 4 * k);
      markers.push_back(pos);
      if (m.special.mask_id >= 0) ids[static_cast<size_t>(pos)] = m.special.mask_id;
    }
    b.add_row(ids, markers, r % 3);
  }
  return b;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<size_t>(pos);
  const double f = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

struct BenchArgs {
  std::string model = "demo";
  engine::BackendOptions backend;
  std::string shapes = "1x48,4x64,1x464,4x464,16x512";
  int warmup = 2;
  int iters = 10;
  bool json = false;
};

int run_bench(const BenchArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  LoadedModel m = load_model(a.model, a.backend);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto info = m.backend->info();
  if (!a.json) {
    fmt::print("model {} ({}), backend {} on {}, {}, weights {:.1f} MB, load {:.2f} s\n", m.dir.string(),
               m.checkpoint->kind(), info.backend, info.device, info.precision,
               static_cast<double>(info.weight_bytes) / 1e6, load_s);
    fmt::print("{:>8} {:>7} {:>10} {:>10} {:>10} {:>10} {:>12} {:>11}\n", "shape", "iters", "p50 ms", "p95 ms",
               "mean ms", "req/s", "tokens/s", "device p50");
  }
  for (const auto& s : parse_shapes(a.shapes)) {
    const int32_t rows = static_cast<int32_t>(s.lengths.size());
    const int32_t tokens = s.tokens;
    const bool equal_rows =
        std::adjacent_find(s.lengths.begin(), s.lengths.end(), std::not_equal_to<>()) == s.lengths.end();
    // The seed of earlier sessions' RxT batches (rows and a row's tokens), so their numbers compare.
    const int32_t seed_tokens = equal_rows ? s.lengths.front() : tokens;
    const auto batch = synthetic_batch(s, m, 1234u + static_cast<uint32_t>(rows * 7919 + seed_tokens));
    for (int i = 0; i < a.warmup; ++i) (void)m.backend->forward(batch);
    std::vector<double> host, device;
    for (int i = 0; i < a.iters; ++i) {
      const auto b = std::chrono::steady_clock::now();
      (void)m.backend->forward(batch);
      host.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b).count());
    }
    // The CUDA engine's device clock, timed apart: its event records would add to the host samples.
    if (info.backend == "cuda") {
      m.backend->set_device_timing(true);
      for (int i = 0; i < a.iters; ++i) {
        (void)m.backend->forward(batch);
        device.push_back(m.backend->last_device_ms());
      }
      m.backend->set_device_timing(false);
    }
    double mean = 0;
    for (double v : host) mean += v;
    mean /= static_cast<double>(std::max<size_t>(1, host.size()));
    const double p50 = percentile(host, 0.5), p95 = percentile(host, 0.95);
    const double rps = mean > 0 ? 1000.0 / mean : 0.0;
    const double tps = rps * tokens;
    const std::string& name = s.name;
    if (a.json) {
      nlohmann::json j{{"shape", name},        {"rows", rows},           {"total_tokens", tokens},
                       {"backend", info.backend}, {"device", info.device}, {"precision", info.precision},
                       {"warmup", a.warmup},   {"iters", a.iters},       {"p50_ms", p50},
                       {"p95_ms", p95},        {"mean_ms", mean},        {"requests_per_s", rps},
                       {"tokens_per_s", tps},  {"samples_ms", host}};
      // "tokens": a row's tokens where the rows are equal (as the official harness reports it).
      if (equal_rows)
        j["tokens"] = s.lengths.front();
      else
        j["lengths"] = s.lengths;
      if (!device.empty()) {
        j["device_p50_ms"] = percentile(device, 0.5);
        j["device_p95_ms"] = percentile(device, 0.95);
        j["device_samples_ms"] = device;
      }
      if (info.backend == "cuda") j["execution"] = a.backend.execution;
      fmt::print("{}\n", j.dump());
    } else {
      fmt::print("{:>8} {:>7} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>12.0f} {:>11}\n", name, a.iters, p50, p95, mean,
                 rps, tps, device.empty() ? std::string("-") : fmt::format("{:.3f}", percentile(device, 0.5)));
    }
    std::fflush(stdout);
  }
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  const double dev_mb = static_cast<double>(m.backend->info().device_memory_used) / 1e6;
  if (!a.json) {
    fmt::print("peak RSS {:.0f} MB\n", static_cast<double>(ru.ru_maxrss) / 1024.0);
    if (info.backend == "cuda") fmt::print("device memory in use by the engine {:.0f} MB\n", dev_mb);
  } else {
    fmt::print("{}\n", nlohmann::json{{"peak_rss_mb", static_cast<double>(ru.ru_maxrss) / 1024.0}, {"load_s", load_s},
                                      {"device_memory_mb", dev_mb}}.dump());
  }
  return 0;
}

Registration reg("bench", "Time the forward pass on synthetic rows of given shapes", [](CLI::App& sub) -> RunFn {
  auto a = std::make_shared<BenchArgs>();
  sub.add_option("--model", a->model, "checkpoint directory, or 'demo'")->required();
  sub.add_option("--backend", a->backend.backend, "cpu | cuda")->capture_default_str();
  sub.add_option("--device", a->backend.device, "GPU index (cuda)")->capture_default_str();
  sub.add_option("--threads", a->backend.threads, "CPU threads (0 = all cores)")->capture_default_str();
  sub.add_option("--shapes", a->shapes, "comma-separated ROWSxTOKENS or TOKENS+TOKENS+... (rows of unequal lengths)")->capture_default_str();
  sub.add_option("--warmup", a->warmup, "discarded iterations per shape")->capture_default_str()->check(CLI::NonNegativeNumber);
  sub.add_option("--iters", a->iters, "measured iterations per shape")->capture_default_str()->check(CLI::PositiveNumber);
  sub.add_flag("--json", a->json, "one JSON object per shape");
  sub.add_option("--execution", a->backend.execution, "cuda: eager | graph")->capture_default_str();
  sub.add_option("--precision", a->backend.precision, "cuda: auto (the checkpoint's amp_dtype) | bf16 | fp16")
      ->capture_default_str();
  sub.add_option("--max-rows", a->backend.max_rows, "cuda: rows one forward takes")->capture_default_str();
  sub.add_option("--max-tokens", a->backend.max_tokens,
                 "cuda: tokens one forward takes (0: 16 rows of max_len; lower only: at least one row and 1024)")
      ->capture_default_str();
  sub.add_option("--warmup-shapes", a->backend.warmup_shapes,
                 "cuda: start-up warm-up before the load time is taken: auto (one forward per bucket size) or shapes")
      ->capture_default_str();
  // bench measures the graph path at every shape it is given (serve bounds it at 4,096 tokens).
  a->backend.graph_max_tokens = 0;
  add_graph_cache_options(sub, a->backend, /*with_env=*/false);
  return [a] { return run_bench(*a); };
});

}  // namespace
}  // namespace laya::cli
