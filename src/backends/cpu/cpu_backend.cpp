#include "backends/cpu/cpu_backend.h"

#include <cblas.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "backends/cpu/ops.h"
#include "checkpoint/convert.h"
#include "laya/errors.h"
#include "model/inventory.h"

namespace laya::cpu {

namespace {

namespace names = model::names;

// Drops this process's resident pages of a tensor's bytes in the read-only mapping (page-aligned
// interior only, so neighbouring tensors are never touched). The file is unchanged; a later read
// faults the pages back in.
void release_pages(const checkpoint::TensorView& t) {
  static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(t.data.data());
  const auto end = begin + t.data.size();
  const uintptr_t a = (begin + page - 1) / page * page;
  const uintptr_t b = end / page * page;
  if (b > a) ::madvise(reinterpret_cast<void*>(a), b - a, MADV_DONTNEED);
}

int64_t vec_bytes(const std::vector<float>& v) { return static_cast<int64_t>(v.size() * sizeof(float)); }

class CpuBackend final : public engine::Backend {
 public:
  CpuBackend(CpuWeights weights, const engine::BackendOptions& options) : w_(std::move(weights)) {
    const auto& ec = w_.config.encoder;
    LAYA_REQUIRE(ec.hidden > 0 && ec.heads > 0 && ec.hidden % ec.heads == 0, ErrorKind::invalid_checkpoint,
                 "encoder hidden size {} is not a multiple of its {} heads", ec.hidden, ec.heads);
    LAYA_REQUIRE(static_cast<int32_t>(w_.layers.size()) == ec.layers &&
                     static_cast<int32_t>(ec.layer_global.size()) == ec.layers,
                 ErrorKind::invalid_checkpoint, "encoder has {} layer weights for {} configured layers",
                 w_.layers.size(), ec.layers);
    set_threads(options.threads);
    threads_ = threads();
    enc_head_dim_ = ec.hidden / ec.heads;
    head_heads_ = std::max(1, ec.hidden / 64);  // nn.TransformerEncoderLayer nhead = max(1, d // 64)
    LAYA_REQUIRE(ec.hidden % head_heads_ == 0, ErrorKind::invalid_checkpoint,
                 "decision head: hidden size {} not divisible by {} heads", ec.hidden, head_heads_);
    max_row_len_ = std::max(ec.max_position_embeddings, w_.config.agent.max_len);
    max_row_len_ = std::max(max_row_len_, 1);
    rope_global_ = make_rope_table(ec.global_theta, max_row_len_, enc_head_dim_);
    rope_local_ = make_rope_table(ec.local_theta, max_row_len_, enc_head_dim_);
  }

  engine::BackendInfo info() const override {
    engine::BackendInfo i;
    i.backend = "cpu";
    i.device = fmt::format("CPU, {} thread{} (OpenBLAS {})", threads_, threads_ == 1 ? "" : "s", openblas_get_corename());
    i.precision = "fp32";
    i.weight_bytes = w_.bytes();
    return i;
  }

  engine::ForwardResult forward(const engine::Batch& batch, engine::DumpSink* dumps) override;

 private:
  void dump(engine::DumpSink* sink, const std::string& name, const float* data, int64_t rows, int64_t cols) {
    if (sink != nullptr && sink->wants(name)) sink->put(name, data, static_cast<size_t>(rows), static_cast<size_t>(cols));
  }
  void embed(const engine::Batch& batch, float* x);

