#include "checkpoint/synth.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "checkpoint/convert.h"
#include "checkpoint/safetensors.h"
#include "laya/errors.h"
#include "model/config_parse.h"
#include "model/inventory.h"

namespace laya::checkpoint {
namespace {

using ojson = nlohmann::ordered_json;
namespace fs = std::filesystem;

// splitmix64: a seedable, portable generator (std:: distributions differ between libraries).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }  // (0, 1]
};

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// How a tensor is initialised, from its name.
struct Init {
  double mean = 0.0;
  double std = 0.02;
};

Init init_for(const std::string& name, const std::vector<int64_t>& shape) {
  auto ends = [&](std::string_view t) { return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0; };
  const bool norm = name.find("norm") != std::string::npos || name.rfind("scorer.0.", 0) == 0;
  if (norm && ends(".weight")) return {1.0, 0.02};  // LayerNorm gains near 1
  if (ends("bias")) return {0.0, 0.02};             // small biases (LN and Linear)
  if (name == "encoder.embeddings.tok_embeddings.weight" || name == "type_emb.weight") return {0.0, 0.02};
  // Linear weights: variance-preserving N(0, 1/fan_in) -- about 0.02-0.03 at the real sizes (d=1024), and
  // large enough at tiny sizes that attention is not uniform and options get distinct logits. The final
  // scorer row is 3x wider so softmax outputs are not all near-uniform.
  const double fan_in = shape.size() == 2 ? static_cast<double>(shape[1]) : 1024.0;
  const double k = name == "scorer.3.weight" ? 3.0 : 1.0;
  return {0.0, k / std::sqrt(fan_in)};
}

// 65536 standard-normal quantiles at (i + 0.5) / 65536: sampling = one table lookup per value
// (Box-Muller made the full-size layouts CPU-bound). Tails are cut at about 4.3 sigma, which is
// irrelevant for synthetic weights.
const std::vector<float>& normal_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (int i = 0; i < 65536; ++i) {
      const double p = (i + 0.5) / 65536.0;
      double lo = -10.0, hi = 10.0;  // bisection on Phi(x) = erfc(-x / sqrt 2) / 2
      for (int it = 0; it < 64; ++it) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid * 0.7071067811865476) < p ? lo : hi) = mid;
      }
      t[i] = static_cast<float>(0.5 * (lo + hi));
    }
    return t;
  }();
  return table;
}

// Fills FP16 values N(mean, std), deterministic per (seed, tensor, chunk) so any thread split gives
// the same bytes.
void fill_normal_f16(std::span<std::byte> out, uint64_t seed, const std::string& name,
                     const std::vector<int64_t>& shape) {
  const Init in = init_for(name, shape);
  const auto& table = normal_table();
  const std::size_t n = out.size() / 2;
  constexpr std::size_t kChunk = 1u << 18;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  const uint64_t base = seed * 0x9E3779B97F4A7C15ull ^ fnv1a(name);
  const float mean = static_cast<float>(in.mean), sd = static_cast<float>(in.std);
  auto work = [&](std::size_t first, std::size_t step) {
    for (std::size_t c = first; c < chunks; c += step) {
      Rng rng{base + 0xD1B54A32D192ED03ull * (c + 1)};
      const std::size_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
      for (std::size_t i = lo; i < hi; i += 4) {
        uint64_t r = rng.next();
        for (std::size_t k = 0; k < 4 && i + k < hi; ++k, r >>= 16) {
          const uint16_t h = f32_to_f16(mean + sd * table[r & 0xFFFFu]);
          std::memcpy(out.data() + 2 * (i + k), &h, 2);
        }
      }
    }
  };
  if (chunks >= 4) {
    std::thread t(work, 1, 2);
    work(0, 2);
    t.join();
  } else {
    work(0, 1);
  }
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) LAYA_FAIL(ErrorKind::io, "{}: cannot open for reading", p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  out.close();
  if (!out) LAYA_FAIL(ErrorKind::io, "{}: cannot write", p.string());
}

fs::path fixtures_dir() {
  if (const char* env = std::getenv("LAYA_FIXTURES_DIR"); env && *env) return env;
  for (fs::path p : {fs::path("../shared/fixtures"), fs::path("shared/fixtures"), fs::path("../../shared/fixtures")}) {
    if (fs::is_directory(p)) return p;
  }
  return "../shared/fixtures";
}

