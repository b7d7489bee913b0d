// laya-engine serve: the official laya-serve HTTP API on this engine (docs/server.md).
//
//   laya-engine serve --model DIR|demo [--host H] [--port P] [--backend cpu|cuda] [--device N]
//                     [--api-key K] [--queue-size N] [--max-batch-rows N] [--max-batch-tokens N] ...
//
// Every option also reads an environment variable (LAYA_HOST, LAYA_PORT, LAYA_API_KEY, ... as the
// official server does; `serve --help` lists them). SIGTERM/SIGINT drain: readiness 503, no new
// connections, requests in flight finish within --grace-period-s, exit 0.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint/integrity.h"
#include "cli/backend_factory.h"
#include "cli/build_info.h"
#include "cli/command.h"
#include "cli/graph_options.h"
#include "common/log.h"
#include "laya/errors.h"
#include "runtime/busy_poll.h"
#include "runtime/model_pipeline.h"
#include "runtime/scheduler.h"
#include "runtime/worker_pool.h"
#include "server/http_server.h"
#include "server/metrics.h"

namespace laya::cli {
namespace {

struct ServeArgs {
  std::string model;
  std::string host = "127.0.0.1";
  std::string port = "8000";  // text: the official LAYA_PORT message for bad values
  std::string backend = "cpu";
  std::string device;  // "N", "cuda:N", "cuda", "cpu" (LAYA_DEVICE's torch spelling accepted)
  int threads = 0;
  std::string api_key;
  std::string log_level;
  int io_threads = 2;
  std::string busy_poll_us = "auto";  // runtime::resolve_busy_poll
  int workers = 0;
  size_t queue_size = 256;
  int max_batch_rows = 64;
  int max_batch_tokens = 16384;
  int batch_wait_us = 0;
  int deadline_ms = 30000;
  double grace_s = 30;
  int header_timeout_ms = 10000;
  int body_timeout_ms = 30000;
  int idle_timeout_ms = 60000;
  size_t max_questions = 64;
  size_t max_state_chars = 50000;
  size_t max_body_bytes = 2 * 1024 * 1024;
  size_t max_batch_requests = 16;
  int recovery_attempts = 3;
  bool verify_hash = false;
  bool extended_usage = true;
  std::string execution = "graph";
  std::string precision = "auto";
  std::string warmup_shapes = "auto";
  engine::BackendOptions graph_cache;  // its graph cache fields only (add_graph_cache_options)
  int64_t fault_forward = 0;
  int fault_delay_ms = 0;
};

// LAYA_DEVICE in the official server is a torch device ("cpu", "cuda", "cuda:1"); ours also takes N.
void apply_device(const std::string& device, engine::BackendOptions& bo, bool backend_given) {
  if (device.empty() || device == "auto") return;
  if (device == "cpu") {
    if (!backend_given) bo.backend = "cpu";
    return;
  }
  std::string idx = device;
  if (device.rfind("cuda", 0) == 0) {
    if (!backend_given) bo.backend = "cuda";
    idx = device.size() > 5 && device[4] == ':' ? device.substr(5) : "0";
  }
  try {
    size_t used = 0;
    bo.device = std::stoi(idx, &used);
    LAYA_REQUIRE(used == idx.size() && bo.device >= 0, ErrorKind::bad_request, "x");
  } catch (const std::exception&) {
    LAYA_FAIL(ErrorKind::bad_request, "invalid --device/LAYA_DEVICE '{}': use N, cuda:N, cuda or cpu", device);
  }
}

int g_signal_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int sig) {
  const unsigned char b = static_cast<unsigned char>(sig);
  const int saved = errno;
  [[maybe_unused]] const auto n = ::write(g_signal_pipe[1], &b, 1);
  errno = saved;
}

void install_signal_pipe() {
  LAYA_REQUIRE(::pipe(g_signal_pipe) == 0, ErrorKind::internal, "pipe() failed");
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
}

// The next SIGTERM/SIGINT (its number), waiting up to timeout_ms (-1: forever); 0 when none came.
int wait_signal(int timeout_ms) {
  pollfd p{g_signal_pipe[0], POLLIN, 0};
  for (;;) {
    const int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    unsigned char b = 0;
    if (::read(g_signal_pipe[0], &b, 1) == 1) return b;
    return 0;
  }
}

// /info's batching.forward_capacity: what one forward takes (null for an unlimited dimension).
nlohmann::json capacity_json(const engine::BatchCapacity& cap) {
  auto limit = [](int32_t v) { return v == std::numeric_limits<int32_t>::max() ? nlohmann::json() : nlohmann::json(v); };
  return {{"rows", limit(cap.max_rows)}, {"tokens", limit(cap.max_tokens)}, {"markers", limit(cap.max_markers)}};
}

int run_serve(const ServeArgs& a, bool backend_given) {
  if (!a.log_level.empty()) set_log_level(a.log_level);
  LAYA_REQUIRE(!a.model.empty(), ErrorKind::bad_request, "serve: --model DIR|demo (or LAYA_MODEL) is required");
  int port = -1;
  try {
    size_t used = 0;
    port = std::stoi(a.port, &used);
    if (used != a.port.size()) port = -1;
  } catch (const std::exception&) {
    port = -1;
  }
  // Upstream's text (serve._resolve_port); 0 is ours: any free port.
  LAYA_REQUIRE(port >= 0 && port <= 65535, ErrorKind::bad_request, "invalid LAYA_PORT '{}': must be an integer 1-65535",
               a.port);

  // A handler, not a signal mask: libraries start threads before main (OpenBLAS's pool), and a
  // process-directed signal may land on any of them. The handler only writes to a pipe.
  install_signal_pipe();

  engine::BackendOptions bo;
  bo.backend = a.backend;
  bo.threads = a.threads;
  bo.execution = a.execution;
  bo.precision = a.precision;
  bo.warmup_shapes = a.warmup_shapes;
  bo.graph_cache_shapes = a.graph_cache.graph_cache_shapes;
  bo.graph_cache_bytes = a.graph_cache.graph_cache_bytes;
  bo.graph_admit_after = a.graph_cache.graph_admit_after;
  bo.graph_max_tokens = a.graph_cache.graph_max_tokens;
  bo.max_rows = a.max_batch_rows;  // the CUDA engine's workspace takes the batches the executor forms
  bo.max_tokens = a.max_batch_tokens;
  apply_device(a.device, bo, backend_given);
  LAYA_REQUIRE(has_backend(bo.backend), ErrorKind::bad_request, "backend '{}' is not in this binary", bo.backend);
  const auto busy_poll = runtime::resolve_busy_poll(a.busy_poll_us, bo.backend);

  auto model = load_model(a.model, bo, /*with_backend=*/false);
  const auto& cfg = model.config();
  if (model.is_demo) {
    std::fprintf(stderr,
                 "laya-engine serve: serving the DEMO checkpoint: its weights are random and its answers are "
                 "meaningless (responses carry X-Laya-Demo-Checkpoint: true)\n");
  }

  api::RequestLimits limits;
  limits.max_questions = a.max_questions;
  limits.max_state_chars = a.max_state_chars;
  limits.max_body_bytes = a.max_body_bytes;
  decode::ResponseOptions ro;
  ro.extended_usage = a.extended_usage;
  runtime::ModelPipeline pipeline(model.tokenizer, model.special, cfg.agent, limits, ro);

  server::Metrics metrics;
  runtime::SchedulerOptions so;
  so.queue_capacity = a.queue_size;
  so.max_batch_rows = a.max_batch_rows;
  so.max_batch_tokens = a.max_batch_tokens;
  so.batch_wait = std::chrono::microseconds(a.batch_wait_us);
  so.idle_poll = busy_poll;
  so.max_recovery_attempts = a.recovery_attempts;
  so.fault_forward = a.fault_forward;
  so.fault_delay = std::chrono::milliseconds(a.fault_delay_ms);
  so.on_batch = [&metrics](const runtime::BatchStats& s) { metrics.observe_batch(s); };
  // Ready only after one real decision went through every stage on the fresh backend.
  so.warmup = [&pipeline](engine::Backend& b) {
    auto p = pipeline.prepare(runtime::warmup_request());
    auto r = b.forward(p->batch());
    (void)p->render(r.logits, r.act_logits, r.n_act);
  };
  const checkpoint::Checkpoint& ckpt = *model.checkpoint;
  // What this binary was built with (compiled CUDA architectures, CUDA and cuBLASLt versions,
  // libraries), before the backend starts: a start-up failure is then read against it.
  for (const auto& line : build_description_lines())
    std::fprintf(stderr, "laya-engine serve: build: %s\n", line.c_str());
  runtime::Scheduler scheduler([&ckpt, bo] { return make_backend(ckpt, bo); }, so);
  const auto t_load = std::chrono::steady_clock::now();
  scheduler.start();
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();

  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  // Destroyed explicitly before the server: its pending tasks refer to the server's connections.
  auto pool = std::make_unique<runtime::WorkerPool>(a.workers > 0 ? static_cast<size_t>(a.workers)
                                                                   : std::min<size_t>(hw, 4));

  server::ServerOptions sv;
  sv.host = a.host;
  sv.port = static_cast<uint16_t>(port);
  sv.io_threads = a.io_threads;
  sv.busy_poll = busy_poll;
  sv.api_key = a.api_key;
  sv.max_body_bytes = a.max_body_bytes;
  sv.max_batch_items = a.max_batch_requests;
  sv.header_timeout = std::chrono::milliseconds(a.header_timeout_ms);
  sv.body_timeout = std::chrono::milliseconds(a.body_timeout_ms);
  sv.idle_timeout = std::chrono::milliseconds(a.idle_timeout_ms);
  sv.deadline = std::chrono::milliseconds(a.deadline_ms);
  sv.demo = model.is_demo;
  const std::string kind = ckpt.kind();
  sv.loaded = {kind};
  sv.device_label = a.device.empty() ? "auto" : a.device;
  auto& info = sv.info;
  info["model"] = cfg.agent.model_name;
  info["model_dir"] = model.dir.string();
  info["checkpoint_kind"] = kind;
  info["synthetic"] = ckpt.is_synthetic();
  if (a.verify_hash) {
    const auto report = checkpoint::check_integrity(ckpt.paths());
    info["hash_status"] = report.verdict;
    info["official_weights"] = report.official_weights;
  } else {
    info["hash_status"] = "not checked (start with --verify-hash)";
  }
  info["version"] = LAYA_VERSION;
  info["build"] = build_description();
  info["load_seconds"] = load_s;
  info["limits"] = {{"max_questions", a.max_questions}, {"max_state_chars", a.max_state_chars}};
  info["batching"] = {{"queue_size", a.queue_size},
                      {"max_batch_rows", a.max_batch_rows},
                      {"max_batch_tokens", a.max_batch_tokens},
                      {"batch_wait_us", a.batch_wait_us},
                      {"busy_poll_us", busy_poll.count()},
                      {"forward_capacity", capacity_json(scheduler.backend_capacity())}};
  if (bo.backend == "cuda")  // the graph policy in force (docs/server.md)
    info["cuda"] = {{"execution", bo.execution},
                    {"graph_cache_shapes", bo.graph_cache_shapes},
                    {"graph_cache_bytes", bo.graph_cache_bytes},
                    {"graph_admit_after", bo.graph_admit_after},
                    {"graph_max_tokens", bo.graph_max_tokens},
                    {"warmup_shapes", bo.warmup_shapes}};
  metrics.set_build_info({{"version", LAYA_VERSION}, {"backend", bo.backend}, {"model", cfg.agent.model_name},
                          {"demo", model.is_demo ? "true" : "false"}});

  server::HttpServer http(sv, scheduler, pipeline, *pool, metrics);
  http.start();
  std::fprintf(stderr, "laya-engine serve: listening on %s:%u (model %s, backend %s, %s)\n", a.host.c_str(),
               static_cast<unsigned>(http.port()), cfg.agent.model_name.c_str(), bo.backend.c_str(),
               scheduler.backend_info().device.c_str());
  std::fflush(stderr);

  const int sig = wait_signal(-1);
  std::fprintf(stderr, "laya-engine serve: %s received, draining (grace %.1f s)\n", sig == SIGTERM ? "SIGTERM" : "SIGINT",
               a.grace_s);
  http.begin_drain();
  const auto grace_end = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(a.grace_s));
  bool drained = false;
  while (!(drained = http.wait_inflight(std::min(grace_end, std::chrono::steady_clock::now() + std::chrono::milliseconds(50))))) {
    if (std::chrono::steady_clock::now() >= grace_end) break;
    if (wait_signal(0) > 0) {
      std::fprintf(stderr, "laya-engine serve: second signal, stopping now\n");
      break;
    }
  }
  if (!drained) {
    std::fprintf(stderr, "laya-engine serve: %lld request(s) still in flight at the end of the grace period\n",
                 static_cast<long long>(http.inflight()));
  }
  http.stop();
  scheduler.stop();  // queued jobs that did not run are answered 503 (nobody is listening any more)
  pool.reset();      // runs what is left (it can only fail fast now), before the server is destroyed
  std::fprintf(stderr, "laya-engine serve: stopped\n");
  return 0;
}

