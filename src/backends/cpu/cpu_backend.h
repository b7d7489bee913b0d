// The fp32 CPU backend: the whole official DecisionModel forward (ModernBERT encoder, type_emb,
// decision layers, scorer, action head) on packed varlen rows, built from the reference ops in
// backends/cpu/ops.h. It is the project's oracle: every other backend is judged against it.
//
// Weights are converted exactly from the checkpoint to fp32 once (the token-embedding table stays
// in its storage dtype and is converted per gathered row, exactly); the checkpoint mapping's pages
// are released after conversion so the weights are held once in memory.
#pragma once

#include <memory>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "engine/backend.h"
#include "model/config.h"

namespace laya::cpu {

// The model's parameters in fp32 (names as in laya.common.DecisionModel.state_dict()).
struct EncoderLayerWeights {
  std::vector<float> attn_norm;  // [d]; empty on layer 0 (nn.Identity)
  std::vector<float> wqkv;       // [3d, d]
  std::vector<float> attn_wo;    // [d, d]
  std::vector<float> mlp_norm;   // [d]
  std::vector<float> wi;         // [2I, d]
  std::vector<float> mlp_wo;     // [d, I]
};

struct HeadLayerWeights {
  std::vector<float> in_w, in_b;    // [3d, d], [3d]
  std::vector<float> out_w, out_b;  // [d, d], [d]
  std::vector<float> l1_w, l1_b;    // [4d, d], [4d]
  std::vector<float> l2_w, l2_b;    // [d, 4d], [d]
  std::vector<float> n1_w, n1_b, n2_w, n2_b;  // [d]
};

struct CpuWeights {
  model::ModelConfig config;
  // Token embeddings: fp32 [vocab, d]. Empty when `tok_embeddings_view` is used instead.
  std::vector<float> tok_embeddings;
  std::vector<float> emb_norm;
  std::vector<EncoderLayerWeights> layers;
  std::vector<float> final_norm;
  std::vector<float> type_emb;  // [3, d]
  std::vector<HeadLayerWeights> head;
  std::vector<float> scorer_norm_w, scorer_norm_b, scorer_fc1_w, scorer_fc1_b, scorer_fc2_w, scorer_fc2_b;
  std::vector<float> act_fc1_w, act_fc1_b, act_fc2_w, act_fc2_b;
  // Raw storage of the embedding table (F16/BF16/F32 bytes, [vocab, d]) converted per gathered row.
  std::vector<std::byte> tok_embeddings_raw;
  checkpoint::DType tok_embeddings_dtype = checkpoint::DType::F32;

  int64_t bytes() const;
};

// All parameters converted exactly from the checkpoint. `release_mapping` drops the mapped pages of
// each tensor after conversion (madvise DONTNEED; the file is unchanged and re-read on demand).
CpuWeights load_cpu_weights(const checkpoint::Checkpoint& ckpt, bool release_mapping = true);

std::unique_ptr<engine::Backend> make_cpu_backend(const checkpoint::Checkpoint& ckpt,
                                                  const engine::BackendOptions& options);
// From weights already in memory (tests build random ones).
std::unique_ptr<engine::Backend> make_cpu_backend(CpuWeights weights, const engine::BackendOptions& options);

}  // namespace laya::cpu
