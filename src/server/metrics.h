// Metrics: the Prometheus registry of the server, serialised by /metrics in text format.
// prometheus-cpp core only (no civetweb exposer): the server's own HTTP stack answers /metrics.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <memory>
#include <string>

#include "runtime/scheduler.h"

namespace laya::server {

class Metrics {
 public:
  Metrics();

  void count_request(const std::string& route, int status);
  void observe_request(double queue_ms, double tokenize_ms, double inference_ms, double total_ms);
  void observe_batch(const runtime::BatchStats& s);
  void count_dropped(const std::string& reason);  // overloaded, deadline, cancelled, disconnected
  void add_inflight(int delta) { inflight_->Increment(delta); }

  // Text exposition; samples the scheduler's gauges and the backend's counters at scrape time.
  std::string scrape(const runtime::Scheduler* scheduler);
  void set_build_info(const std::map<std::string, std::string>& labels);

 private:
  std::mutex scrape_mu_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Family<prometheus::Counter>* dropped_;
  prometheus::Histogram* queue_;
  prometheus::Histogram* tokenize_;
  prometheus::Histogram* inference_;
  prometheus::Histogram* total_;
  prometheus::Histogram* batch_rows_;
  prometheus::Histogram* batch_tokens_;
  prometheus::Histogram* batch_requests_;
  prometheus::Histogram* forward_seconds_;
  prometheus::Counter* forward_failures_;
  prometheus::Gauge* inflight_;
  prometheus::Gauge* queue_depth_;
  prometheus::Gauge* pending_;
  prometheus::Gauge* ready_;
  prometheus::Gauge* recoveries_;
  prometheus::Gauge* device_memory_;
  // The CUDA Graph families: registered at the first scrape that finds a backend running graphs.
  void export_graph_counters(const engine::BackendCounters& c);
  struct GraphMetrics {
    prometheus::Counter* replays;
    prometheus::Counter* captures;
    prometheus::Counter* capture_failures;
    prometheus::Counter* evictions;
    prometheus::Counter* eager;
    prometheus::Counter* capture_seconds;
    prometheus::Gauge* cached;
  };
  std::unique_ptr<GraphMetrics> graph_;
  engine::BackendCounters exported_;  // what the counters hold (their last values)
  prometheus::Family<prometheus::Gauge>* build_info_;
};

}  // namespace laya::server
