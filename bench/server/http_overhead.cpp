// HTTP overhead of `laya-engine serve` over the in-process engine, and throughput by concurrency.
//
//   laya_bench_http [--model DIR|demo] [--backend cpu|cuda] [--threads N] [--requests N]
//                   [--concurrency 1,8,64] [--seconds S] [--null-backend 1]
//                   [--null-backend-us 0,300,1000] [--null-wait spin|sleep]
//                   [--busy-poll-us N] [--io-threads N] [--max-batch-rows N] [--warmup-shapes auto]
//                   [--graph-cache-shapes N] [--graph-admit-after N]
//                   [--graph-max-tokens N] [--mix 1|short] [--open-loop RATE,RATE] [--connections N]
//
// 1. In-process: ModelPipeline::prepare + Backend::forward + render for a small request, timed
//    N times on one thread (what `decide` does per line).
// 2. The same request over loopback HTTP/1.1 keep-alive to an in-process HttpServer + Scheduler
//    with the same backend, one client: the difference of the medians is the HTTP + runtime overhead.
// 3. Closed-loop clients at each concurrency (one keep-alive connection each) for S seconds:
//    requests/s, p50 and p99, mean requests per forward.
// --null-backend-us LIST replaces the model by a null backend whose forward takes N us (spinning
// like cudaStreamSynchronize under the default scheduling policy, or sleeping like a blocking
// synchronisation) and repeats 1. and 2. for each N, to see whether the overhead depends on how
// long the executor is busy; 3. then runs with the last N.
// --busy-poll-us N: the server's and executor's busy polling (serve --busy-poll-us; default here 0,
// i.e. off, whatever the backend), --io-poll-us / --executor-poll-us: one side only;
// --io-threads N: the server's I/O threads (default 2, as serve); --max-batch-rows N: rows per
// forward (default 64, as serve; the CUDA engine is sized for them, as serve does);
// --warmup-shapes: the CUDA engine's start-up warm-up (default none here; serve's is auto);
// --graph-cache-shapes N: the CUDA engine's graph cache budget in shapes (default 64, as serve);
// --graph-admit-after N: its admission (a shape is captured at its Nth miss; default as serve);
// --graph-max-tokens N: buckets of more tokens run without a graph (default as serve).
// --mix 1: in 3., each client cycles through 12 requests of 1-4 questions over states of 10-400
// words (mixed traffic: batches of many shapes) instead of repeating the small request;
// --mix short: the 6 of them over 10-60 words (batches of many shapes, mostly under 4,096 tokens).
// After each closed-loop row: what the backend counted meanwhile (graph replays, captures,
// evictions, eager forwards, capture time), the process's resident memory, and the executor's cycle:
// forward (the backend's, packing excluded), packing the requests into one batch, and the gap
// between two forwards (handing out the results, forming the next batch, waiting for work).
// 4. --open-loop RATES: requests arrive at each rate (requests/s, Poisson) for S seconds over
//    --connections N keep-alive connections (default 128), each a thread with its share of the
//    rate; a request's latency counts from its scheduled arrival (a request that waits for its
//    connection waits on the clock: no coordinated omission). Offered against achieved rate, p50 /
//    p90 / p99, and the executor's cycle as in 3.
// Prints tables; never asserts on time.
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#ifdef LAYA_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif
#include "checkpoint/checkpoint.h"
#include "checkpoint/demo.h"
#include "runtime/model_pipeline.h"
#include "runtime/scheduler.h"
#include "runtime/worker_pool.h"
#include "server/http_server.h"
#include "server/metrics.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"
#include "common/log.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace http = boost::beast::http;

const char* kBody =
    R"({"state": "I was charged twice for my order. Please refund the duplicate today.", )"
    R"("questions": {"refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"}}})";

