#include "model/inventory.h"

#include <fmt/format.h>

namespace laya::model {

namespace names {
namespace {
std::string enc(int i, const char* rest) { return fmt::format("encoder.layers.{}.{}", i, rest); }
std::string head(int l, const char* rest) { return fmt::format("head.layers.{}.{}", l, rest); }
}  // namespace

std::string tok_embeddings() { return "encoder.embeddings.tok_embeddings.weight"; }
std::string emb_norm() { return "encoder.embeddings.norm.weight"; }
std::string attn_norm(int i) { return enc(i, "attn_norm.weight"); }
std::string wqkv(int i) { return enc(i, "attn.Wqkv.weight"); }
std::string attn_wo(int i) { return enc(i, "attn.Wo.weight"); }
std::string mlp_norm(int i) { return enc(i, "mlp_norm.weight"); }
std::string wi(int i) { return enc(i, "mlp.Wi.weight"); }
std::string mlp_wo(int i) { return enc(i, "mlp.Wo.weight"); }
std::string final_norm() { return "encoder.final_norm.weight"; }
std::string type_emb() { return "type_emb.weight"; }
std::string head_in_proj_w(int l) { return head(l, "self_attn.in_proj_weight"); }
std::string head_in_proj_b(int l) { return head(l, "self_attn.in_proj_bias"); }
std::string head_out_proj_w(int l) { return head(l, "self_attn.out_proj.weight"); }
std::string head_out_proj_b(int l) { return head(l, "self_attn.out_proj.bias"); }
std::string head_linear1_w(int l) { return head(l, "linear1.weight"); }
std::string head_linear1_b(int l) { return head(l, "linear1.bias"); }
std::string head_linear2_w(int l) { return head(l, "linear2.weight"); }
std::string head_linear2_b(int l) { return head(l, "linear2.bias"); }
std::string head_norm1_w(int l) { return head(l, "norm1.weight"); }
std::string head_norm1_b(int l) { return head(l, "norm1.bias"); }
std::string head_norm2_w(int l) { return head(l, "norm2.weight"); }
std::string head_norm2_b(int l) { return head(l, "norm2.bias"); }
std::string scorer_norm_w() { return "scorer.0.weight"; }
std::string scorer_norm_b() { return "scorer.0.bias"; }
std::string scorer_fc1_w() { return "scorer.1.weight"; }
std::string scorer_fc1_b() { return "scorer.1.bias"; }
std::string scorer_fc2_w() { return "scorer.3.weight"; }
std::string scorer_fc2_b() { return "scorer.3.bias"; }
std::string act_fc1_w() { return "act_head.0.weight"; }
std::string act_fc1_b() { return "act_head.0.bias"; }
std::string act_fc2_w() { return "act_head.2.weight"; }
std::string act_fc2_b() { return "act_head.2.bias"; }
std::string temperature() { return "temperature"; }
}  // namespace names

std::vector<TensorSpec> expected_tensors(const ModelConfig& c) {
  const int64_t d = c.encoder.hidden;
  const int64_t v = c.encoder.vocab_size;
  const int64_t im = c.encoder.intermediate;
  const int64_t ffn = c.head.ffn > 0 ? c.head.ffn : 4 * d;
  const int64_t ah = c.head.act_hidden;
  std::vector<TensorSpec> t;
  t.push_back({names::tok_embeddings(), {v, d}});
  t.push_back({names::emb_norm(), {d}});
  for (int i = 0; i < c.encoder.layers; ++i) {
    if (i > 0) t.push_back({names::attn_norm(i), {d}});  // layer 0's attn_norm is Identity
    t.push_back({names::wqkv(i), {3 * d, d}});
    t.push_back({names::attn_wo(i), {d, d}});
    t.push_back({names::mlp_norm(i), {d}});
    t.push_back({names::wi(i), {2 * im, d}});
    t.push_back({names::mlp_wo(i), {d, im}});
  }
  t.push_back({names::final_norm(), {d}});
  for (int l = 0; l < c.head.layers; ++l) {
    t.push_back({names::head_in_proj_w(l), {3 * d, d}});
    t.push_back({names::head_in_proj_b(l), {3 * d}});
    t.push_back({names::head_out_proj_w(l), {d, d}});
    t.push_back({names::head_out_proj_b(l), {d}});
    t.push_back({names::head_linear1_w(l), {ffn, d}});
    t.push_back({names::head_linear1_b(l), {ffn}});
    t.push_back({names::head_linear2_w(l), {d, ffn}});
    t.push_back({names::head_linear2_b(l), {d}});
    t.push_back({names::head_norm1_w(l), {d}});
    t.push_back({names::head_norm1_b(l), {d}});
    t.push_back({names::head_norm2_w(l), {d}});
    t.push_back({names::head_norm2_b(l), {d}});
  }
  t.push_back({names::type_emb(), {3, d}});
  t.push_back({names::scorer_norm_w(), {d}});
  t.push_back({names::scorer_norm_b(), {d}});
  t.push_back({names::scorer_fc1_w(), {d, d}});
  t.push_back({names::scorer_fc1_b(), {d}});
  t.push_back({names::scorer_fc2_w(), {1, d}});
  t.push_back({names::scorer_fc2_b(), {1}});
  t.push_back({names::act_fc1_w(), {ah, d + 4}});
  t.push_back({names::act_fc1_b(), {ah}});
  t.push_back({names::act_fc2_w(), {c.head.n_act, ah}});
  t.push_back({names::act_fc2_b(), {c.head.n_act}});
  t.push_back({names::temperature(), {3}});
  return t;
}

int64_t expected_parameter_count(const ModelConfig& config) {
  int64_t n = 0;
  for (const auto& s : expected_tensors(config)) n += s.numel();
  return n;
}

}  // namespace laya::model