struct Layout {
  int layers, hidden, intermediate, vocab, local_window, max_len, head_max_len;
  double global_theta, local_theta;
  bool transformers5_style;  // write layer_types + rope_parameters instead of ModernBERT keys
  int pad_id, bos_id, eos_id, cls_id, sep_id;
};

ojson agent_config(const std::string& layout, const Layout& l, uint64_t seed, const std::string& amp_dtype) {
  ojson a;
  const bool multilingual = layout == "multilingual";
  a["encoder"] = layout == "tiny" ? "laya-engine/synthetic-tiny"
                                  : multilingual ? "jhu-clsp/mmBERT-base" : "answerdotai/ModernBERT-large";
  a["head_layers"] = 2;
  a["max_len"] = l.max_len;
  a["head_max_len"] = l.head_max_len;
  a["max_prefixes"] = 6;
  a["act_costs"] = {{"escalate", 0.5}};
  a["cost_wrong_act"] = 3.0;
  if (!amp_dtype.empty()) a["amp_dtype"] = amp_dtype;
  a["model_name"] = layout == "typed-decisions" ? "laya-typed-decisions" : layout == "tiny" ? "laya-tiny" : "rl-agent";
  // The shipped calibration tables (spec §7.1); tiny gets an in-range table of the same shape.
  ojson english_buckets = {{"choice:3-5", 1.7601518630981445}, {"choice:6-10", 1.0000158548355103},
                           {"score:3-5", 1.2514300346374512},  {"noul:2", 1.983399510383606},
                           {"choice:11+", 0.10058280825614929}, {"choice:2", 1.9063563346862793}};
  if (layout == "english") {
    a["temperature"] = {1.6369030475616455, 1.2514300346374512, 1.983399510383606};
    a["temperature_by_options"] = english_buckets;
  } else if (layout == "typed-decisions") {
    a["temperature"] = {1.0148024559020996, 1.0374259948730469, 1.0575125217437744};
    a["temperature_by_options"] = english_buckets;
  } else if (multilingual) {
    a["temperature"] = {1.0, 1.0, 1.0};
    a["temperature_by_options"] = ojson::object();
  } else {
    a["temperature"] = {1.25, 1.5, 2.0};
    a["temperature_by_options"] = {{"choice:2", 1.75}, {"choice:3-5", 1.5}, {"choice:6-10", 1.125},
                                   {"score:3-5", 1.5}, {"noul:2", 2.0}};
  }
  a["training"] = {{"updates", 0}, {"epochs_completed", 0}, {"hours", 0.0}, {"world_size", 1},
                   {"fine_tuned_from_checkpoint", false}};
  if (layout == "typed-decisions") {
    a["gradient_checkpointing"] = true;
    a["max_tokens_per_batch"] = 4096;
    a["fine_tuned"] = true;
  }
  // Extra key (laya ignores unknown keys): marks the weights as random for `check` and `--model demo`.
  a["synthetic"] = {{"generator", "laya-engine synth"}, {"layout", layout}, {"seed", seed},
                    {"note", "random weights: answers are meaningless"}};
  return a;
}

ojson encoder_config(const Layout& l) {
  ojson e;
  e["_name_or_path"] = "laya-engine-synthetic";
  e["architectures"] = {"ModernBertModel"};
  e["attention_bias"] = false;
  e["attention_dropout"] = 0.0;
  e["bos_token_id"] = l.bos_id;
  e["classifier_activation"] = "gelu";
  e["classifier_bias"] = false;
  e["classifier_dropout"] = 0.0;
  e["classifier_pooling"] = "mean";
  e["cls_token_id"] = l.cls_id;
  e["decoder_bias"] = true;
  e["deterministic_flash_attn"] = false;
  e["embedding_dropout"] = 0.0;
  e["eos_token_id"] = l.eos_id;
  if (!l.transformers5_style) {
    e["global_attn_every_n_layers"] = 3;
    e["global_rope_theta"] = l.global_theta;
  }
  e["gradient_checkpointing"] = false;
  e["hidden_activation"] = "gelu";
  e["hidden_size"] = l.hidden;
  e["initializer_cutoff_factor"] = 2.0;
  e["initializer_range"] = 0.02;
  e["intermediate_size"] = l.intermediate;
  if (l.transformers5_style) {
    ojson types = ojson::array();
    for (int i = 0; i < l.layers; ++i) types.push_back(i % 3 == 0 ? "full_attention" : "sliding_attention");
    e["layer_types"] = types;
  }
  e["layer_norm_eps"] = 1e-5;
  e["local_attention"] = l.local_window;
  if (!l.transformers5_style) e["local_rope_theta"] = l.local_theta;
  e["max_position_embeddings"] = 8192;
  e["mlp_bias"] = false;
  e["mlp_dropout"] = 0.0;
  e["model_type"] = "modernbert";
  e["norm_bias"] = false;
  e["norm_eps"] = 1e-5;
  e["num_attention_heads"] = l.hidden / 64;
  e["num_hidden_layers"] = l.layers;
  e["pad_token_id"] = l.pad_id;
  e["position_embedding_type"] = "absolute";
  if (l.transformers5_style) {
    e["rope_parameters"] = {{"full_attention", {{"rope_theta", l.global_theta}, {"rope_type", "default"}}},
                            {"sliding_attention", {{"rope_theta", l.local_theta}, {"rope_type", "default"}}}};
  }
  e["sep_token_id"] = l.sep_id;
  e["tie_word_embeddings"] = true;
  e["torch_dtype"] = "float32";
  e["transformers_version"] = l.transformers5_style ? "5.17.0" : "4.48.0";
  e["vocab_size"] = l.vocab;
  return e;
}