// Mixed traffic for --mix: questions x state lengths, 12 bodies (6 with short_only).
std::vector<std::string> mixed_bodies(bool short_only) {
  const char* words[] = {"the",  "customer", "reports", "that",    "invoice", "for",  "order",  "was",
                         "charged", "twice", "and",    "asks",    "about",   "a",    "refund", "today"};
  const std::vector<std::string> questions = {
      R"({"refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"}})",
      R"({"team": {"type": "choice", "instructions": "Which team should handle this?", "criteria": {"billing": "payments", "it": "servers", "sales": null}}, "urgency": {"type": "score", "instructions": "How urgent is it?", "criteria": ["low", "soon", "today", "now"]}})",
      R"({"a": {"type": "noul", "instructions": "Angry?"}, "b": {"type": "noul", "instructions": "VIP?"}, "c": {"type": "choice", "instructions": "Language?", "criteria": ["en", "de", "fr"]}, "d": {"type": "score", "instructions": "Priority", "criteria": ["low", "mid", "high"]}})"};
  std::vector<std::string> out;
  for (const int n : {10, 60, 200, 400}) {
    if (short_only && n > 60) break;
    std::string state;
    for (int i = 0; i < n; ++i) state += std::string(i ? " " : "") + words[(i * 7 + n) % 16];
    for (const auto& q : questions) out.push_back(R"({"state": ")" + state + R"(", "questions": )" + q + "}");
  }
  return out;
}

// Resident memory of this process (server and clients), MiB.
double rss_mib() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

double us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }
Clock::duration seconds_of(double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); }

// Every client's latencies in one list.
std::vector<double> merged(const std::vector<std::vector<double>>& per_client) {
  std::vector<double> all;
  for (const auto& v : per_client) all.insert(all.end(), v.begin(), v.end());
  return all;
}

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// What the executor reported per forward (on_batch), for the per-row cycle columns.
class BatchLog {
 public:
  void add(const laya::runtime::BatchStats& s) {
    std::lock_guard lock(mu_);
    if (entries_.size() < 1000000) entries_.push_back({Clock::now(), s.inference_ms, s.pack_ms, s.requests});
  }
  size_t size() const {
    std::lock_guard lock(mu_);
    return entries_.size();
  }
  // Over the forwards [from, size()): requests per forward, mean forward ms (packing excluded), mean
  // packing ms, mean gap ms between one forward's end and the next one's start.
  std::string cycle(size_t from) const {
    std::lock_guard lock(mu_);
    double req = 0, fwd = 0, pack = 0, gap = 0;
    size_t n = 0, gaps = 0;
    for (size_t i = from; i < entries_.size(); ++i, ++n) {
      req += entries_[i].requests;
      fwd += entries_[i].inference_ms - entries_[i].pack_ms;
      pack += entries_[i].pack_ms;
      if (i > from) {
        const double start_ms = std::chrono::duration<double, std::milli>(entries_[i].end - entries_[i - 1].end).count() -
                                entries_[i].inference_ms;
        gap += start_ms;
        ++gaps;
      }
    }
    if (n == 0) return fmt::format("{:>11} {:>8} {:>8} {:>8}", "-", "-", "-", "-");
    return fmt::format("{:>11.2f} {:>8.3f} {:>8.3f} {:>8.3f}", req / static_cast<double>(n), fwd / static_cast<double>(n),
                       pack / static_cast<double>(n), gaps ? gap / static_cast<double>(gaps) : 0.0);
  }

 private:
  struct Entry {
    Clock::time_point end;  // when on_batch ran: right after the forward
    double inference_ms, pack_ms;
    int32_t requests;
  };
  mutable std::mutex mu_;
  std::vector<Entry> entries_;
};

