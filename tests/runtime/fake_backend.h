// A deterministic Backend for scheduler tests: the logit of a marker is the token id at that
// marker, the action logits of a row are {row length, first token}. Lets a test check that every
// request gets exactly its own slice of a cross-request batch.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "engine/backend.h"
#include "laya/errors.h"

namespace laya::test {

struct FakeBackendControl {
  std::atomic<int> forwards{0};
  std::atomic<int> created{0};
  std::atomic<int> max_rows_seen{0};
  std::atomic<int> fail_creations{0};  // the next N factory calls throw
  std::atomic<int> delay_ms{0};
  // While `hold` is set, forward() waits after counting itself in `entered`: a test can keep the
  // executor busy for exactly as long as it needs to queue requests (no sleeps to race against).
  std::atomic<bool> hold{false};
  std::atomic<int> entered{0};
  // What one forward takes (set before the scheduler starts); beyond it forward() throws
  // too_large, as the CUDA engine does.
  engine::BatchCapacity capacity;
  std::atomic<int> max_tokens_seen{0};
  // When set (before the scheduler starts), counters() reports a graph-running backend: each
  // instance captured one graph (0.25 s) at creation and replayed it in each of its forwards.
  bool graph_counters = false;
};

class FakeBackend : public engine::Backend {
 public:
  explicit FakeBackend(std::shared_ptr<FakeBackendControl> c) : c_(std::move(c)) {}
  engine::ForwardResult forward(const engine::Batch& b, engine::DumpSink*) override {
    c_->entered++;
    while (c_->hold.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (int d = c_->delay_ms.load(); d > 0) std::this_thread::sleep_for(std::chrono::milliseconds(d));
    LAYA_REQUIRE(c_->capacity.fits(b.rows(), b.tokens(), b.total_markers()), ErrorKind::too_large,
                 "fake backend: {} rows / {} tokens / {} markers exceed its capacity", b.rows(), b.tokens(),
                 b.total_markers());
    c_->forwards++;
    ++own_forwards_;
    raise_to(c_->max_rows_seen, b.rows());
    raise_to(c_->max_tokens_seen, b.tokens());
    engine::ForwardResult r;
    r.n_act = 2;
    for (int32_t row = 0; row < b.rows(); ++row) {
      for (int32_t k = b.marker_offsets[row]; k < b.marker_offsets[row + 1]; ++k) {
        r.logits.push_back(static_cast<float>(b.token_ids[b.row_offsets[row] + b.markers[k]]));
      }
      r.act_logits.push_back(static_cast<float>(b.row_length(row)));
      r.act_logits.push_back(static_cast<float>(b.token_ids[b.row_offsets[row]]));
    }
    return r;
  }
  engine::BackendInfo info() const override { return {"fake", "test", "fp32", 0, 0}; }
  engine::BatchCapacity capacity() const override { return c_->capacity; }
  engine::BackendCounters counters() const override {
    engine::BackendCounters k;
    if (!c_->graph_counters) return k;
    k.graphs = true;
    k.graph_captures = 1;
    k.capture_seconds = 0.25;
    k.graph_replays = own_forwards_;
    k.cached_graphs = 1;
    return k;
  }

 private:
  static void raise_to(std::atomic<int>& max, int v) {
    int prev = max.load();
    while (v > prev && !max.compare_exchange_weak(prev, v)) {
    }
  }
  std::shared_ptr<FakeBackendControl> c_;
  int64_t own_forwards_ = 0;
};

inline std::function<std::unique_ptr<engine::Backend>()> fake_factory(std::shared_ptr<FakeBackendControl> c) {
  return [c]() -> std::unique_ptr<engine::Backend> {
    c->created++;
    if (c->fail_creations.load() > 0) {
      c->fail_creations--;
      LAYA_FAIL(ErrorKind::internal, "fake backend creation failed");
    }
    return std::make_unique<FakeBackend>(c);
  };
}

}  // namespace laya::test