fs::path tokenizer_json_from(const fs::path& p, const std::string& layout) {
  fs::path src = p;
  if (src.empty()) {
    src = fixtures_dir() / (layout == "multilingual" ? "tokenizer-mmbert-standin" : "tokenizer-modernbert");
  }
  if (fs::is_directory(src)) src /= "tokenizer.json";
  if (!fs::is_regular_file(src)) {
    LAYA_FAIL(ErrorKind::not_found, "synth --layout {}: tokenizer file {} not found (pass --tokenizer DIR|FILE or set "
              "LAYA_FIXTURES_DIR)", layout, src.string());
  }
  return src;
}

std::string multilingual_tokenizer_config() {
  ojson dec = ojson::object();
  const char* toks[] = {"<pad>", "<eos>", "<bos>", "<unk>", "<mask>"};
  for (int i = 0; i < 5; ++i) {
    dec[std::to_string(i)] = {{"content", toks[i]}, {"lstrip", false}, {"normalized", false}, {"rstrip", false},
                              {"single_word", false}, {"special", true}};
  }
  ojson c;
  c["added_tokens_decoder"] = dec;
  c["bos_token"] = "<bos>";
  c["clean_up_tokenization_spaces"] = false;
  c["cls_token"] = "<bos>";
  c["eos_token"] = "<eos>";
  c["mask_token"] = "<mask>";
  c["model_max_length"] = 8192;
  c["pad_token"] = "<pad>";
  c["sep_token"] = "<eos>";
  c["tokenizer_class"] = "PreTrainedTokenizerFast";
  c["unk_token"] = "<unk>";
  return c.dump(2) + "\n";
}

}  // namespace

