#include "runtime/scheduler.h"

#include <gtest/gtest.h>

#include <future>
#include <numeric>

#include "fake_backend.h"
#include "laya/errors.h"
#include "runtime/busy_poll.h"
#include "runtime/worker_pool.h"

namespace laya::runtime {
namespace {

using test::FakeBackendControl;
using test::fake_factory;

// A request of `rows` rows; row r has `len` tokens valued base+r*len+i, markers at 0 and len-1.
std::shared_ptr<engine::Batch> make_batch(int rows, int len, int base) {
  auto b = std::make_shared<engine::Batch>();
  for (int r = 0; r < rows; ++r) {
    std::vector<int32_t> ids(static_cast<size_t>(len));
    std::iota(ids.begin(), ids.end(), base + r * len);
    std::vector<int32_t> m{0, len - 1};
    b->add_row(ids, m, r % 3);
  }
  return b;
}

struct Result {
  std::promise<Outcome> p;
};

std::future<Outcome> submit(Scheduler& s, std::shared_ptr<engine::Batch> b,
                            Clock::time_point deadline = Clock::time_point::max(),
                            std::shared_ptr<std::atomic<bool>> cancelled = nullptr) {
  auto r = std::make_shared<std::promise<Outcome>>();
  auto f = r->get_future();
  Job j;
  j.batch = std::move(b);
  j.deadline = deadline;
  j.cancelled = std::move(cancelled);
  j.done = [r](Outcome&& o) { r->set_value(std::move(o)); };
  s.submit(s.admit(), std::move(j));
  return f;
}

// Blocks until `n` forwards have started (bounded: 10 s, then the test fails).
void wait_until_entered(const FakeBackendControl& c, int n) {
  for (int i = 0; i < 10000 && c.entered.load() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_GE(c.entered.load(), n) << "the backend never started a forward";
}

void expect_own_slice(const Outcome& o, int rows, int len, int base) {
  ASSERT_EQ(o.status, Outcome::Status::ok);
  ASSERT_EQ(o.logits.size(), static_cast<size_t>(rows * 2));
  ASSERT_EQ(o.act_logits.size(), static_cast<size_t>(rows * 2));
  for (int r = 0; r < rows; ++r) {
    EXPECT_EQ(o.logits[r * 2], base + r * len);
    EXPECT_EQ(o.logits[r * 2 + 1], base + r * len + len - 1);
    EXPECT_EQ(o.act_logits[r * 2], len);
    EXPECT_EQ(o.act_logits[r * 2 + 1], base + r * len);
  }
}

TEST(Scheduler, SingleRequestGetsItsOutputs) {
  auto c = std::make_shared<FakeBackendControl>();
  Scheduler s(fake_factory(c), {});
  s.start();
  EXPECT_TRUE(s.ready());
  auto f = submit(s, make_batch(3, 5, 10));
  expect_own_slice(f.get(), 3, 5, 10);
  EXPECT_EQ(c->forwards.load(), 1);
}

TEST(Scheduler, BatchesQueuedRequestsAndSplitsOutputsBack) {
  auto c = std::make_shared<FakeBackendControl>();
  SchedulerOptions opt;
  opt.max_batch_rows = 64;
  std::vector<BatchStats> stats;  // executor thread; read after every job's outcome arrived
  opt.on_batch = [&stats](const BatchStats& st) { stats.push_back(st); };
  Scheduler s(fake_factory(c), opt);
  s.start();
  c->hold = true;  // the first forward holds the executor while the others queue up
  std::vector<std::future<Outcome>> fs;
  fs.push_back(submit(s, make_batch(1, 4, 0)));
  wait_until_entered(*c, 1);
  for (int i = 1; i <= 8; ++i) fs.push_back(submit(s, make_batch(1 + i % 3, 3 + i, 1000 * i)));
  EXPECT_EQ(s.queue_depth(), 8u);
  c->hold = false;
  expect_own_slice(fs[0].get(), 1, 4, 0);
  int batched = 0;
  for (int i = 1; i <= 8; ++i) {
    auto o = fs[static_cast<size_t>(i)].get();
    expect_own_slice(o, 1 + i % 3, 3 + i, 1000 * i);
    batched = std::max(batched, o.batch_requests);
  }
  // The 8 requests queued behind the first ran together in one forward.
  EXPECT_EQ(batched, 8);
  EXPECT_EQ(c->forwards.load(), 2);
  // What the executor reported (on_batch runs before the jobs hear of their forward).
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].requests, 1);
  EXPECT_EQ(stats[1].requests, 8);
  EXPECT_EQ(stats[1].rows, 17);  // 1 + i % 3 rows for i = 1..8
  for (const BatchStats& st : stats) {
    EXPECT_FALSE(st.failed);
    EXPECT_GE(st.pack_ms, 0.0);
    EXPECT_LE(st.pack_ms, st.inference_ms);  // packing is part of the forward's wall time
  }
}

TEST(Scheduler, RespectsRowBudget) {
  auto c = std::make_shared<FakeBackendControl>();
  SchedulerOptions opt;
  opt.max_batch_rows = 4;
  Scheduler s(fake_factory(c), opt);
  s.start();
  c->hold = true;
  std::vector<std::future<Outcome>> fs;
  fs.push_back(submit(s, make_batch(1, 4, 0)));
  wait_until_entered(*c, 1);
  for (int i = 0; i < 6; ++i) fs.push_back(submit(s, make_batch(2, 4, 100 * i)));
  c->hold = false;
  for (auto& f : fs) EXPECT_EQ(f.get().status, Outcome::Status::ok);
  EXPECT_LE(c->max_rows_seen.load(), 4);
  EXPECT_EQ(c->forwards.load(), 4);  // 1 + 3 batches of two 2-row requests
}

TEST(Scheduler, OversizedSingleRequestRunsAlone) {
  auto c = std::make_shared<FakeBackendControl>();
  SchedulerOptions opt;
  opt.max_batch_rows = 2;
  opt.max_batch_tokens = 4;
  Scheduler s(fake_factory(c), opt);
  s.start();
  expect_own_slice(submit(s, make_batch(5, 7, 3)).get(), 5, 7, 3);
}

// A backend that takes less than the options allow (the CUDA engine: 64 rows, 16 x max_len tokens,
// 4,096 markers): batches are formed within its capacity, and a single request beyond it runs in
// parts — never a refused forward, a failed request or a backend rebuild.
TEST(Scheduler, SingleRequestBeyondTheBackendsCapacityRunsInParts) {
  auto c = std::make_shared<FakeBackendControl>();
  c->capacity = {4, 1000, 1000};
  Scheduler s(fake_factory(c), {});  // 64 rows, 16,384 tokens
  s.start();
  expect_own_slice(submit(s, make_batch(10, 6, 7)).get(), 10, 6, 7);
  EXPECT_EQ(c->forwards.load(), 3);  // 4 + 4 + 2 rows
  EXPECT_LE(c->max_rows_seen.load(), 4);
  EXPECT_EQ(s.recoveries(), 0);
  EXPECT_EQ(c->created.load(), 1);
}

TEST(Scheduler, BatchesStayWithinTheBackendsCapacity) {
  auto c = std::make_shared<FakeBackendControl>();
  c->capacity = {64, 20, 1000};
  Scheduler s(fake_factory(c), {});
  s.start();
  c->hold = true;
  std::vector<std::future<Outcome>> fs;
  fs.push_back(submit(s, make_batch(1, 4, 0)));
  wait_until_entered(*c, 1);
  for (int i = 1; i <= 6; ++i) fs.push_back(submit(s, make_batch(2, 5, 100 * i)));  // 10 tokens each
  c->hold = false;
  expect_own_slice(fs[0].get(), 1, 4, 0);
  for (int i = 1; i <= 6; ++i) expect_own_slice(fs[static_cast<size_t>(i)].get(), 2, 5, 100 * i);
  EXPECT_LE(c->max_tokens_seen.load(), 20);
  EXPECT_EQ(c->forwards.load(), 4);  // 1 + 3 batches of two requests
  EXPECT_EQ(s.recoveries(), 0);
}

TEST(Scheduler, ARowBeyondTheCapacityFailsItsRequestWithoutARebuild) {
  auto c = std::make_shared<FakeBackendControl>();
  c->capacity = {64, 4, 1000};
  Scheduler s(fake_factory(c), {});
  s.start();
  EXPECT_EQ(submit(s, make_batch(1, 5, 0)).get().status, Outcome::Status::failed);
  EXPECT_EQ(c->forwards.load(), 0);
  EXPECT_EQ(s.recoveries(), 0);
  EXPECT_EQ(c->created.load(), 1);
  EXPECT_TRUE(s.ready());
  expect_own_slice(submit(s, make_batch(3, 4, 9)).get(), 3, 4, 9);  // the same backend serves on
}

TEST(Scheduler, QueueFullIsOverloaded) {
  auto c = std::make_shared<FakeBackendControl>();
  SchedulerOptions opt;
  opt.queue_capacity = 2;
  Scheduler s(fake_factory(c), opt);
  s.start();
  Ticket a = s.admit();
  Ticket b = s.admit();
  try {
    (void)s.admit();
    FAIL() << "third admit should throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::overloaded);
  }
  { Ticket drop = std::move(a); }  // released
  Ticket again = s.admit();
  EXPECT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(s.pending(), 2u);
}

TEST(Scheduler, ExpiredAndCancelledJobsNeverReachTheModel) {
  auto c = std::make_shared<FakeBackendControl>();
  Scheduler s(fake_factory(c), {});
  s.start();
  c->hold = true;
  auto first = submit(s, make_batch(1, 3, 0));
  wait_until_entered(*c, 1);
  const auto deadline = Clock::now() + std::chrono::milliseconds(1);
  auto expired = submit(s, make_batch(1, 3, 0), deadline);
  auto flag = std::make_shared<std::atomic<bool>>(false);
  auto gone = submit(s, make_batch(1, 3, 0), Clock::time_point::max(), flag);
  flag->store(true);
  std::this_thread::sleep_until(deadline + std::chrono::milliseconds(5));  // expired while queued
  c->hold = false;
  EXPECT_EQ(first.get().status, Outcome::Status::ok);
  EXPECT_EQ(expired.get().status, Outcome::Status::deadline);
  EXPECT_EQ(gone.get().status, Outcome::Status::cancelled);
  EXPECT_EQ(c->forwards.load(), 1);
  EXPECT_EQ(s.pending(), 0u);
}

TEST(Scheduler, InjectedFaultFailsOnlyThatBatchThenRecovers) {
  auto c = std::make_shared<FakeBackendControl>();
  SchedulerOptions opt;
  opt.fault_forward = 2;
  Scheduler s(fake_factory(c), opt);
  s.start();
  EXPECT_EQ(submit(s, make_batch(1, 3, 0)).get().status, Outcome::Status::ok);
  EXPECT_EQ(submit(s, make_batch(1, 3, 0)).get().status, Outcome::Status::failed);
  expect_own_slice(submit(s, make_batch(2, 3, 7)).get(), 2, 3, 7);
  EXPECT_EQ(c->created.load(), 2);  // rebuilt once
  EXPECT_EQ(s.recoveries(), 1);
  EXPECT_TRUE(s.ready());
}

// What the backend counts (graph replays, captures) is summed over the backends the scheduler
// built: a rebuild after a failure does not reset /metrics' counters; the cached-graph level is the
// current backend's.
TEST(Scheduler, BackendCountersCarryOverARebuild) {
  auto c = std::make_shared<FakeBackendControl>();
  c->graph_counters = true;
  SchedulerOptions opt;
  opt.fault_forward = 3;  // forwards 1-2 on the first backend, 3 fails before it, 4-5 on the second
  Scheduler s(fake_factory(c), opt);
  EXPECT_FALSE(s.backend_counters().graphs);  // nothing built yet
  s.start();
  EXPECT_TRUE(s.backend_counters().graphs);
  EXPECT_EQ(s.backend_counters().graph_captures, 1);
  for (int i = 0; i < 5; ++i) (void)submit(s, make_batch(1, 3, 0)).get();
  EXPECT_EQ(c->created.load(), 2);
  const engine::BackendCounters k = s.backend_counters();
  EXPECT_EQ(k.graph_replays, 4);
  EXPECT_EQ(k.graph_captures, 2);
  EXPECT_DOUBLE_EQ(k.capture_seconds, 0.5);
  EXPECT_EQ(k.cached_graphs, 1);
}

TEST(Scheduler, GivesUpAfterBoundedRecoveryAttempts) {
  auto c = std::make_shared<FakeBackendControl>();
  SchedulerOptions opt;
  opt.fault_forward = 1;
  opt.max_recovery_attempts = 2;
  opt.recovery_backoff = std::chrono::milliseconds(1);
  Scheduler s(fake_factory(c), opt);
  s.start();
  c->fail_creations = 5;
  EXPECT_EQ(submit(s, make_batch(1, 3, 0)).get().status, Outcome::Status::failed);
  for (int i = 0; i < 100 && s.state() != State::failed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(s.state(), State::failed);
  EXPECT_EQ(c->created.load(), 3);  // initial + 2 attempts
  EXPECT_THROW((void)s.admit(), Error);
}

TEST(Scheduler, StartFailureIsReported) {
  auto c = std::make_shared<FakeBackendControl>();
  c->fail_creations = 10;
  SchedulerOptions opt;
  opt.max_recovery_attempts = 1;
  Scheduler s(fake_factory(c), opt);
  EXPECT_THROW(s.start(), Error);
  EXPECT_EQ(s.state(), State::failed);
}

TEST(Scheduler, DrainRunsQueuedWorkAndRefusesNew) {
  auto c = std::make_shared<FakeBackendControl>();
  c->delay_ms = 30;
  Scheduler s(fake_factory(c), {});
  s.start();
  std::vector<std::future<Outcome>> fs;
  for (int i = 0; i < 5; ++i) fs.push_back(submit(s, make_batch(1, 3, i)));
  s.drain();
  EXPECT_EQ(s.state(), State::draining);
  try {
    (void)s.admit();
    FAIL() << "admit while draining should throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unavailable);
  }
  EXPECT_TRUE(s.wait_idle(Clock::now() + std::chrono::seconds(10)));
  for (auto& f : fs) EXPECT_EQ(f.get().status, Outcome::Status::ok);
  s.stop();
}

TEST(Scheduler, BatchWaitCollectsArrivals) {
  auto c = std::make_shared<FakeBackendControl>();
  SchedulerOptions opt;
  opt.batch_wait = std::chrono::milliseconds(200);
  opt.max_batch_rows = 3;
  Scheduler s(fake_factory(c), opt);
  s.start();
  std::vector<std::future<Outcome>> fs;
  for (int i = 0; i < 3; ++i) fs.push_back(submit(s, make_batch(1, 3, i)));
  for (auto& f : fs) EXPECT_EQ(f.get().batch_requests, 3);  // row budget reached: no need to wait
  EXPECT_EQ(c->forwards.load(), 1);
}

TEST(BusyPoll, OptionValuesAndLimits) {
  using std::chrono::microseconds;
  EXPECT_EQ(resolve_busy_poll("auto", "cuda"), kAutoBusyPollCuda);
  EXPECT_EQ(resolve_busy_poll("auto", "cpu"), microseconds{0});  // the CPU forward needs every core
  EXPECT_EQ(resolve_busy_poll("0", "cuda"), microseconds{0});
  EXPECT_EQ(resolve_busy_poll("250", "cpu"), microseconds{250});
  EXPECT_EQ(resolve_busy_poll("10000", "cpu"), kMaxBusyPoll);
  for (const char* bad : {"10001", "-1", "", "abc", "12us", " 5", "1e3", "99999999999999999999"}) {
    try {
      (void)resolve_busy_poll(bad, "cuda");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_request) << bad;
      EXPECT_NE(std::string(e.what()).find("--busy-poll-us"), std::string::npos) << e.what();
    }
  }
}

// With idle polling, every job is still taken: submits that land during the poll, right at its
// end (1 us budget: the race between the poll ending and the condition-variable wait) or after it.
TEST(Scheduler, IdlePollingTakesEveryJob) {
  for (const auto poll : {std::chrono::microseconds{1}, std::chrono::microseconds{50}, kMaxBusyPoll}) {
    auto c = std::make_shared<FakeBackendControl>();
    SchedulerOptions opt;
    opt.idle_poll = poll;
    Scheduler s(fake_factory(c), opt);
    s.start();
    for (int i = 0; i < 300; ++i) {
      auto f = submit(s, make_batch(1, 3, i));
      ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "job " << i << " lost";
      expect_own_slice(f.get(), 1, 3, i);
      if (i % 100 == 99) std::this_thread::sleep_for(2 * poll);  // the executor has gone to sleep
    }
    EXPECT_EQ(c->forwards.load(), 300);
  }
}

// stop() ends the executor's poll at once instead of waiting out its budget (10 ms here, the
// maximum; a normal stop takes well under a millisecond).
TEST(Scheduler, StopInterruptsIdlePolling) {
  auto c = std::make_shared<FakeBackendControl>();
  SchedulerOptions opt;
  opt.idle_poll = kMaxBusyPoll;
  opt.idle_poll += std::chrono::seconds(10);  // clamped to kMaxBusyPoll
  Scheduler s(fake_factory(c), opt);
  s.start();
  EXPECT_EQ(submit(s, make_batch(1, 3, 0)).get().status, Outcome::Status::ok);  // the executor now polls
  const auto t0 = Clock::now();
  s.stop();
  EXPECT_LT(Clock::now() - t0, kMaxBusyPoll);
  EXPECT_EQ(s.state(), State::stopped);
}

TEST(WorkerPool, RunsEveryTaskBeforeJoining) {
  std::atomic<int> n{0};
  {
    WorkerPool pool(3);
    for (int i = 0; i < 100; ++i) pool.post([&] { n++; });
  }
  EXPECT_EQ(n.load(), 100);
}

}  // namespace
}  // namespace laya::runtime
