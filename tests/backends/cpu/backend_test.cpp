// CpuBackend on random in-memory weights: padding invariance (a question's outputs do not depend on
// the rest of the batch), dumps (names, shapes, zero cost when off), edge shapes, bad batches.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "laya/errors.h"

namespace laya::cpu {
namespace {

std::vector<float> randv(size_t n, std::mt19937& rng, float mean, float sd) {
  std::normal_distribution<float> dist(mean, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

CpuWeights random_weights(int layers, int hidden, int inter, int window, uint32_t seed) {
  std::mt19937 rng(seed);
  CpuWeights w;
  auto& c = w.config;
  c.encoder.vocab_size = 300;
  c.encoder.hidden = hidden;
  c.encoder.heads = hidden / 64;
  c.encoder.intermediate = inter;
  c.encoder.layers = layers;
  c.encoder.local_window = window;
  c.encoder.max_position_embeddings = 256;
  for (int i = 0; i < layers; ++i) c.encoder.layer_global.push_back(i % 3 == 0);
  c.head.layers = 2;
  c.head.heads = std::max(1, hidden / 64);
  c.head.ffn = 4 * hidden;
  c.agent.max_len = 256;
  const size_t d = static_cast<size_t>(hidden), I = static_cast<size_t>(inter);
  w.tok_embeddings = randv(300 * d, rng, 0, 1.0f);
  w.emb_norm = randv(d, rng, 1, 0.05f);
  w.layers.resize(static_cast<size_t>(layers));
  for (int i = 0; i < layers; ++i) {
    auto& L = w.layers[static_cast<size_t>(i)];
    if (i > 0) L.attn_norm = randv(d, rng, 1, 0.05f);
    L.wqkv = randv(3 * d * d, rng, 0, 0.05f);
    L.attn_wo = randv(d * d, rng, 0, 0.05f);
    L.mlp_norm = randv(d, rng, 1, 0.05f);
    L.wi = randv(2 * I * d, rng, 0, 0.05f);
    L.mlp_wo = randv(d * I, rng, 0, 0.05f);
  }
  w.final_norm = randv(d, rng, 1, 0.05f);
  w.type_emb = randv(3 * d, rng, 0, 0.5f);
  w.head.resize(2);
  for (auto& H : w.head) {
    H.in_w = randv(3 * d * d, rng, 0, 0.05f);
    H.in_b = randv(3 * d, rng, 0, 0.02f);
    H.out_w = randv(d * d, rng, 0, 0.05f);
    H.out_b = randv(d, rng, 0, 0.02f);
    H.l1_w = randv(4 * d * d, rng, 0, 0.05f);
    H.l1_b = randv(4 * d, rng, 0, 0.02f);
    H.l2_w = randv(d * 4 * d, rng, 0, 0.05f);
    H.l2_b = randv(d, rng, 0, 0.02f);
    H.n1_w = randv(d, rng, 1, 0.05f);
    H.n1_b = randv(d, rng, 0, 0.02f);
    H.n2_w = randv(d, rng, 1, 0.05f);
    H.n2_b = randv(d, rng, 0, 0.02f);
  }
  w.scorer_norm_w = randv(d, rng, 1, 0.05f);
  w.scorer_norm_b = randv(d, rng, 0, 0.02f);
  w.scorer_fc1_w = randv(d * d, rng, 0, 0.05f);
  w.scorer_fc1_b = randv(d, rng, 0, 0.02f);
  w.scorer_fc2_w = randv(d, rng, 0, 0.1f);
  w.scorer_fc2_b = randv(1, rng, 0, 0.02f);
  w.act_fc1_w = randv(256 * (d + 4), rng, 0, 0.05f);
  w.act_fc1_b = randv(256, rng, 0, 0.02f);
  w.act_fc2_w = randv(2 * 256, rng, 0, 0.05f);
  w.act_fc2_b = randv(2, rng, 0, 0.02f);
  return w;
}

struct Row {
  std::vector<int32_t> ids, markers;
  int32_t qtype;
};

Row random_row(std::mt19937& rng, int len, int n_markers, int qtype) {
  Row r;
  std::uniform_int_distribution<int32_t> tok(0, 299);
  for (int i = 0; i < len; ++i) r.ids.push_back(tok(rng));
  for (int k = 0; k < n_markers; ++k) r.markers.push_back(std::min(len - 1, 1 + 2 * k));
  r.qtype = qtype;
  return r;
}

engine::Batch batch_of(const std::vector<Row>& rows) {
  engine::Batch b;
  for (const auto& r : rows) b.add_row(r.ids, r.markers, r.qtype);
  return b;
}

class Collect : public engine::DumpSink {
 public:
  bool wants(std::string_view) const override { return true; }
  void put(std::string_view name, const float* data, size_t rows, size_t cols) override {
    shapes[std::string(name)] = {rows, cols};
    for (size_t i = 0; i < rows * cols; ++i) finite = finite && std::isfinite(data[i]);
  }
  std::map<std::string, std::pair<size_t, size_t>> shapes;
  bool finite = true;
};

TEST(CpuBackend, QuestionOutputsIndependentOfBatchMates) {
  engine::BackendOptions opts;
  auto be = make_cpu_backend(random_weights(4, 128, 96, 8, 1), opts);
  std::mt19937 rng(2);
  // lengths around the window (8/2 = 4), length 1, a long row; 1, 2 and 50 markers
  std::vector<Row> rows{random_row(rng, 1, 1, 0),  random_row(rng, 4, 2, 1),  random_row(rng, 5, 2, 2),
                        random_row(rng, 9, 3, 0),  random_row(rng, 120, 50, 0), random_row(rng, 200, 6, 1)};
  const auto all = be->forward(batch_of(rows));
  ASSERT_EQ(all.logits.size(), 1u + 2 + 2 + 3 + 50 + 6);
  ASSERT_EQ(all.act_logits.size(), rows.size() * 2);
  size_t mk = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto alone = be->forward(batch_of({rows[r]}));
    for (size_t k = 0; k < rows[r].markers.size(); ++k)
      EXPECT_NEAR(alone.logits[k], all.logits[mk + k], 1e-5) << "row " << r << " option " << k;
    for (int a = 0; a < 2; ++a)
      EXPECT_NEAR(alone.act_logits[static_cast<size_t>(a)], all.act_logits[r * 2 + static_cast<size_t>(a)],
                  1e-5 * std::max(1.0f, std::abs(alone.act_logits[static_cast<size_t>(a)])))
          << "row " << r;
    mk += rows[r].markers.size();
  }
  // the same batch twice gives bit-identical results (scratch reuse leaves no trace)
  const auto again = be->forward(batch_of(rows));
  EXPECT_EQ(again.logits, all.logits);
  EXPECT_EQ(again.act_logits, all.act_logits);
  for (float v : all.logits) EXPECT_TRUE(std::isfinite(v));
}

TEST(CpuBackend, DumpsEveryIntermediateWithItsShape) {
  engine::BackendOptions opts;
  auto be = make_cpu_backend(random_weights(3, 128, 96, 16, 3), opts);
  std::mt19937 rng(4);
  auto b = batch_of({random_row(rng, 7, 2, 2), random_row(rng, 30, 5, 1)});
  Collect sink;
  const auto with = be->forward(b, &sink);
  EXPECT_TRUE(sink.finite);
  using S = std::pair<size_t, size_t>;
  EXPECT_EQ(sink.shapes["embed"], S(37, 128));
  for (const char* n : {"encoder.0", "encoder.1", "encoder.2", "final_norm", "head.0", "head.1"})
    EXPECT_EQ(sink.shapes[n], S(37, 128)) << n;
  EXPECT_EQ(sink.shapes["markers"], S(7, 128));
  EXPECT_EQ(sink.shapes["logits"], S(7, 1));
  EXPECT_EQ(sink.shapes["act_logits"], S(2, 2));
  EXPECT_EQ(sink.shapes.size(), 10u);
  const auto without = be->forward(b);
  EXPECT_EQ(with.logits, without.logits);
  EXPECT_EQ(with.act_logits, without.act_logits);
}

TEST(CpuBackend, SingleOptionAndOddWidthModel) {
  // hidden 192: 3 encoder heads, 3 head heads; five layers (odd), single-option rows
  engine::BackendOptions opts;
  opts.threads = 1;
  auto be = make_cpu_backend(random_weights(5, 192, 64, 4, 5), opts);
  std::mt19937 rng(6);
  const auto out = be->forward(batch_of({random_row(rng, 3, 1, 0), random_row(rng, 64, 1, 2)}));
  ASSERT_EQ(out.logits.size(), 2u);
  for (float v : out.act_logits) EXPECT_TRUE(std::isfinite(v));
  EXPECT_EQ(be->info().backend, "cpu");
  EXPECT_EQ(be->info().precision, "fp32");
  EXPECT_GT(be->info().weight_bytes, 0);
  EXPECT_LT(be->last_device_ms(), 0.0);
}

TEST(CpuBackend, RejectsMalformedBatches) {
  engine::BackendOptions opts;
  auto be = make_cpu_backend(random_weights(3, 128, 96, 16, 7), opts);
  engine::Batch b;
  std::vector<int32_t> ids{1, 2, 300}, mk{0};
  b.add_row(ids, mk, 0);  // token 300 is outside the 300-entry vocabulary
  EXPECT_THROW(be->forward(b), laya::Error);
  engine::Batch too_long;
  std::vector<int32_t> long_ids(257, 5);
  too_long.add_row(long_ids, mk, 0);  // longer than max_position_embeddings (256)
  EXPECT_THROW(be->forward(too_long), laya::Error);
}

}  // namespace
}  // namespace laya::cpu
