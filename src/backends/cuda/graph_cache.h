// Bookkeeping of the CUDA Graph cache: which shape buckets hold a captured graph, in LRU order,
// under a shape-count budget and a byte budget. Plain C++ (no CUDA): the backend asks plan() what
// to do, performs the evictions and the capture, then records the outcome; unit-tested without a
// GPU.
//
// Policy: a hit refreshes recency. A miss evicts least-recently-used entries BEFORE the new graph
// is built until both budgets have room (an exact fit is allowed). A disabled cache (either budget
// 0), a shape whose cost alone exceeds the byte budget and a bucket of more than max_tokens tokens
// (0: no such bound) run eagerly and never begin a capture.
// Admission: with admit_after = N > 1 a bucket is captured on its Nth miss only; the misses before
// run eagerly (Action::defer; the backend calls note_miss). A capture costs milliseconds and an
// eager forward a fraction of one more than a replay, so shapes met once or rarely are cheaper
// eager, and they no longer evict the shapes that recur. The miss counts are bounded: they are
// forgotten once they hold kMissMemory buckets.
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "backends/cuda/bucket.h"

namespace laya::cuda {

class GraphCacheBook {
 public:
  GraphCacheBook(int64_t max_shapes, int64_t max_bytes, int64_t admit_after = 1, int64_t max_tokens = 0);

  enum class Action { hit, capture, eager, defer };  // defer: eager, not admitted yet
  struct Plan {
    Action action = Action::eager;
    std::vector<Bucket> evict;  // for capture: entries to evict first, LRU first
  };

  bool enabled() const { return max_shapes_ > 0 && max_bytes_ > 0; }
  // What to do for `bucket` whose graph would cost `bytes`. Does not change the book.
  Plan plan(const Bucket& bucket, int64_t bytes) const;
  void touch(const Bucket& bucket);                 // a hit: most recent
  void insert(const Bucket& bucket, int64_t bytes);  // after a successful capture (budgets must hold)
  void erase(const Bucket& bucket);                 // after an eviction
  void note_miss(const Bucket& bucket);             // after a deferred miss (Action::defer)
  void clear();
  static constexpr size_t kMissMemory = 4096;
  static constexpr int64_t kMaxAdmitAfter = 1000;  // admit_after's bound (a listed warm-up shape runs that often)

  bool contains(const Bucket& bucket) const { return index_.count(bucket) != 0; }
  int64_t size() const { return static_cast<int64_t>(lru_.size()); }
  int64_t bytes() const { return bytes_; }
  int64_t max_shapes() const { return max_shapes_; }
  int64_t max_bytes() const { return max_bytes_; }
  int64_t admit_after() const { return admit_after_; }
  int64_t max_tokens() const { return max_tokens_; }
  std::vector<Bucket> lru_order() const;  // least recent first

 private:
  struct Entry {
    Bucket bucket;
    int64_t bytes;
  };
  int64_t max_shapes_;
  int64_t max_bytes_;
  int64_t admit_after_;
  int64_t max_tokens_;
  int64_t bytes_ = 0;
  std::unordered_map<Bucket, int64_t, BucketHash> misses_;  // deferred misses of uncached buckets
  std::list<Entry> lru_;  // front = least recent
  std::unordered_map<Bucket, std::list<Entry>::iterator, BucketHash> index_;
};

}  // namespace laya::cuda