  CpuWeights w_;
  int threads_ = 1;
  int32_t enc_head_dim_ = 64;
  int32_t head_heads_ = 1;
  int32_t max_row_len_ = 0;
  RopeTable rope_global_, rope_local_;
  // Scratch reused across calls (grown, never shrunk).
  std::vector<float> x_, y_, qkv_, attn_, mlp_, gated_;
};

void CpuBackend::embed(const engine::Batch& batch, float* x) {
  const int64_t d = w_.config.encoder.hidden;
  const int64_t tokens = batch.tokens();
  if (!w_.tok_embeddings.empty()) {
    for (int64_t t = 0; t < tokens; ++t) {
      const float* src = w_.tok_embeddings.data() + static_cast<int64_t>(batch.token_ids[t]) * d;
      std::copy(src, src + d, x + t * d);
    }
    return;
  }
  const size_t esize = checkpoint::dtype_size(w_.tok_embeddings_dtype);
  checkpoint::TensorView row;
  row.dtype = w_.tok_embeddings_dtype;
  row.shape = {d};
  for (int64_t t = 0; t < tokens; ++t) {
    const size_t off = static_cast<size_t>(batch.token_ids[t]) * static_cast<size_t>(d) * esize;
    row.data = std::span<const std::byte>(w_.tok_embeddings_raw.data() + off, static_cast<size_t>(d) * esize);
    checkpoint::to_f32(row, std::span<float>(x + t * d, static_cast<size_t>(d)));
  }
}

engine::ForwardResult CpuBackend::forward(const engine::Batch& batch, engine::DumpSink* dumps) {
  const auto& ec = w_.config.encoder;
  batch.validate(ec.vocab_size, max_row_len_);
  const int64_t d = ec.hidden;
  const int64_t inter = ec.intermediate;
  const int64_t tokens = batch.tokens();
  const int32_t rows = batch.rows();
  const float eps = static_cast<float>(ec.norm_eps);
  const int64_t ffn = static_cast<int64_t>(w_.head.empty() ? 0 : w_.head[0].l1_b.size());

  x_.resize(static_cast<size_t>(tokens * d));
  y_.resize(static_cast<size_t>(tokens * d));
  qkv_.resize(static_cast<size_t>(tokens * 3 * d));
  attn_.resize(static_cast<size_t>(tokens * d));
  mlp_.resize(static_cast<size_t>(tokens * std::max<int64_t>(2 * inter, ffn)));
  gated_.resize(static_cast<size_t>(tokens * inter));
  float* x = x_.data();
  float* y = y_.data();
  float* qkv = qkv_.data();
  float* attn = attn_.data();

  engine::ForwardResult result;
  result.n_act = w_.config.head.n_act;

  // ---- encoder (ModernBertModel) ----
  embed(batch, x);
  layer_norm(x, tokens, d, w_.emb_norm.data(), nullptr, eps, x);
  dump(dumps, "embed", x, tokens, d);

  AttentionParams ap;
  ap.q = qkv;
  ap.k = qkv + d;
  ap.v = qkv + 2 * d;
  ap.ld_q = ap.ld_k = ap.ld_v = 3 * d;
  ap.out = attn;
  ap.ld_out = d;
  ap.row_offsets = batch.row_offsets.data();
  ap.rows = rows;

  for (int32_t i = 0; i < ec.layers; ++i) {
    const auto& L = w_.layers[static_cast<size_t>(i)];
    const bool global = ec.is_global(i);
    const float* in = x;
    if (!L.attn_norm.empty()) {
      layer_norm(x, tokens, d, L.attn_norm.data(), nullptr, eps, y);
      in = y;
    }
    linear(in, tokens, d, L.wqkv.data(), nullptr, 3 * d, qkv);
    const RopeTable& table = global ? rope_global_ : rope_local_;
    for (int32_t r = 0; r < rows; ++r) {
      const int64_t off = batch.row_offsets[r];
      const int64_t len = batch.row_length(r);
      rope_rotate_half(qkv + off * 3 * d, len, 3 * d, ec.heads, table);      // q
      rope_rotate_half(qkv + off * 3 * d + d, len, 3 * d, ec.heads, table);  // k
    }
    ap.heads = ec.heads;
    ap.head_dim = enc_head_dim_;
    ap.window_half = global ? -1 : ec.local_window / 2;
    ap.scale = 1.0f / std::sqrt(static_cast<float>(enc_head_dim_));
    attention(ap);
    linear(attn, tokens, d, L.attn_wo.data(), nullptr, d, x, /*accumulate=*/true);
    layer_norm(x, tokens, d, L.mlp_norm.data(), nullptr, eps, y);
    linear(y, tokens, d, L.wi.data(), nullptr, 2 * inter, mlp_.data());
    geglu(mlp_.data(), tokens, inter, gated_.data());
    linear(gated_.data(), tokens, inter, L.mlp_wo.data(), nullptr, d, x, /*accumulate=*/true);
    if (dumps != nullptr) dump(dumps, fmt::format("encoder.{}", i), x, tokens, d);
  }
  layer_norm(x, tokens, d, w_.final_norm.data(), nullptr, eps, x);
  dump(dumps, "final_norm", x, tokens, d);

  // ---- decision head: type_emb at every position, then pre-norm TransformerEncoderLayers ----
  for (int32_t r = 0; r < rows; ++r) {
    const float* te = w_.type_emb.data() + static_cast<int64_t>(batch.qtypes[r]) * d;
    for (int64_t t = batch.row_offsets[r]; t < batch.row_offsets[r + 1]; ++t) {
      float* xt = x + t * d;
      for (int64_t j = 0; j < d; ++j) xt[j] += te[j];
    }
  }
  const float head_eps = 1e-5f;  // nn.TransformerEncoderLayer default layer_norm_eps
  for (size_t l = 0; l < w_.head.size(); ++l) {
    const auto& H = w_.head[l];
    layer_norm(x, tokens, d, H.n1_w.data(), H.n1_b.data(), head_eps, y);
    linear(y, tokens, d, H.in_w.data(), H.in_b.data(), 3 * d, qkv);
    ap.heads = head_heads_;
    ap.head_dim = static_cast<int32_t>(d / head_heads_);
    ap.window_half = -1;
    ap.scale = 1.0f / std::sqrt(static_cast<float>(ap.head_dim));
    attention(ap);
    linear(attn, tokens, d, H.out_w.data(), H.out_b.data(), d, x, /*accumulate=*/true);
    layer_norm(x, tokens, d, H.n2_w.data(), H.n2_b.data(), head_eps, y);
    linear(y, tokens, d, H.l1_w.data(), H.l1_b.data(), ffn, mlp_.data());
    relu(mlp_.data(), tokens * ffn);
    linear(mlp_.data(), tokens, ffn, H.l2_w.data(), H.l2_b.data(), d, x, /*accumulate=*/true);
    if (dumps != nullptr) dump(dumps, fmt::format("head.{}", l), x, tokens, d);
  }

  // ---- scorer at every option marker ----
  const int64_t n_markers = batch.total_markers();
  std::vector<float> m(static_cast<size_t>(n_markers * d));
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t k = batch.marker_offsets[r]; k < batch.marker_offsets[r + 1]; ++k) {
      const float* src = x + (static_cast<int64_t>(batch.row_offsets[r]) + batch.markers[k]) * d;
      std::copy(src, src + d, m.data() + static_cast<int64_t>(k) * d);
    }
  dump(dumps, "markers", m.data(), n_markers, d);
  std::vector<float> mn(m.size()), s1(m.size());
  layer_norm(m.data(), n_markers, d, w_.scorer_norm_w.data(), w_.scorer_norm_b.data(), 1e-5f, mn.data());
  linear(mn.data(), n_markers, d, w_.scorer_fc1_w.data(), w_.scorer_fc1_b.data(), d, s1.data());
  gelu_erf(s1.data(), n_markers * d);
  result.logits.resize(static_cast<size_t>(n_markers));
  linear(s1.data(), n_markers, d, w_.scorer_fc2_w.data(), w_.scorer_fc2_b.data(), 1, result.logits.data());
  dump(dumps, "logits", result.logits.data(), n_markers, 1);

