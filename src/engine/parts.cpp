#include "engine/parts.h"

#include "laya/errors.h"

namespace laya::engine {

std::vector<RowRange> split_rows(const Batch& batch, const BatchCapacity& cap) {
  std::vector<RowRange> out;
  if (cap.fits(batch.rows(), batch.tokens(), batch.total_markers())) {
    out.push_back({0, batch.rows()});
    return out;
  }
  RowRange cur;
  int64_t tokens = 0, markers = 0;
  for (int32_t r = 0; r < batch.rows(); ++r) {
    const int32_t t = batch.row_length(r), k = batch.row_markers(r);
    LAYA_REQUIRE(cap.fits(1, t, k), ErrorKind::too_large,
                 "a row of {} tokens and {} option markers exceeds what one forward takes ({} tokens, {} markers)", t, k,
                 cap.max_tokens, cap.max_markers);
    if (cur.count > 0 && !cap.fits(cur.count + 1, tokens + t, markers + k)) {
      out.push_back(cur);
      cur = {r, 0};
      tokens = markers = 0;
    }
    ++cur.count;
    tokens += t;
    markers += k;
  }
  if (cur.count > 0) out.push_back(cur);
  return out;
}

ForwardResult forward_parts(Backend& backend, const Batch& batch, const std::vector<RowRange>& parts) {
  if (parts.size() == 1 && parts.front().first == 0 && parts.front().count == batch.rows()) return backend.forward(batch);
  ForwardResult all;
  for (const RowRange& p : parts) {
    ForwardResult r = backend.forward(batch.slice(p.first, p.count));
    all.n_act = r.n_act;
    all.logits.insert(all.logits.end(), r.logits.begin(), r.logits.end());
    all.act_logits.insert(all.act_logits.end(), r.act_logits.begin(), r.act_logits.end());
  }
  return all;
}

ForwardResult forward_in_parts(Backend& backend, const Batch& batch) {
  return forward_parts(backend, batch, split_rows(batch, backend.capacity()));
}

}  // namespace laya::engine
