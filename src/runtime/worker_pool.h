// WorkerPool: a fixed set of threads running posted tasks in FIFO order (tokenisation, row
// building and response rendering run here, off the I/O threads and off the executor thread).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace laya::runtime {

class WorkerPool {
 public:
  explicit WorkerPool(size_t threads);
  ~WorkerPool();  // runs every task already posted, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Tasks must not throw (an escaping exception is logged and swallowed).
  void post(std::function<void()> task);
  size_t threads() const { return threads_.size(); }

 private:
  void run();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace laya::runtime
