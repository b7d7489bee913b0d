// Pipeline: what the runtime needs from the request-side stages (api/ -> prompt/ -> decode/),
// reduced to two calls so that scheduling can be tested without a model.
//
//   prepare(body)  JSON text -> Prepared (validated request + packed rows); runs on a worker thread;
//                  throws laya::Error with the official status/text for bad input.
//   render(...)    this request's slice of the forward outputs -> response JSON text.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/batch.h"

namespace laya::runtime {

class Prepared {
 public:
  virtual ~Prepared() = default;
  // The rows of this request (one per question). The runtime appends them to a cross-request batch.
  virtual const engine::Batch& batch() const = 0;
  // Called once with this request's logits (one per marker of `batch`) and action logits
  // (n_act per row of `batch`). Runs on a worker thread.
  virtual std::string render(std::span<const float> logits, std::span<const float> act_logits,
                             int32_t n_act) const = 0;
};

class Pipeline {
 public:
  virtual ~Pipeline() = default;
  virtual std::unique_ptr<Prepared> prepare(std::string_view body) const = 0;
};

}  // namespace laya::runtime