  // ---- action head on [h_CLS, top1, top1 - top2, normalised entropy, k/255] ----
  const int64_t act_in = d + 4;
  const int64_t act_hidden = static_cast<int64_t>(w_.act_fc1_b.size());
  std::vector<float> a_in(static_cast<size_t>(rows * act_in));
  for (int32_t r = 0; r < rows; ++r) {
    const float* cls = x + static_cast<int64_t>(batch.row_offsets[r]) * d;
    float* dst = a_in.data() + r * act_in;
    std::copy(cls, cls + d, dst);
    const auto f = act_features(std::span<const float>(result.logits.data() + batch.marker_offsets[r],
                                                       static_cast<size_t>(batch.row_markers(r))));
    std::copy(f.begin(), f.end(), dst + d);
  }
  std::vector<float> a1(static_cast<size_t>(rows * act_hidden));
  linear(a_in.data(), rows, act_in, w_.act_fc1_w.data(), w_.act_fc1_b.data(), act_hidden, a1.data());
  gelu_erf(a1.data(), rows * act_hidden);
  result.act_logits.resize(static_cast<size_t>(rows * result.n_act));
  linear(a1.data(), rows, act_hidden, w_.act_fc2_w.data(), w_.act_fc2_b.data(), result.n_act,
         result.act_logits.data());
  dump(dumps, "act_logits", result.act_logits.data(), rows, result.n_act);
  return result;
}

}  // namespace

