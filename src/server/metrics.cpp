#include "server/metrics.h"

#include <prometheus/text_serializer.h>

#include <sstream>

namespace laya::server {
namespace {

// 50 µs .. ~105 s, doubling: covers loopback overhead through a stalled queue.
prometheus::Histogram::BucketBoundaries duration_buckets() {
  prometheus::Histogram::BucketBoundaries b;
  for (double v = 50e-6; v < 120.0; v *= 2) b.push_back(v);
  return b;
}

prometheus::Histogram::BucketBoundaries pow2_buckets(double max) {
  prometheus::Histogram::BucketBoundaries b;
  for (double v = 1; v <= max; v *= 2) b.push_back(v);
  return b;
}

}  // namespace

Metrics::Metrics() : registry_(std::make_shared<prometheus::Registry>()) {
  using namespace prometheus;
  requests_ = &BuildCounter().Name("laya_http_requests_total").Help("HTTP requests by route and status").Register(*registry_);
  dropped_ = &BuildCounter()
                  .Name("laya_requests_dropped_total")
                  .Help("Requests not run by the model, by reason (overloaded, deadline, cancelled, unavailable)")
                  .Register(*registry_);
  auto& stage = BuildHistogram()
                    .Name("laya_request_duration_seconds")
                    .Help("Decision request latency by stage: queue, tokenize, inference, total")
                    .Register(*registry_);
  queue_ = &stage.Add({{"stage", "queue"}}, duration_buckets());
  tokenize_ = &stage.Add({{"stage", "tokenize"}}, duration_buckets());
  inference_ = &stage.Add({{"stage", "inference"}}, duration_buckets());
  total_ = &stage.Add({{"stage", "total"}}, duration_buckets());
  batch_rows_ = &BuildHistogram().Name("laya_batch_rows").Help("Rows (questions) per forward").Register(*registry_).Add(
      {}, pow2_buckets(4096));
  batch_tokens_ = &BuildHistogram().Name("laya_batch_tokens").Help("Tokens per forward").Register(*registry_).Add(
      {}, pow2_buckets(1 << 20));
  batch_requests_ = &BuildHistogram()
                         .Name("laya_batch_requests")
                         .Help("Requests packed into one forward")
                         .Register(*registry_)
                         .Add({}, pow2_buckets(4096));
  forward_seconds_ = &BuildHistogram()
                          .Name("laya_forward_duration_seconds")
                          .Help("Wall time of one Backend::forward")
                          .Register(*registry_)
                          .Add({}, duration_buckets());
  forward_failures_ = &BuildCounter()
                           .Name("laya_forward_failures_total")
                           .Help("Forwards that threw (their requests got 500)")
                           .Register(*registry_)
                           .Add({});
  inflight_ = &BuildGauge().Name("laya_inflight_requests").Help("Decision requests being handled").Register(*registry_).Add({});
  queue_depth_ = &BuildGauge().Name("laya_queue_depth").Help("Jobs queued for the executor").Register(*registry_).Add({});
  pending_ = &BuildGauge()
                  .Name("laya_admitted_requests")
                  .Help("Admitted requests not yet running (tokenising or queued)")
                  .Register(*registry_)
                  .Add({});
  ready_ = &BuildGauge().Name("laya_ready").Help("1 when the engine is ready").Register(*registry_).Add({});
  recoveries_ = &BuildGauge()
                     .Name("laya_engine_recoveries")
                     .Help("Backend rebuilds after a failed forward")
                     .Register(*registry_)
                     .Add({});
  device_memory_ = &BuildGauge()
                        .Name("laya_device_memory_used_bytes")
                        .Help("Device (GPU) memory held by the backend")
                        .Register(*registry_)
                        .Add({});
  build_info_ = &BuildGauge().Name("laya_build_info").Help("Version, backend and model (value 1)").Register(*registry_);
}

void Metrics::set_build_info(const std::map<std::string, std::string>& labels) { build_info_->Add(labels).Set(1); }

void Metrics::count_request(const std::string& route, int status) {
  requests_->Add({{"route", route}, {"status", std::to_string(status)}}).Increment();
}

void Metrics::observe_request(double queue_ms, double tokenize_ms, double inference_ms, double total_ms) {
  queue_->Observe(queue_ms / 1e3);
  tokenize_->Observe(tokenize_ms / 1e3);
  inference_->Observe(inference_ms / 1e3);
  total_->Observe(total_ms / 1e3);
}

void Metrics::observe_batch(const runtime::BatchStats& s) {
  batch_rows_->Observe(s.rows);
  batch_tokens_->Observe(s.tokens);
  batch_requests_->Observe(s.requests);
  forward_seconds_->Observe(s.inference_ms / 1e3);
  if (s.failed) forward_failures_->Increment();
}

void Metrics::count_dropped(const std::string& reason) { dropped_->Add({{"reason", reason}}).Increment(); }

std::string Metrics::scrape(const runtime::Scheduler* scheduler) {
  std::lock_guard lock(scrape_mu_);
  if (scheduler) {
    queue_depth_->Set(static_cast<double>(scheduler->queue_depth()));
    pending_->Set(static_cast<double>(scheduler->pending()));
    ready_->Set(scheduler->ready() ? 1 : 0);
    recoveries_->Set(static_cast<double>(scheduler->recoveries()));
    device_memory_->Set(static_cast<double>(scheduler->backend_info().device_memory_used));
    const engine::BackendCounters c = scheduler->backend_counters();
    if (c.graphs) export_graph_counters(c);
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

void Metrics::export_graph_counters(const engine::BackendCounters& c) {
  using namespace prometheus;
  if (!graph_) {
    auto counter = [&](const char* name, const char* help) {
      return &BuildCounter().Name(name).Help(help).Register(*registry_).Add({});
    };
    graph_ = std::make_unique<GraphMetrics>(GraphMetrics{
        counter("laya_graph_replays_total", "Forwards that replayed a cached CUDA Graph"),
        counter("laya_graph_captures_total", "CUDA Graphs captured (cache misses admitted to the cache)"),
        counter("laya_graph_capture_failures_total", "CUDA Graph captures that failed (the forward ran eagerly)"),
        counter("laya_graph_evictions_total", "Cached CUDA Graphs dropped to stay within the cache's budgets"),
        counter("laya_eager_forwards_total", "Forwards run without a CUDA Graph (start-up warm-up included)"),
        counter("laya_graph_capture_seconds_total", "Host time spent capturing and instantiating CUDA Graphs"),
        &BuildGauge().Name("laya_graph_cached").Help("CUDA Graphs held in the cache").Register(*registry_).Add({})});
  }
  // The scheduler's counts only grow (they carry over backend rebuilds): add what is new.
  graph_->replays->Increment(static_cast<double>(c.graph_replays - exported_.graph_replays));
  graph_->captures->Increment(static_cast<double>(c.graph_captures - exported_.graph_captures));
  graph_->capture_failures->Increment(static_cast<double>(c.capture_failures - exported_.capture_failures));
  graph_->evictions->Increment(static_cast<double>(c.graph_evictions - exported_.graph_evictions));
  graph_->eager->Increment(static_cast<double>(c.eager_forwards - exported_.eager_forwards));
  graph_->capture_seconds->Increment(c.capture_seconds - exported_.capture_seconds);
  graph_->cached->Set(static_cast<double>(c.cached_graphs));
  exported_ = c;
}

}  // namespace laya::server
