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
  graph_hits_ = nullptr;
  graph_misses_ = nullptr;
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

std::string Metrics::scrape(const runtime::Scheduler* scheduler, const MetricHooks& hooks) {
  std::lock_guard lock(scrape_mu_);
  if (scheduler) {
    queue_depth_->Set(static_cast<double>(scheduler->queue_depth()));
    pending_->Set(static_cast<double>(scheduler->pending()));
    ready_->Set(scheduler->ready() ? 1 : 0);
    recoveries_->Set(static_cast<double>(scheduler->recoveries()));
    device_memory_->Set(static_cast<double>(hooks.device_memory_used ? hooks.device_memory_used()
                                                                      : scheduler->backend_info().device_memory_used));
  }
  if (hooks.graph_cache_hits && !graph_hits_) {
    graph_hits_ = &prometheus::BuildGauge()
                       .Name("laya_graph_cache_hits")
                       .Help("CUDA graph cache hits reported by the backend")
                       .Register(*registry_)
                       .Add({});
  }
  if (hooks.graph_cache_misses && !graph_misses_) {
    graph_misses_ = &prometheus::BuildGauge()
                         .Name("laya_graph_cache_misses")
                         .Help("CUDA graph cache misses reported by the backend")
                         .Register(*registry_)
                         .Add({});
  }
  if (graph_hits_) graph_hits_->Set(static_cast<double>(hooks.graph_cache_hits()));
  if (graph_misses_) graph_misses_->Set(static_cast<double>(hooks.graph_cache_misses()));
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace laya::server
