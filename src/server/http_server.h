// HttpServer: the official laya-serve HTTP surface on Boost.Beast/Asio.
//
//   POST /v1/systemone        one decision request (official body, statuses and {"detail": ...} errors)
//   POST /v1/systemone/batch  a JSON array of requests -> a JSON array of responses, in order
//   GET  /health              liveness, official body {"status":"ok","loaded":[...],"device":...}
//   GET  /ready               200 once loaded and warmed up; 503 while starting, draining, recovering
//   GET  /info                model, checkpoint, backend, device, limits, version, demo flag
//   GET  /metrics             Prometheus text
//
// I/O runs on a few Asio threads (no thread per connection). A decision request is admitted
// (429 when the queue is full), tokenised on the connection's strand (bodies up to 2 KiB) or on the
// worker pool (larger ones), batched with others by the scheduler's executor, and decoded and
// written on the connection's strand.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/pipeline.h"
#include "runtime/scheduler.h"
#include "runtime/worker_pool.h"
#include "server/metrics.h"

namespace laya::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8000;  // 0: an ephemeral port (tests); see HttpServer::port()
  int32_t io_threads = 2;
  // > 0: one I/O thread at a time polls the sockets instead of blocking in epoll while decision
  // requests are in flight and for this long after the last event, so that neither the
  // executor's outcome nor the client's next request has to wake a sleeping thread
  // (runtime/busy_poll.h). 0: the threads block as usual. Capped at runtime::kMaxBusyPoll.
  std::chrono::microseconds busy_poll{0};
  std::string api_key;  // empty: no auth
  size_t max_body_bytes = 2 * 1024 * 1024;
  size_t max_batch_items = 16;  // requests per /v1/systemone/batch call
  std::chrono::milliseconds header_timeout{10000};  // first byte -> end of headers
  std::chrono::milliseconds body_timeout{30000};    // end of headers -> end of body
  std::chrono::milliseconds idle_timeout{60000};    // keep-alive connection with no request
  std::chrono::milliseconds deadline{30000};        // per decision request, from its headers; 0 = none
  bool demo = false;                                // adds X-Laya-Demo-Checkpoint: true
  std::vector<std::string> loaded;                  // /health "loaded"
  std::string device_label = "auto";                // /health "device"
  nlohmann::ordered_json info = nlohmann::ordered_json::object();  // static /info fields
};

class HttpServer {
 public:
  HttpServer(ServerOptions options, runtime::Scheduler& scheduler, const runtime::Pipeline& pipeline,
             runtime::WorkerPool& pool, Metrics& metrics);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the I/O threads. Throws laya::Error(io) when the address is unusable.
  void start();
  uint16_t port() const { return bound_port_; }

  // Graceful shutdown, step 1: readiness 503, no new connections, no new admissions; requests in
  // flight continue. Then wait_inflight() until they are answered (or the grace period ends).
  void begin_drain();
  bool wait_inflight(runtime::Clock::time_point until);
  int64_t inflight() const { return inflight_.load(); }
  bool draining() const { return draining_.load(); }
  // Stops the I/O threads and closes every connection.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  uint16_t bound_port_ = 0;
  std::atomic<bool> draining_{false};
  std::atomic<int64_t> inflight_{0};
};

// Constant-time comparison of an Authorization header with "Bearer <key>" (length may leak).
bool bearer_matches(std::string_view header, std::string_view api_key);
// Is this Content-Type JSON ("application/json", any case, parameters after ';' ignored)?
bool is_json_content_type(std::string_view content_type);

}  // namespace laya::server