void write_synthetic_checkpoint(const SynthOptions& o) {
  const std::string& L = o.layout;
  if (L != "tiny" && L != "english" && L != "typed-decisions" && L != "multilingual") {
    LAYA_FAIL(ErrorKind::bad_request, "synth: unknown layout '{}' (tiny | english | typed-decisions | multilingual)", L);
  }
  if (o.out.empty()) LAYA_FAIL(ErrorKind::bad_request, "synth: no output directory given");
  std::error_code ec;
  if (fs::exists(o.out, ec)) {
    if (!fs::is_directory(o.out, ec)) LAYA_FAIL(ErrorKind::io, "synth: {} exists and is not a directory", o.out.string());
    if (!o.overwrite && !fs::is_empty(o.out, ec)) {
      LAYA_FAIL(ErrorKind::io, "synth: {} is not empty (refusing to overwrite)", o.out.string());
    }
  }

  Layout l{};
  std::string tok_json, tok_cfg;
  if (L == "tiny") {
    auto t = make_tiny_tokenizer();
    tok_json = std::move(t.tokenizer_json);
    tok_cfg = std::move(t.tokenizer_config_json);
    const int base = t.vocab_size - 5;  // [UNK] [CLS] [SEP] [PAD] [MASK]
    // Embedding rows may exceed the tokenizer's ids, as in ModernBERT (50368 rows for 50285 ids).
    l = {3, 128, 192, (t.vocab_size + 63) / 64 * 64, 16, 128, 64, 160000.0, 10000.0, false,
         base + 3, base + 1, base + 2, base + 1, base + 2};
  } else if (L == "multilingual") {
    tok_json = read_file(tokenizer_json_from(o.tokenizer, L));
    tok_cfg = multilingual_tokenizer_config();
    l = {22, 768, 1152, 256000, 128, 1024, 256, 160000.0, 160000.0, true, 0, 2, 1, 2, 1};
  } else {
    fs::path src = tokenizer_json_from(o.tokenizer, L);
    tok_json = read_file(src);
    fs::path tmpl = src.parent_path() / "original" / "tokenizer_config.json";
    if (!fs::is_regular_file(tmpl)) tmpl = src.parent_path() / "tokenizer_config.json";
    if (!fs::is_regular_file(tmpl)) tmpl = fixtures_dir() / "tokenizer-modernbert" / "original" / "tokenizer_config.json";
    if (!fs::is_regular_file(tmpl)) {
      LAYA_FAIL(ErrorKind::not_found, "synth: no tokenizer_config.json next to {} nor in the fixtures", src.string());
    }
    tok_cfg = read_file(tmpl);
    const bool typed = L == "typed-decisions";
    l = {28, 1024, 2624, 50368, 128, typed ? 1024 : 512, typed ? 256 : 192, 160000.0, 10000.0, false,
         50283, 50281, 50282, 50281, 50282};
  }
  if (o.layers > 0) l.layers = o.layers;
  if (o.hidden > 0) l.hidden = o.hidden;
  if (o.intermediate > 0) l.intermediate = o.intermediate;
  if (o.local_window > 0) l.local_window = o.local_window;
  if (o.max_len > 0) l.max_len = o.max_len;
  if (o.head_max_len > 0) l.head_max_len = o.head_max_len;
  if (l.hidden % 64 != 0) LAYA_FAIL(ErrorKind::bad_request, "synth: --hidden {} is not a multiple of 64", l.hidden);
  if (l.local_window < 2 || l.local_window % 2 != 0) {
    LAYA_FAIL(ErrorKind::bad_request, "synth: --local-window {} must be even and >= 2", l.local_window);
  }

  const std::string agent_text = agent_config(L, l, o.seed, o.amp_dtype).dump(2) + "\n";
  const std::string enc_text = encoder_config(l).dump(2) + "\n";
  // Validate what we are about to write with the same parser as every reader (fails early and clearly
  // on bad overrides such as max_len > 8192).
  std::vector<std::string> quiet;  // the shipped English buckets clamp by design; `check` reports it
  const model::ModelConfig cfg = model::parse_model_config_text(enc_text, "encoder/config.json", agent_text,
                                                                "rl_agent_config.json", &quiet, /*log=*/false);

  fs::create_directories(o.out / "encoder");
  fs::create_directories(o.out / "tokenizer");
  write_file(o.out / "rl_agent_config.json", agent_text);
  write_file(o.out / "encoder" / "config.json", enc_text);
  write_file(o.out / "tokenizer" / "tokenizer.json", tok_json);
  write_file(o.out / "tokenizer" / "tokenizer_config.json", tok_cfg);

  auto specs = model::expected_tensors(cfg);
  // Data order as Python's safetensors.save_file: by dtype alignment (F32 first), then by name.
  std::stable_sort(specs.begin(), specs.end(), [](const model::TensorSpec& a, const model::TensorSpec& b) {
    const bool fa = a.name == model::names::temperature(), fb = b.name == model::names::temperature();
    if (fa != fb) return fa;
    return a.name < b.name;
  });
  std::vector<TensorToWrite> tensors;
  tensors.reserve(specs.size());
  const uint64_t seed = o.seed;
  for (const auto& s : specs) {
    TensorToWrite t;
    t.name = s.name;
    t.shape = s.shape;
    if (s.name == model::names::temperature()) {
      t.dtype = DType::F32;
      t.fill = [](std::span<std::byte> out) {
        const float one = 1.0f;
        for (std::size_t i = 0; i + 4 <= out.size(); i += 4) std::memcpy(out.data() + i, &one, 4);
      };
    } else {
      t.dtype = DType::F16;
      std::string name = s.name;
      std::vector<int64_t> shape = s.shape;
      t.fill = [seed, name, shape](std::span<std::byte> out) { fill_normal_f16(out, seed, name, shape); };
    }
    tensors.push_back(std::move(t));
  }
  write_safetensors(o.out / "model.safetensors", tensors, {{"format", "pt"}});
}

}  // namespace laya::checkpoint
