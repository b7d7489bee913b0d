#include "backends/cuda/graph_cache.h"

#include "laya/errors.h"

namespace laya::cuda {

GraphCacheBook::GraphCacheBook(int64_t max_shapes, int64_t max_bytes, int64_t admit_after, int64_t max_tokens)
    : max_shapes_(max_shapes), max_bytes_(max_bytes), admit_after_(admit_after), max_tokens_(max_tokens) {
  LAYA_REQUIRE(max_shapes >= 0 && max_bytes >= 0, ErrorKind::bad_request,
               "graph cache budgets must be >= 0 (shapes {}, bytes {})", max_shapes, max_bytes);
  LAYA_REQUIRE(max_tokens >= 0, ErrorKind::bad_request, "graph cache token bound must be >= 0 (got {})", max_tokens);
  LAYA_REQUIRE(admit_after >= 1 && admit_after <= kMaxAdmitAfter, ErrorKind::bad_request,
               "graph cache admission must be at 1..{} misses (got {})", kMaxAdmitAfter, admit_after);
}

GraphCacheBook::Plan GraphCacheBook::plan(const Bucket& bucket, int64_t bytes) const {
  Plan p;
  if (contains(bucket)) {
    p.action = Action::hit;
    return p;
  }
  if (!enabled() || bytes > max_bytes_ || (max_tokens_ > 0 && bucket.tokens > max_tokens_)) return p;  // eager
  const auto seen = misses_.find(bucket);
  if ((seen == misses_.end() ? 0 : seen->second) + 1 < admit_after_) {
    p.action = Action::defer;
    return p;
  }
  p.action = Action::capture;
  int64_t n = size();
  int64_t b = bytes_;
  for (auto it = lru_.begin(); it != lru_.end() && (n + 1 > max_shapes_ || b + bytes > max_bytes_); ++it) {
    p.evict.push_back(it->bucket);
    --n;
    b -= it->bytes;
  }
  return p;
}

void GraphCacheBook::touch(const Bucket& bucket) {
  auto it = index_.find(bucket);
  LAYA_ASSERT(it != index_.end(), "touch of uncached bucket {}", bucket.to_string());
  lru_.splice(lru_.end(), lru_, it->second);
}

void GraphCacheBook::insert(const Bucket& bucket, int64_t bytes) {
  LAYA_ASSERT(!contains(bucket), "bucket {} cached twice", bucket.to_string());
  LAYA_ASSERT(size() + 1 <= max_shapes_ && bytes_ + bytes <= max_bytes_,
              "insert of {} ({} bytes) breaks the budget ({} shapes / {} bytes in use)", bucket.to_string(), bytes,
              size(), bytes_);
  misses_.erase(bucket);
  lru_.push_back(Entry{bucket, bytes});
  index_[bucket] = std::prev(lru_.end());
  bytes_ += bytes;
}

void GraphCacheBook::erase(const Bucket& bucket) {
  auto it = index_.find(bucket);
  if (it == index_.end()) return;
  bytes_ -= it->second->bytes;
  lru_.erase(it->second);
  index_.erase(it);
}

void GraphCacheBook::note_miss(const Bucket& bucket) {
  if (misses_.size() >= kMissMemory && misses_.count(bucket) == 0) misses_.clear();
  ++misses_[bucket];
}

void GraphCacheBook::clear() {
  misses_.clear();
  lru_.clear();
  index_.clear();
  bytes_ = 0;
}

std::vector<Bucket> GraphCacheBook::lru_order() const {
  std::vector<Bucket> out;
  for (const auto& e : lru_) out.push_back(e.bucket);
  return out;
}

}  // namespace laya::cuda
