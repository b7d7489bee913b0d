// Metrics: the Prometheus registry of the server, serialised by /metrics in text format.
// prometheus-cpp core only (no civetweb exposer): the server's own HTTP stack answers /metrics.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <string>

#include "runtime/scheduler.h"

namespace laya::server {

// Optional sources a backend may offer; unset ones are not exported.
struct MetricHooks {
  std::function<int64_t()> graph_cache_hits;
  std::function<int64_t()> graph_cache_misses;
  std::function<int64_t()> device_memory_used;  // bytes; default: the backend info's figure
};

class Metrics {
 public:
  Metrics();

  void count_request(const std::string& route, int status);
  void observe_request(double queue_ms, double tokenize_ms, double inference_ms, double total_ms);
  void observe_batch(const runtime::BatchStats& s);
  void count_dropped(const std::string& reason);  // overloaded, deadline, cancelled, disconnected
  void add_inflight(int delta) { inflight_->Increment(delta); }

  // Text exposition; samples the scheduler gauges and hooks at scrape time.
  std::string scrape(const runtime::Scheduler* scheduler, const MetricHooks& hooks);
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
  prometheus::Gauge* graph_hits_;
  prometheus::Gauge* graph_misses_;
  prometheus::Family<prometheus::Gauge>* build_info_;
};

}  // namespace laya::server