struct Client {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::socket sock{ioc};
  boost::beast::flat_buffer buf;
  http::request<http::string_body> req{http::verb::post, "/v1/systemone", 11};
  std::vector<std::string> bodies;  // cycled through by call(); empty: kBody
  size_t next = 0;
  explicit Client(uint16_t port, std::vector<std::string> cycle = {}, size_t first = 0)
      : bodies(std::move(cycle)), next(first) {
    sock.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    sock.set_option(boost::asio::ip::tcp::no_delay(true));
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    req.body() = kBody;
    req.prepare_payload();
  }
  int call() {
    if (!bodies.empty()) {
      req.body() = bodies[next++ % bodies.size()];
      req.prepare_payload();
    }
    http::write(sock, req);
    http::response<http::string_body> res;
    http::read(sock, buf, res);
    return res.result_int();
  }
};

// Answers zeros after *delay_us (0: instantly): isolates the HTTP + runtime cost from the model's.
class NullBackend : public laya::engine::Backend {
 public:
  NullBackend(const std::atomic<int64_t>* delay_us, bool sleep) : delay_us_(delay_us), sleep_(sleep) {}
  laya::engine::ForwardResult forward(const laya::engine::Batch& b, laya::engine::DumpSink*) override {
    const auto delay = std::chrono::microseconds(delay_us_->load());
    if (delay.count() > 0 && sleep_) {
      std::this_thread::sleep_for(delay);
    } else if (delay.count() > 0) {
      const auto until = Clock::now() + delay;
      while (Clock::now() < until) {
      }
    }
    laya::engine::ForwardResult r;
    r.logits.assign(static_cast<size_t>(b.total_markers()), 0.0f);
    r.act_logits.assign(static_cast<size_t>(b.rows()) * 2, 0.0f);
    return r;
  }
  laya::engine::BackendInfo info() const override { return {"null", "none", "fp32", 0, 0}; }

 private:
  const std::atomic<int64_t>* delay_us_;
  bool sleep_;
};

}  // namespace

