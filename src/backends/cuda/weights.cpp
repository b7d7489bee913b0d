#include "backends/cuda/weights.h"

#include <cstring>
#include <functional>

#include "backends/cpu/ops.h"
#include "backends/cuda/check.h"
#include "checkpoint/convert.h"
#include "model/inventory.h"

namespace laya::cuda {

namespace {

namespace names = model::names;

int64_t align256(int64_t n) { return (n + 255) / 256 * 256; }

// Two passes over the same description: one sums sizes, one converts and uploads.
class Planner {
 public:
  Planner(const checkpoint::SafetensorsFile* st, std::byte* base, Precision precision)
      : st_(st), base_(base), precision_(precision) {}
  int64_t used() const { return at_; }

  // A matrix or Linear bias in the mode's 16-bit type: bf16 rounded from the checkpoint value, or
  // the exact fp16 value.
  const void* mat(const std::string& name) {
    const auto& t = st_->at(name);
    const int64_t off = take(t.numel() * 2);
    if (base_ != nullptr) {
      std::vector<uint16_t> h(static_cast<size_t>(t.numel()));
      if (precision_ == Precision::fp16)
        checkpoint::to_f16(t, h);
      else
        checkpoint::to_bf16(t, h);
      upload(off, h.data(), h.size() * 2);
    }
    return base_ + off;
  }
  const float* f32(const std::string& name) {
    const auto& t = st_->at(name);
    const int64_t off = take(t.numel() * 4);
    if (base_ != nullptr) {
      std::vector<float> h = checkpoint::to_f32(t);
      upload(off, h.data(), h.size() * 4);
    }
    return reinterpret_cast<const float*>(base_ + off);
  }
  const __half* f16(const std::string& name) {
    const auto& t = st_->at(name);
    const int64_t off = take(t.numel() * 2);
    if (base_ != nullptr) {
      std::vector<uint16_t> h(static_cast<size_t>(t.numel()));
      checkpoint::to_f16(t, h);  // exact for the fp16 checkpoint
      upload(off, h.data(), h.size() * 2);
    }
    return reinterpret_cast<const __half*>(base_ + off);
  }
  const float* table(const std::vector<float>& v) {
    const int64_t off = take(static_cast<int64_t>(v.size()) * 4);
    if (base_ != nullptr) upload(off, v.data(), v.size() * 4);
    return reinterpret_cast<const float*>(base_ + off);
  }

