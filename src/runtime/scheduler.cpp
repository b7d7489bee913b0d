#include "runtime/scheduler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

#include "engine/parts.h"
#include "laya/errors.h"
#include "runtime/busy_poll.h"

namespace laya::runtime {

const char* to_string(State s) {
  switch (s) {
    case State::starting: return "starting";
    case State::ready: return "ready";
    case State::recovering: return "recovering";
    case State::draining: return "draining";
    case State::stopped: return "stopped";
    case State::failed: return "failed";
  }
  return "unknown";
}

namespace {
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

Ticket& Ticket::operator=(Ticket&& o) noexcept {
  if (this != &o) {
    if (owner_) owner_->release_ticket();
    owner_ = o.owner_;
    o.owner_ = nullptr;
  }
  return *this;
}

Ticket::~Ticket() {
  if (owner_) owner_->release_ticket();
}

Scheduler::Scheduler(BackendFactory factory, SchedulerOptions options)
    : factory_(std::move(factory)), opt_(std::move(options)) {
  if (opt_.queue_capacity == 0) opt_.queue_capacity = 1;
  if (opt_.max_batch_rows < 1) opt_.max_batch_rows = 1;
  if (opt_.max_batch_tokens < 1) opt_.max_batch_tokens = 1;
  if (opt_.max_recovery_attempts < 1) opt_.max_recovery_attempts = 1;
  opt_.idle_poll = std::clamp(opt_.idle_poll, std::chrono::microseconds{0}, kMaxBusyPoll);
}

Scheduler::~Scheduler() { stop(); }

void Scheduler::start() {
  {
    std::lock_guard lock(mu_);
    LAYA_ASSERT(!started_, "Scheduler::start called twice");
    started_ = true;
  }
  thread_ = std::thread([this] { run(); });
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [&] { return state_.load() != State::starting; });
  if (state_.load() != State::ready) {
    LAYA_FAIL(ErrorKind::unavailable, "the engine failed to start: {}", last_error_);
  }
}

Ticket Scheduler::admit() {
  {
    std::lock_guard lock(mu_);
    if (!accepting_) {
      LAYA_FAIL(ErrorKind::unavailable, "{}", state_.load() == State::starting ? "model is loading"
                                              : state_.load() == State::failed ? "model unavailable"
                                                                               : "server is shutting down");
    }
  }
  size_t cur = pending_.load();
  do {
    if (cur >= opt_.queue_capacity) LAYA_FAIL(ErrorKind::overloaded, "server overloaded, retry later");
  } while (!pending_.compare_exchange_weak(cur, cur + 1));
  return Ticket(this);
}

void Scheduler::submit(Ticket&& ticket, Job job) {
  LAYA_ASSERT(ticket.owner_ == this, "submit needs a ticket of this scheduler");
  Entry e{std::move(job), Clock::now()};
  {
    std::lock_guard lock(mu_);
    if (!stop_) {
      ticket.owner_ = nullptr;  // the queue entry now holds the reservation
      queue_.push_back(std::move(e));
      kicks_.fetch_add(1, std::memory_order_release);
      cv_.notify_all();
      return;
    }
  }
  finish(e, Outcome::Status::unavailable);  // ticket released by its destructor
}

void Scheduler::drain() {
  std::lock_guard lock(mu_);
  accepting_ = false;
  if (state_.load() == State::ready || state_.load() == State::recovering) state_ = State::draining;
}

bool Scheduler::wait_idle(Clock::time_point until) {
  std::unique_lock lock(mu_);
  return idle_cv_.wait_until(lock, until, [&] { return queue_.empty() && !running_batch_; });
}

void Scheduler::stop() {
  {
    std::lock_guard lock(mu_);
    accepting_ = false;
    stop_ = true;
    kicks_.fetch_add(1, std::memory_order_release);  // ends a busy poll at once
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  fail_all_queued(Outcome::Status::unavailable);
  if (state_.load() != State::failed) state_ = State::stopped;
}

size_t Scheduler::queue_depth() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

engine::BackendInfo Scheduler::backend_info() const {
  std::lock_guard lock(mu_);
  return info_;
}

engine::BatchCapacity Scheduler::backend_capacity() const {
  std::lock_guard lock(mu_);
  return capacity_;
}

engine::BackendCounters Scheduler::backend_counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

void Scheduler::publish_counters() {
  const engine::BackendCounters now = backend_->counters();
  engine::BackendCounters sum = counters_base_;
  sum.graphs = sum.graphs || now.graphs;
  sum.graph_replays += now.graph_replays;
  sum.graph_captures += now.graph_captures;
  sum.capture_failures += now.capture_failures;
  sum.graph_evictions += now.graph_evictions;
  sum.eager_forwards += now.eager_forwards;
  sum.capture_seconds += now.capture_seconds;
  sum.cached_graphs = now.cached_graphs;
  std::lock_guard lock(mu_);
  counters_ = sum;
}

engine::BatchCapacity Scheduler::batch_limits() const {
  return {std::min(opt_.max_batch_rows, capacity_.max_rows), std::min(opt_.max_batch_tokens, capacity_.max_tokens),
          capacity_.max_markers};
}

void Scheduler::finish(Entry& e, Outcome::Status status) {
  Outcome o;
  o.status = status;
  o.queue_ms = ms_between(e.enqueued, Clock::now());
  if (e.job.done) e.job.done(std::move(o));
}

void Scheduler::fail_all_queued(Outcome::Status status) {
  std::deque<Entry> rest;
  {
    std::lock_guard lock(mu_);
    rest.swap(queue_);
  }
  for (auto& e : rest) {
    release_ticket();
    finish(e, status);
  }
  idle_cv_.notify_all();
}

bool Scheduler::create_backend() {
  for (int32_t attempt = 1; attempt <= opt_.max_recovery_attempts; ++attempt) {
    try {
      auto b = factory_();
      LAYA_ASSERT(b != nullptr, "the backend factory returned no backend");
      if (opt_.warmup) opt_.warmup(*b);
      auto info = b->info();
      const engine::BatchCapacity cap = b->capacity();
      backend_ = std::move(b);
      publish_counters();  // the warm-up's forwards
      std::lock_guard lock(mu_);
      info_ = std::move(info);
      capacity_ = cap;
      return true;
    } catch (const std::exception& e) {
      spdlog::error("engine: creating the backend failed (attempt {}/{}): {}", attempt, opt_.max_recovery_attempts,
                    e.what());
      {
        std::lock_guard lock(mu_);
        last_error_ = e.what();
      }
      backend_.reset();
      if (attempt < opt_.max_recovery_attempts) {
        std::unique_lock lock(mu_);
        if (cv_.wait_for(lock, opt_.recovery_backoff * attempt, [&] { return stop_; })) return false;
      }
    }
  }
  return false;
}

void Scheduler::run() {
  // Initial creation: the backend lives and dies on this thread (CUDA contexts, BLAS pools).
  if (!create_backend()) {
    std::lock_guard lock(mu_);
    state_ = State::failed;
    idle_cv_.notify_all();
    return;
  }
  {
    std::lock_guard lock(mu_);
    accepting_ = !stop_;
    state_ = stop_ ? State::stopped : State::ready;
  }
  idle_cv_.notify_all();

  std::vector<Entry> batch;
  std::vector<Entry> dropped;
  for (;;) {
    batch.clear();
    dropped.clear();
    {
      std::unique_lock lock(mu_);
      if (queue_.empty() && !stop_ && opt_.idle_poll.count() > 0) {
        const uint64_t seen = kicks_.load(std::memory_order_acquire);
        lock.unlock();
        poll_for_work(seen);
        lock.lock();
      }
      // Always re-checked under the lock: a submit during or after the poll is never missed.
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) break;
      if (opt_.batch_wait.count() > 0) {
        // Arrival-anchored: never delay the oldest request by more than batch_wait.
        const auto until = queue_.front().enqueued + opt_.batch_wait;
        cv_.wait_until(lock, until, [&] {
          if (stop_) return true;
          int64_t rows = 0, tokens = 0, markers = 0;
          for (const auto& e : queue_) {
            rows += e.job.batch->rows();
            tokens += e.job.batch->tokens();
            markers += e.job.batch->total_markers();
          }
          const engine::BatchCapacity limits = batch_limits();
          return rows >= limits.max_rows || tokens >= limits.max_tokens || markers >= limits.max_markers;
        });
        if (stop_) break;
      }
      const auto now = Clock::now();
      int64_t rows = 0, tokens = 0, markers = 0;
      const engine::BatchCapacity limits = batch_limits();
      while (!queue_.empty()) {
        Entry& e = queue_.front();
        const bool gone = e.job.cancelled && e.job.cancelled->load();
        if (gone || e.job.deadline <= now) {
          dropped.push_back(std::move(e));
          queue_.pop_front();
          continue;
        }
        const int32_t r = e.job.batch->rows(), t = e.job.batch->tokens(), k = e.job.batch->total_markers();
        if (!batch.empty() && !limits.fits(rows + r, tokens + t, markers + k)) break;
        rows += r;
        tokens += t;
        markers += k;
        batch.push_back(std::move(e));
        queue_.pop_front();
      }
      running_batch_ = !batch.empty();
    }
    for (auto& e : dropped) {
      release_ticket();
      const bool gone = e.job.cancelled && e.job.cancelled->load();
      finish(e, gone ? Outcome::Status::cancelled : Outcome::Status::deadline);
    }
    for (size_t i = 0; i < batch.size(); ++i) release_ticket();
    if (!batch.empty()) run_batch(batch);
    {
      std::lock_guard lock(mu_);
      running_batch_ = false;
    }
    idle_cv_.notify_all();
    if (state_.load() == State::failed) {
      fail_all_queued(Outcome::Status::unavailable);
      break;
    }
  }
  backend_.reset();
}

void Scheduler::poll_for_work(uint64_t seen) {
  // Spin until submit or stop bumps kicks_, at most idle_poll: a blocked executor would need a
  // wake-up (~40 us on a VM whose idle vCPUs halt) for a job that arrives right after a batch.
  // Every few microseconds the loop yields: when no core is free, the threads that must run for
  // the next job to arrive (I/O, the client) are queued behind this one, and a spinner that does
  // not yield keeps them waiting (measured on 2 vCPUs, c = 1, instant forward: an overhead of
  // ~280 us instead of ~35 us, docs/benchmarks/http.md). With nothing else runnable, sched_yield
  // returns at once.
  const auto until = Clock::now() + opt_.idle_poll;
  for (;;) {
    for (int i = 0; i < 64; ++i) {  // read the clock every 64 checks (a few microseconds)
      if (kicks_.load(std::memory_order_acquire) != seen) return;
      cpu_relax();
    }
    if (Clock::now() >= until) return;
    std::this_thread::yield();
  }
}

void Scheduler::run_batch(std::vector<Entry>& entries) {
  const auto start = Clock::now();
  // One request: run its batch as is; several: pack their rows back to back.
  engine::Batch packed;
  const engine::Batch* input = entries.front().job.batch.get();
  if (entries.size() > 1) {
    for (const auto& e : entries) packed.append(*e.job.batch);
    input = &packed;
  }
  BatchStats stats;
  stats.pack_ms = ms_between(start, Clock::now());
  stats.requests = static_cast<int32_t>(entries.size());
  stats.rows = input->rows();
  stats.tokens = input->tokens();

  engine::ForwardResult result;
  std::string error;
  bool ok = false;
  bool refused = true;  // nothing reached the backend: the batch was refused before its forward
  try {
    // A single request larger than one forward takes runs in parts; a row that fits no forward
    // (too_large) is the request's problem, not the backend's: no recovery for it.
    const std::vector<engine::RowRange> parts = engine::split_rows(*input, backend_->capacity());
    refused = false;
    if (opt_.fault_delay.count() > 0) std::this_thread::sleep_for(opt_.fault_delay);
    const int64_t n = forwards_.fetch_add(1) + 1;
    if (opt_.fault_forward > 0 && n == opt_.fault_forward) {
      LAYA_FAIL(ErrorKind::internal, "injected fault in forward {}", n);
    }
    result = engine::forward_parts(*backend_, *input, parts);
    LAYA_ASSERT(result.logits.size() == static_cast<size_t>(input->total_markers()),
                "backend returned {} logits for {} markers", result.logits.size(), input->total_markers());
    LAYA_ASSERT(result.n_act >= 1 && result.act_logits.size() == static_cast<size_t>(input->rows()) * result.n_act,
                "backend returned {} action logits for {} rows", result.act_logits.size(), input->rows());
    ok = true;
  } catch (const std::exception& e) {
    error = e.what();
  }
  const auto end = Clock::now();
  stats.inference_ms = ms_between(start, end);
  stats.failed = !ok;
  publish_counters();  // before any job hears of this forward
  if (opt_.on_batch) opt_.on_batch(stats);

  size_t marker_pos = 0, row_pos = 0;
  for (auto& e : entries) {
    Outcome o;
    o.queue_ms = ms_between(e.enqueued, start);
    o.inference_ms = stats.inference_ms;
    o.batch_requests = stats.requests;
    o.batch_rows = stats.rows;
    o.batch_tokens = stats.tokens;
    const auto& b = *e.job.batch;
    if (ok) {
      o.status = Outcome::Status::ok;
      o.n_act = result.n_act;
      const size_t nm = static_cast<size_t>(b.total_markers());
      const size_t na = static_cast<size_t>(b.rows()) * static_cast<size_t>(result.n_act);
      o.logits.assign(result.logits.begin() + static_cast<std::ptrdiff_t>(marker_pos),
                      result.logits.begin() + static_cast<std::ptrdiff_t>(marker_pos + nm));
      o.act_logits.assign(result.act_logits.begin() + static_cast<std::ptrdiff_t>(row_pos),
                          result.act_logits.begin() + static_cast<std::ptrdiff_t>(row_pos + na));
      marker_pos += nm;
      row_pos += na;
    } else {
      o.status = Outcome::Status::failed;
    }
    if (e.job.done) e.job.done(std::move(o));
  }
  if (refused) {
    spdlog::warn("engine: {} request(s) refused: {}", entries.size(), error);
    return;
  }
  if (ok) {
    // Refresh what /info and /metrics report (device memory moves with graph caches), at most 1/s,
    // here because the backend may only be touched from this thread.
    if (end - info_refreshed_ > std::chrono::seconds(1)) {
      info_refreshed_ = end;
      try {
        auto info = backend_->info();
        std::lock_guard lock(mu_);
        info_ = std::move(info);
      } catch (const std::exception& e) {
        spdlog::warn("engine: backend info failed: {}", e.what());
      }
    }
    return;
  }

  // The backend may be poisoned (e.g. a sticky CUDA error): drop it and build a fresh one.
  spdlog::error("engine: forward failed for {} request(s) ({} rows): {}; recovering", entries.size(), stats.rows,
                error);
  {
    std::lock_guard lock(mu_);
    last_error_ = error;
    if (state_.load() == State::ready) state_ = State::recovering;
    counters_.cached_graphs = 0;  // the graphs go with the backend; the counts carry over
    counters_base_ = counters_;
  }
  backend_.reset();
  recoveries_.fetch_add(1);
  if (create_backend()) {
    std::lock_guard lock(mu_);
    if (state_.load() == State::recovering) state_ = State::ready;
    spdlog::warn("engine: recovered after a failed forward");
  } else {
    std::lock_guard lock(mu_);
    accepting_ = false;
    state_ = State::failed;
    spdlog::error("engine: recovery failed, giving up: {}", last_error_);
  }
}

}  // namespace laya::runtime