Registration reg("serve", "Serve the official laya-serve HTTP API (POST /v1/systemone) with cross-request batching",
                 [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<ServeArgs>();
  app.add_option("--model", a->model, "checkpoint directory, or 'demo' (random weights)")->envname("LAYA_MODEL");
  app.add_option("--host", a->host, "bind address (upstream laya-serve binds 0.0.0.0)")->envname("LAYA_HOST")->capture_default_str();
  app.add_option("--port", a->port, "bind port (0: any free port)")->envname("LAYA_PORT")->capture_default_str();
  auto* backend_opt = app.add_option("--backend", a->backend, "cpu | cuda")->envname("LAYA_BACKEND")->capture_default_str();
  app.add_option("--device", a->device, "GPU index N, or a torch spelling: cuda:N, cuda, cpu")->envname("LAYA_DEVICE");
  app.add_option("--threads", a->threads, "CPU backend threads (0: all cores)")->envname("LAYA_THREADS")->capture_default_str();
  app.add_option("--api-key", a->api_key, "require Authorization: Bearer <key> (except /health, /ready, /metrics)")
      ->envname("LAYA_API_KEY");
  app.add_option("--log-level", a->log_level, "trace|debug|info|warn|error|off; info logs one line per request")
      ->envname("LAYA_LOG_LEVEL");
  app.add_option("--io-threads", a->io_threads, "HTTP I/O threads")->envname("LAYA_IO_THREADS")->capture_default_str();
  app.add_option("--busy-poll-us", a->busy_poll_us,
                 "executor and I/O threads poll this long before sleeping, saving thread wake-ups (costs CPU): "
                 "0-10000, or auto (250 for cuda, 0 for cpu)")
      ->envname("LAYA_BUSY_POLL_US")->capture_default_str();
  app.add_option("--workers", a->workers, "tokenisation/decoding threads (0: min(cores, 4))")->envname("LAYA_WORKERS")->capture_default_str();
  app.add_option("--queue-size", a->queue_size, "admitted requests not yet running; beyond: 429")->envname("LAYA_QUEUE_SIZE")->capture_default_str();
  app.add_option("--max-batch-rows", a->max_batch_rows, "rows (questions) per forward")
      ->envname("LAYA_MAX_BATCH_ROWS")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-batch-tokens", a->max_batch_tokens,
                 "tokens per forward (cuda: below 16 rows of max_len it also shrinks the engine's workspace)")
      ->envname("LAYA_MAX_BATCH_TOKENS")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--batch-wait-us", a->batch_wait_us, "wait after the oldest arrival to fill a batch (0: none)")
      ->envname("LAYA_BATCH_WAIT_US")->capture_default_str();
  app.add_option("--deadline-ms", a->deadline_ms, "per-request deadline, 504 after it (0: none)")->envname("LAYA_DEADLINE_MS")->capture_default_str();
  app.add_option("--grace-period-s", a->grace_s, "time to finish in-flight requests on SIGTERM")->envname("LAYA_GRACE_PERIOD_S")->capture_default_str();
  app.add_option("--header-timeout-ms", a->header_timeout_ms, "time to send the request header")->envname("LAYA_HEADER_TIMEOUT_MS")->capture_default_str();
  app.add_option("--body-timeout-ms", a->body_timeout_ms, "time to send the body")->envname("LAYA_BODY_TIMEOUT_MS")->capture_default_str();
  app.add_option("--idle-timeout-ms", a->idle_timeout_ms, "keep-alive idle time")->envname("LAYA_IDLE_TIMEOUT_MS")->capture_default_str();
  app.add_option("--max-questions", a->max_questions, "questions per request (413 beyond)")->envname("LAYA_MAX_QUESTIONS")->capture_default_str();
  app.add_option("--max-state-chars", a->max_state_chars, "state characters (413 beyond)")->envname("LAYA_MAX_STATE_CHARS")->capture_default_str();
  app.add_option("--max-body-bytes", a->max_body_bytes, "request body bytes (413 beyond, streamed)")->envname("LAYA_MAX_BODY_BYTES")->capture_default_str();
  app.add_option("--max-batch-requests", a->max_batch_requests, "requests per /v1/systemone/batch call")
      ->envname("LAYA_MAX_BATCH_REQUESTS")->capture_default_str();
  app.add_option("--recovery-attempts", a->recovery_attempts, "backend rebuilds after an engine failure")
      ->envname("LAYA_RECOVERY_ATTEMPTS")->capture_default_str();
  app.add_flag("--verify-hash", a->verify_hash, "SHA-256 the checkpoint at start-up and report it in /info")->envname("LAYA_VERIFY_HASH");
  app.add_option("--extended-usage", a->extended_usage, "usage block with laya 0.4.0's additive fields (true) or 0.3.20's two")
      ->envname("LAYA_EXTENDED_USAGE")->capture_default_str();
  app.add_option("--execution", a->execution, "cuda: eager | graph")->envname("LAYA_EXECUTION")->capture_default_str();
  // LAYA_CUDA_AMP: the override later laya versions read for their CUDA autocast dtype.
  app.add_option("--precision", a->precision, "cuda: auto (the checkpoint's amp_dtype) | bf16 | fp16")
      ->envname("LAYA_CUDA_AMP")->capture_default_str();
  app.add_option("--warmup-shapes", a->warmup_shapes,
                 "cuda: start-up warm-up: auto (one forward per bucket size), none, or shapes to capture, e.g. 1x48,4x64")
      ->envname("LAYA_WARMUP_SHAPES")
      ->capture_default_str();
  add_graph_cache_options(app, a->graph_cache, /*with_env=*/true);
  // Test-only fault injection (hidden from --help).
  app.add_option("--fault-inject-forward", a->fault_forward, "")->envname("LAYA_FAULT_INJECT_FORWARD")->group("");
  app.add_option("--fault-inject-delay-ms", a->fault_delay_ms, "")->envname("LAYA_FAULT_INJECT_DELAY_MS")->group("");
  return [a, backend_opt] { return run_serve(*a, backend_opt->count() > 0 || std::getenv("LAYA_BACKEND") != nullptr); };
});

}  // namespace
}  // namespace laya::cli