 private:
  int64_t take(int64_t bytes) {
    const int64_t off = at_;
    at_ += align256(bytes);
    return off;
  }
  void upload(int64_t off, const void* src, size_t bytes) {
    LAYA_CUDA_CHECK(cudaMemcpy(base_ + off, src, bytes, cudaMemcpyHostToDevice));
  }
  const checkpoint::SafetensorsFile* st_;
  std::byte* base_;
  Precision precision_;
  int64_t at_ = 0;
};

DeviceWeights describe(const checkpoint::Checkpoint& ckpt, int32_t rope_len, Precision precision, std::byte* base) {
  const auto& cfg = ckpt.config();
  Planner p(&ckpt.weights(), base, precision);
  DeviceWeights w;
  w.precision = precision;
  w.tok_emb = p.f16(names::tok_embeddings());
  w.emb_norm = p.f32(names::emb_norm());
  for (int i = 0; i < cfg.encoder.layers; ++i) {
    DeviceEncoderLayer l;
    l.attn_norm = i == 0 ? nullptr : p.f32(names::attn_norm(i));
    l.mlp_norm = p.f32(names::mlp_norm(i));
    l.wqkv = p.mat(names::wqkv(i));
    l.wo = p.mat(names::attn_wo(i));
    l.wi = p.mat(names::wi(i));
    l.mlp_wo = p.mat(names::mlp_wo(i));
    l.global = cfg.encoder.is_global(i);
    w.layers.push_back(l);
  }
  w.final_norm = p.f32(names::final_norm());
  w.type_emb = p.f32(names::type_emb());
  for (int i = 0; i < cfg.head.layers; ++i) {
    DeviceHeadLayer h;
    h.n1_w = p.f32(names::head_norm1_w(i));
    h.n1_b = p.f32(names::head_norm1_b(i));
    h.n2_w = p.f32(names::head_norm2_w(i));
    h.n2_b = p.f32(names::head_norm2_b(i));
    h.in_w = p.mat(names::head_in_proj_w(i));
    h.in_b = p.mat(names::head_in_proj_b(i));
    h.out_w = p.mat(names::head_out_proj_w(i));
    h.out_b = p.mat(names::head_out_proj_b(i));
    h.l1_w = p.mat(names::head_linear1_w(i));
    h.l1_b = p.mat(names::head_linear1_b(i));
    h.l2_w = p.mat(names::head_linear2_w(i));
    h.l2_b = p.mat(names::head_linear2_b(i));
    w.head.push_back(h);
  }
  w.scorer_norm_w = p.f32(names::scorer_norm_w());
  w.scorer_norm_b = p.f32(names::scorer_norm_b());
  w.scorer_fc1_w = p.mat(names::scorer_fc1_w());
  w.scorer_fc1_b = p.mat(names::scorer_fc1_b());
  w.scorer_fc2_w = p.mat(names::scorer_fc2_w());
  w.scorer_fc2_b = p.mat(names::scorer_fc2_b());
  w.act_fc1_w = p.mat(names::act_fc1_w());
  w.act_fc1_b = p.mat(names::act_fc1_b());
  w.act_fc2_w = p.mat(names::act_fc2_w());
  w.act_fc2_b = p.mat(names::act_fc2_b());
  w.rope_len = rope_len;
  if (base != nullptr) {
    const auto g = cpu::make_rope_table(cfg.encoder.global_theta, rope_len, 64);
    const auto l = cpu::make_rope_table(cfg.encoder.local_theta, rope_len, 64);
    w.rope_global_cos = p.table(rope_half_table(g.cos, rope_len));
    w.rope_global_sin = p.table(rope_half_table(g.sin, rope_len));
    w.rope_local_cos = p.table(rope_half_table(l.cos, rope_len));
    w.rope_local_sin = p.table(rope_half_table(l.sin, rope_len));
  } else {
    const std::vector<float> dummy(static_cast<size_t>(rope_len) * 32);
    for (int i = 0; i < 4; ++i) p.table(dummy);
  }
  w.bytes = p.used();
  return w;
}

}  // namespace

std::vector<float> rope_half_table(const std::vector<float>& full, int32_t max_pos) {
  std::vector<float> out(static_cast<size_t>(max_pos) * 32);
  for (int32_t p = 0; p < max_pos; ++p)
    std::memcpy(out.data() + static_cast<size_t>(p) * 32, full.data() + static_cast<size_t>(p) * 64, 32 * 4);
  return out;
}

int64_t device_weight_bytes(const checkpoint::Checkpoint& ckpt, int32_t rope_len) {
  return describe(ckpt, rope_len, Precision::bf16, nullptr).bytes;
}

DeviceWeights upload_weights(const checkpoint::Checkpoint& ckpt, int32_t rope_len, Precision precision) {
  const int64_t bytes = device_weight_bytes(ckpt, rope_len);
  void* block = nullptr;
  LAYA_CUDA_CHECK(cudaMalloc(&block, static_cast<size_t>(bytes)));
  try {
    DeviceWeights w = describe(ckpt, rope_len, precision, static_cast<std::byte*>(block));
    w.block = block;
    LAYA_ASSERT(w.bytes == bytes, "weight layout changed between passes ({} vs {})", w.bytes, bytes);
    return w;
  } catch (...) {
    cudaFree(block);
    throw;
  }
}

void free_weights(DeviceWeights& w) noexcept {
  if (w.block != nullptr) cudaFree(w.block);
  w.block = nullptr;
}

}  // namespace laya::cuda