int run(int argc, char** argv) {
  std::string model = "demo", conc = "1,8,64", backend_name = "cpu";
  int threads = 1, n = 2000, io_threads = 2, max_batch_rows = 64;
  int64_t graph_cache_shapes = laya::engine::BackendOptions{}.graph_cache_shapes;
  int64_t graph_admit_after = laya::engine::BackendOptions{}.graph_admit_after;
  int64_t graph_max_tokens = laya::engine::BackendOptions{}.graph_max_tokens;
  std::string mix;  // "" (off), "1" (all 12 requests) or "short" (6)
  std::string warmup_shapes;
  int64_t busy_poll_us = 0, io_poll_us = -1, executor_poll_us = -1;  // -1: busy_poll_us
  std::vector<double> open_rates;  // --open-loop: offered requests/s, one row each
  int connections = 128;
  bool null_backend = false, null_sleep = false;
  std::vector<int64_t> delays{0};  // null backend: forward time in us, one measurement each
  double seconds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--model") model = v;
    else if (k == "--backend") backend_name = v;
    else if (k == "--threads") threads = std::stoi(v);
    else if (k == "--requests") n = std::stoi(v);
    else if (k == "--concurrency") conc = v;
    else if (k == "--seconds") seconds = std::stod(v);
    else if (k == "--busy-poll-us") busy_poll_us = std::stoll(v);
    else if (k == "--io-poll-us") io_poll_us = std::stoll(v);
    else if (k == "--executor-poll-us") executor_poll_us = std::stoll(v);
    else if (k == "--io-threads") io_threads = std::stoi(v);
    else if (k == "--max-batch-rows") max_batch_rows = std::stoi(v);
    else if (k == "--warmup-shapes") warmup_shapes = v;
    else if (k == "--graph-cache-shapes") graph_cache_shapes = std::stoll(v);
    else if (k == "--graph-admit-after") graph_admit_after = std::stoll(v);
    else if (k == "--graph-max-tokens") graph_max_tokens = std::stoll(v);
    else if (k == "--mix" && (v == "1" || v == "short" || v == "0")) mix = v == "0" ? "" : v;
    else if (k == "--null-backend") null_backend = v == "1";
    else if (k == "--open-loop") {
      std::stringstream rs(v);
      for (std::string r; std::getline(rs, r, ',');) open_rates.push_back(std::stod(r));
    } else if (k == "--connections") connections = std::stoi(v);
    else if (k == "--null-backend-us") {
      null_backend = true;
      delays.clear();
      std::stringstream ds(v);
      for (std::string d; std::getline(ds, d, ',');) delays.push_back(std::stoll(d));
    } else if (k == "--null-wait" && (v == "spin" || v == "sleep")) null_sleep = v == "sleep";
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  for (const double r : open_rates)
    if (!(r > 0)) {
      std::fprintf(stderr, "--open-loop: rates must be positive requests/s\n");
      return 2;
    }
  if (connections < 1) {
    std::fprintf(stderr, "--connections must be at least 1\n");
    return 2;
  }
  using namespace laya;
  set_log_level("warn");
  bool demo = false;
  const auto dir = checkpoint::resolve_model_dir(model, &demo);
  auto ckpt = checkpoint::Checkpoint::open(dir);
  auto tok = tokenizer::Tokenizer::from_file(ckpt.paths().tokenizer_json);
  auto special = tokenizer::load_special_tokens(ckpt.paths().tokenizer_config, *tok);
  runtime::ModelPipeline pipeline(tok, special, ckpt.config().agent);
  engine::BackendOptions bo;
  bo.threads = threads;
  bo.max_rows = max_batch_rows;
  bo.warmup_shapes = warmup_shapes;
  bo.graph_cache_shapes = graph_cache_shapes;
  bo.graph_admit_after = graph_admit_after;
  bo.graph_max_tokens = graph_max_tokens;

  bo.backend = backend_name;
  std::atomic<int64_t> delay_us{0};
  auto make = [&]() -> std::unique_ptr<engine::Backend> {
    if (null_backend) return std::make_unique<NullBackend>(&delay_us, null_sleep);
#ifdef LAYA_WITH_CUDA
    if (backend_name == "cuda") return cuda::make_cuda_backend(ckpt, bo);
#endif
    if (backend_name != "cpu") throw std::runtime_error("backend '" + backend_name + "' is not in this build");
    return cpu::make_cpu_backend(ckpt, bo);
  };

  server::Metrics metrics;
  std::vector<double> exec_fwd;  // executor thread only
  BatchLog batch_log;
  runtime::SchedulerOptions so;
  if (io_poll_us < 0) io_poll_us = busy_poll_us;
  if (executor_poll_us < 0) executor_poll_us = busy_poll_us;
  so.idle_poll = std::chrono::microseconds(executor_poll_us);
  so.max_batch_rows = max_batch_rows;
  so.on_batch = [&](const runtime::BatchStats& s) {
    if (exec_fwd.size() < 100000) exec_fwd.push_back(s.inference_ms * 1e3);
    batch_log.add(s);
  };
  runtime::Scheduler sched(make, so);
  sched.start();
  runtime::WorkerPool pool(2);
  server::ServerOptions sv;
  sv.port = 0;
  sv.io_threads = io_threads;
  sv.busy_poll = std::chrono::microseconds(io_poll_us);
  server::HttpServer srv(sv, sched, pipeline, pool, metrics);
  srv.start();
  auto in_process_backend = make();  // a second instance: the executor's stays on its thread
  const auto info = in_process_backend->info();
  const std::string backend_desc = null_backend ? fmt::format("null backend ({})", null_sleep ? "sleeps" : "spins")
                                                : fmt::format("{} backend ({}, {})", info.backend, info.device, info.precision);
  fmt::print("model {} ({}), {}, {} thread(s), hardware threads {}, {} I/O thread(s), busy poll {} us (I/O), {} us (executor)\n",
             dir.string(), ckpt.kind(), backend_desc, threads, std::thread::hardware_concurrency(), io_threads, io_poll_us,
             executor_poll_us);
  fmt::print("\nconcurrency 1, small request (1 noul question), {} requests per path; times in us\n", n);
  fmt::print("{:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12}\n", "forward", "in-proc", "in-proc",
             "HTTP", "HTTP", "overhead", "fwd in-proc", "fwd executor");
  fmt::print("{:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12}\n", "us", "p50", "p99", "p50", "p99",
             "p50 diff", "p50", "p50");
  // Per forward time, the p50s of every round it appears in (repeat N in the list for rounds).
  std::map<int64_t, std::vector<double>> round_inproc, round_http;
  for (const int64_t d : delays) {
    delay_us = d;
    // 1. In-process: what `decide` does per line, on this thread.
    std::vector<double> inproc, inproc_fwd;
    for (int i = 0; i < n + 50; ++i) {
      const auto t0 = Clock::now();
      auto p = pipeline.prepare(kBody);
      const auto f0 = Clock::now();
      auto r = in_process_backend->forward(p->batch());
      if (i >= 50) inproc_fwd.push_back(us(Clock::now() - f0));
      auto out = p->render(r.logits, r.act_logits, r.n_act);
      if (i >= 50) inproc.push_back(us(Clock::now() - t0));
    }
    // 2. The same request over HTTP, one keep-alive client.
    std::vector<double> over_http;
    exec_fwd.clear();
    Client c(srv.port());
    for (int i = 0; i < n + 50; ++i) {
      const auto t0 = Clock::now();
      if (c.call() != 200) {
        std::fprintf(stderr, "HTTP error\n");
        return 1;
      }
      if (i >= 50) over_http.push_back(us(Clock::now() - t0));
    }
    fmt::print("{:>9} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f} {:>12.1f} {:>12.1f}\n",
               null_backend ? std::to_string(d) : "model", pct(inproc, 0.5), pct(inproc, 0.99), pct(over_http, 0.5),
               pct(over_http, 0.99), pct(over_http, 0.5) - pct(inproc, 0.5), pct(inproc_fwd, 0.5), pct(exec_fwd, 0.5));
    round_inproc[d].push_back(pct(inproc, 0.5));
    round_http[d].push_back(pct(over_http, 0.5));
  }
  if (delays.size() > round_http.size()) {
    fmt::print("\nmedian over rounds of the p50s (us)\n{:>9} {:>7} {:>10} {:>10} {:>10}\n", "forward", "rounds",
               "in-proc", "HTTP", "overhead");
    for (const auto& [d, h] : round_http) {
      const double in = pct(round_inproc[d], 0.5), ht = pct(h, 0.5);
      fmt::print("{:>9} {:>7} {:>10.1f} {:>10.1f} {:>10.1f}\n", null_backend ? std::to_string(d) : "model", h.size(),
                 in, ht, ht - in);
    }
  }

  // 3. Closed loop.
  const std::vector<std::string> cycle = mix.empty() ? std::vector<std::string>{} : mixed_bodies(mix == "short");
  if (!conc.empty()) {
    fmt::print("\nclosed loop, {} s per row, {}; graph cache {} shapes, captured at the miss {}, up to {} tokens\n",
               seconds,
               !mix.empty() ? fmt::format("mixed traffic ({} requests of 1-4 questions, 10-{} words)", cycle.size(),
                                          mix == "short" ? 60 : 400)
                   : std::string("the small request"),
               graph_cache_shapes, graph_admit_after, graph_max_tokens ? std::to_string(graph_max_tokens) : "any");
    fmt::print("{:>11} {:>10} {:>10} {:>10} {:>10} {:>11} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>10} {:>9} {:>8}\n",
               "concurrency", "requests", "req/s", "p50 ms", "p99 ms", "req/forward", "fwd ms", "pack ms", "gap ms",
               "replays", "captures", "evictions", "eager", "capture ms", "RSS MiB", "dev MiB");
  }
  std::stringstream ss(conc);
  for (std::string item; std::getline(ss, item, ',');) {
    const int c = std::stoi(item);
    std::vector<std::vector<double>> lat(static_cast<size_t>(c));
    std::atomic<bool> stop{false};
    std::atomic<int> errors{0}, overloaded{0};  // non-200 answers; of them 429 (the admission queue full)
    const engine::BackendCounters before = sched.backend_counters();
    const size_t log_from = batch_log.size();
    std::vector<std::thread> ts;
    const auto t0 = Clock::now();
    for (int k = 0; k < c; ++k) {
      ts.emplace_back([&, k] {
        Client cl(srv.port(), cycle, static_cast<size_t>(k));
        while (!stop.load()) {
          const auto a = Clock::now();
          const int status = cl.call();
          if (status != 200) errors++;
          if (status == 429) overloaded++;
          lat[static_cast<size_t>(k)].push_back(us(Clock::now() - a) / 1e3);
        }
      });
    }
    std::this_thread::sleep_for(seconds_of(seconds));
    stop = true;
    for (auto& t : ts) t.join();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    const std::vector<double> all = merged(lat);
    const engine::BackendCounters after = sched.backend_counters();
    fmt::print("{:>11} {:>10} {:>10.1f} {:>10.2f} {:>10.2f} {} {:>8} {:>8} {:>9} {:>8} {:>10.1f} {:>9.0f} {:>8.0f}{}\n", c,
               all.size(), static_cast<double>(all.size()) / wall, pct(all, 0.5), pct(all, 0.99),
               batch_log.cycle(log_from), after.graph_replays - before.graph_replays, after.graph_captures - before.graph_captures,
               after.graph_evictions - before.graph_evictions, after.eager_forwards - before.eager_forwards,
               (after.capture_seconds - before.capture_seconds) * 1e3, rss_mib(),
               static_cast<double>(sched.backend_info().device_memory_used) / (1024.0 * 1024.0),
               errors ? fmt::format("  ({} non-200 answers, {} of them 429)", errors.load(), overloaded.load()) : "");
  }

  // 4. Open loop.
  if (!open_rates.empty()) {
    fmt::print("\nopen loop, {} s per row, {} connections, Poisson arrivals, latency from the scheduled arrival; {}\n",
               seconds, connections, !mix.empty() ? "mixed traffic" : "the small request");
    fmt::print("{:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>11} {:>8} {:>8} {:>8} {:>9}\n", "offered/s", "requests",
               "achieved/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "req/forward", "fwd ms", "pack ms", "gap ms",
               "non-200");
  }
  for (const double rate : open_rates) {
    std::vector<std::vector<double>> lat(static_cast<size_t>(connections));
    std::atomic<int> errors{0};
    const size_t log_from = batch_log.size();
    const auto t0 = Clock::now() + std::chrono::milliseconds(50);  // every connection open by then
    const auto t_end = t0 + seconds_of(seconds);
    std::vector<std::thread> ts;
    for (int k = 0; k < connections; ++k) {
      ts.emplace_back([&, k] {
        Client cl(srv.port(), cycle, static_cast<size_t>(k));
        std::mt19937_64 rng(static_cast<uint64_t>(k) * 7919u + 17u);
        std::exponential_distribution<double> gap(rate / connections);  // seconds between this connection's arrivals
        auto due = t0 + seconds_of(gap(rng));
        while (due < t_end) {
          std::this_thread::sleep_until(due);
          if (cl.call() != 200) errors++;
          lat[static_cast<size_t>(k)].push_back(us(Clock::now() - due) / 1e3);
          due += seconds_of(gap(rng));
        }
      });
    }
    for (auto& t : ts) t.join();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    const std::vector<double> all = merged(lat);
    fmt::print("{:>10.0f} {:>10} {:>10.1f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {} {:>9}\n", rate, all.size(),
               static_cast<double>(all.size()) / wall, pct(all, 0.5), pct(all, 0.9), pct(all, 0.99), pct(all, 1.0),
               batch_log.cycle(log_from), errors.load());
  }
  srv.stop();
  sched.stop();
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "laya_bench_http: %s\n", e.what());
    return 1;
  }
}