int64_t CpuWeights::bytes() const {
  int64_t n = vec_bytes(tok_embeddings) + static_cast<int64_t>(tok_embeddings_raw.size()) + vec_bytes(emb_norm) +
              vec_bytes(final_norm) + vec_bytes(type_emb);
  for (const auto& L : layers)
    n += vec_bytes(L.attn_norm) + vec_bytes(L.wqkv) + vec_bytes(L.attn_wo) + vec_bytes(L.mlp_norm) + vec_bytes(L.wi) +
         vec_bytes(L.mlp_wo);
  for (const auto& H : head)
    for (const auto* v : {&H.in_w, &H.in_b, &H.out_w, &H.out_b, &H.l1_w, &H.l1_b, &H.l2_w, &H.l2_b, &H.n1_w, &H.n1_b,
                          &H.n2_w, &H.n2_b})
      n += vec_bytes(*v);
  for (const auto* v : {&scorer_norm_w, &scorer_norm_b, &scorer_fc1_w, &scorer_fc1_b, &scorer_fc2_w, &scorer_fc2_b,
                        &act_fc1_w, &act_fc1_b, &act_fc2_w, &act_fc2_b})
    n += vec_bytes(*v);
  return n;
}

CpuWeights load_cpu_weights(const checkpoint::Checkpoint& ckpt, bool release_mapping) {
  const auto& st = ckpt.weights();
  CpuWeights w;
  w.config = ckpt.config();
  auto get = [&](const std::string& name) {
    const auto& t = st.at(name);
    auto v = checkpoint::to_f32(t);
    if (release_mapping) release_pages(t);
    return v;
  };
  {
    const auto& t = st.at(names::tok_embeddings());
    w.tok_embeddings_dtype = t.dtype;
    w.tok_embeddings_raw.assign(t.data.begin(), t.data.end());
    if (release_mapping) release_pages(t);
  }
  w.emb_norm = get(names::emb_norm());
  const int32_t n_layers = w.config.encoder.layers;
  w.layers.resize(static_cast<size_t>(n_layers));
  for (int32_t i = 0; i < n_layers; ++i) {
    auto& L = w.layers[static_cast<size_t>(i)];
    if (i > 0) L.attn_norm = get(names::attn_norm(i));
    L.wqkv = get(names::wqkv(i));
    L.attn_wo = get(names::attn_wo(i));
    L.mlp_norm = get(names::mlp_norm(i));
    L.wi = get(names::wi(i));
    L.mlp_wo = get(names::mlp_wo(i));
  }
  w.final_norm = get(names::final_norm());
  w.type_emb = get(names::type_emb());
  w.head.resize(static_cast<size_t>(w.config.head.layers));
  for (int32_t l = 0; l < w.config.head.layers; ++l) {
    auto& H = w.head[static_cast<size_t>(l)];
    H.in_w = get(names::head_in_proj_w(l));
    H.in_b = get(names::head_in_proj_b(l));
    H.out_w = get(names::head_out_proj_w(l));
    H.out_b = get(names::head_out_proj_b(l));
    H.l1_w = get(names::head_linear1_w(l));
    H.l1_b = get(names::head_linear1_b(l));
    H.l2_w = get(names::head_linear2_w(l));
    H.l2_b = get(names::head_linear2_b(l));
    H.n1_w = get(names::head_norm1_w(l));
    H.n1_b = get(names::head_norm1_b(l));
    H.n2_w = get(names::head_norm2_w(l));
    H.n2_b = get(names::head_norm2_b(l));
  }
  w.scorer_norm_w = get(names::scorer_norm_w());
  w.scorer_norm_b = get(names::scorer_norm_b());
  w.scorer_fc1_w = get(names::scorer_fc1_w());
  w.scorer_fc1_b = get(names::scorer_fc1_b());
  w.scorer_fc2_w = get(names::scorer_fc2_w());
  w.scorer_fc2_b = get(names::scorer_fc2_b());
  w.act_fc1_w = get(names::act_fc1_w());
  w.act_fc1_b = get(names::act_fc1_b());
  w.act_fc2_w = get(names::act_fc2_w());
  w.act_fc2_b = get(names::act_fc2_b());
  return w;
}

std::unique_ptr<engine::Backend> make_cpu_backend(CpuWeights weights, const engine::BackendOptions& options) {
  return std::make_unique<CpuBackend>(std::move(weights), options);
}

std::unique_ptr<engine::Backend> make_cpu_backend(const checkpoint::Checkpoint& ckpt,
                                                  const engine::BackendOptions& options) {
  return make_cpu_backend(load_cpu_weights(ckpt), options);
}

}  // namespace laya::cpu
