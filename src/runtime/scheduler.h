// Scheduler: bounded admission, cross-request batching and the executor thread that owns the
// Backend.
//
// Requests are admitted (a Ticket, 429 when the queue is full), prepared elsewhere (tokenised on the
// I/O strand or a worker pool), then submitted as Jobs. The executor thread forms a batch as soon
// as it is free (TEI-style: rows from several requests up to max_batch_rows / max_batch_tokens, optionally
// waiting batch_wait after the oldest arrival for more to come), drops jobs whose deadline passed
// or whose client went away, runs ONE Backend::forward (several for a single request larger than
// the backend takes at once: engine/parts.h) and hands every job its slice of the outputs. A
// forward that throws fails the jobs of that batch only; the executor then rebuilds the backend
// through the factory (bounded attempts) while the other jobs stay queued.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend.h"
#include "engine/batch.h"

namespace laya::runtime {

using Clock = std::chrono::steady_clock;
using BackendFactory = std::function<std::unique_ptr<engine::Backend>()>;

struct BatchStats {
  int32_t requests = 0;
  int32_t rows = 0;
  int32_t tokens = 0;
  double inference_ms = 0;  // wall time of Backend::forward, packing included
  double pack_ms = 0;       // of it, packing the requests' rows into one batch (several requests)
  bool failed = false;
};

struct SchedulerOptions {
  size_t queue_capacity = 256;       // admitted and not yet running (preparing or queued)
  // Rows (questions) and tokens per forward, both also capped at the backend's capacity
  // (Backend::capacity). A larger single request runs alone, in parts where it exceeds the capacity.
  int32_t max_batch_rows = 64;
  int32_t max_batch_tokens = 16384;
  std::chrono::microseconds batch_wait{0};  // extra wait after the oldest arrival to fill a batch
  // When the queue is empty, poll it this long before blocking on the condition variable: a job
  // submitted meanwhile is taken without a thread wake-up (runtime/busy_poll.h). 0: block at once.
  std::chrono::microseconds idle_poll{0};
  int32_t max_recovery_attempts = 3;        // backend rebuilds after a failure before giving up
  std::chrono::milliseconds recovery_backoff{100};
  // Runs on the executor thread after each (re)creation, before the scheduler reports ready; a
  // throw counts as a failed creation.
  std::function<void(engine::Backend&)> warmup;
  std::function<void(const BatchStats&)> on_batch;  // called on the executor thread
  // Test-only fault injection: forward number N (1-based, counting served batches) throws once;
  // every forward first sleeps fault_delay.
  int64_t fault_forward = 0;
  std::chrono::milliseconds fault_delay{0};
};

enum class State { starting, ready, recovering, draining, stopped, failed };
const char* to_string(State s);

struct Outcome {
  enum class Status { ok, cancelled, deadline, failed, unavailable };
  Status status = Status::failed;
  std::vector<float> logits;      // this job's markers
  std::vector<float> act_logits;  // this job's rows x n_act
  int32_t n_act = 2;
  double queue_ms = 0;      // submit -> batch start
  double inference_ms = 0;  // the forward this job rode in
  int32_t batch_requests = 0, batch_rows = 0, batch_tokens = 0;
};

struct Job {
  std::shared_ptr<const engine::Batch> batch;
  Clock::time_point deadline = Clock::time_point::max();
  std::shared_ptr<std::atomic<bool>> cancelled;  // set by the transport when the client goes away
  // Called exactly once, on the executor thread: keep it short (post the rest elsewhere).
  std::function<void(Outcome&&)> done;
};

class Scheduler;

// A reserved place in the admission queue. Released on destruction unless submitted.
class Ticket {
 public:
  Ticket() = default;
  Ticket(Ticket&& o) noexcept : owner_(o.owner_) { o.owner_ = nullptr; }
  Ticket& operator=(Ticket&& o) noexcept;
  ~Ticket();
  explicit operator bool() const { return owner_ != nullptr; }

 private:
  friend class Scheduler;
  explicit Ticket(Scheduler* s) : owner_(s) {}
  Scheduler* owner_ = nullptr;
};

class Scheduler {
 public:
  Scheduler(BackendFactory factory, SchedulerOptions options);
  ~Scheduler();  // stop()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Starts the executor thread, which creates the backend and runs the warm-up. Returns once it is
  // ready; throws laya::Error(unavailable) with the cause when creation failed.
  void start();

  // Reserves a queue place. Throws laya::Error(overloaded) when the queue is full and
  // laya::Error(unavailable) when not accepting (starting, draining, stopped, failed).
  Ticket admit();
  // Queues a prepared job. If the scheduler stopped accepting meanwhile, `done` gets unavailable.
  void submit(Ticket&& ticket, Job job);

  // Stops admitting; queued jobs still run. wait_idle() returns when nothing is queued or running.
  void drain();
  bool wait_idle(Clock::time_point until);
  // Stops the executor (queued jobs that did not run get unavailable) and joins it.
  void stop();

  State state() const { return state_.load(); }
  bool ready() const { return state_.load() == State::ready; }
  size_t queue_depth() const;      // jobs queued, not yet running
  size_t pending() const { return pending_.load(); }  // admitted tickets (preparing + queued)
  int64_t forwards() const { return forwards_.load(); }
  int64_t recoveries() const { return recoveries_.load(); }
  // Info of the current backend (empty fields while none exists). Safe from any thread.
  engine::BackendInfo backend_info() const;
  // What one forward of the current backend takes (Backend::capacity). Safe from any thread.
  engine::BatchCapacity backend_capacity() const;
  // How the forwards ran (Backend::counters), summed over every backend this scheduler built
  // (rebuilds after failures included), refreshed after each forward. Safe from any thread.
  engine::BackendCounters backend_counters() const;

 private:
  friend class Ticket;
  struct Entry {
    Job job;
    Clock::time_point enqueued;
  };
  void release_ticket() { pending_.fetch_sub(1); }
  void run();
  bool create_backend();  // executor thread; false after exhausting attempts
  engine::BatchCapacity batch_limits() const;  // mu_ held: the options' rows and tokens within capacity_
  void poll_for_work(uint64_t seen);  // executor thread, mu_ not held
  void run_batch(std::vector<Entry>& entries);
  void publish_counters();  // executor thread: counters_ = counters_base_ + the backend's
  void fail_all_queued(Outcome::Status status);
  static void finish(Entry& e, Outcome::Status status);

  BackendFactory factory_;
  SchedulerOptions opt_;
  std::unique_ptr<engine::Backend> backend_;  // executor thread only
  Clock::time_point info_refreshed_{};          // executor thread only
  engine::BackendCounters counters_base_;       // executor thread only: of the backends dropped so far

  mutable std::mutex mu_;
  std::condition_variable cv_;       // executor wake-ups
  std::condition_variable idle_cv_;  // wait_idle / start
  std::deque<Entry> queue_;
  bool running_batch_ = false;
  bool stop_ = false;
  bool accepting_ = false;
  bool started_ = false;
  std::string last_error_;
  engine::BackendInfo info_;
  engine::BatchCapacity capacity_;  // the current backend's (Backend::capacity)
  engine::BackendCounters counters_;

  // Bumped (under mu_) by submit and stop: lets the executor poll for work without the lock.
  std::atomic<uint64_t> kicks_{0};
  std::atomic<State> state_{State::starting};
  std::atomic<size_t> pending_{0};
  std::atomic<int64_t> forwards_{0};
  std::atomic<int64_t> recoveries_{0};
  std::thread thread_;
};

}  // namespace laya::runtime
