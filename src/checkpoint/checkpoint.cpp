#include "checkpoint/checkpoint.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>

#include "laya/errors.h"
#include "model/config_parse.h"
#include "model/inventory.h"

namespace laya::checkpoint {
namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

std::string read_small(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Largest token id a tokenizer.json can produce: max of model.vocab ids (object form; for a list-form
// vocab, its length - 1) and added_tokens[].id. Streams the JSON (SAX) without building a DOM.
class MaxIdSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  int64_t max_id = -1;
  bool saw_vocab = false;

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t v) override { return number(v); }
  bool number_unsigned(number_unsigned_t v) override {
    return number(v > static_cast<number_unsigned_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v));
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override {
    push(false);
    return true;
  }
  bool key(string_t& k) override {
    stack_.back().key = k;
    return true;
  }
  bool end_object() override { return pop(); }
  bool start_array(std::size_t) override {
    push(true);
    return true;
  }
  bool end_array() override { return pop(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    bool array = false;
    std::string key;
    int64_t count = 0;
  };
  std::vector<Frame> stack_;

  // Path tests on the frames: [root]{model}{vocab}... and [root]{added_tokens}[i]{id}.
  bool in_vocab_object() const {
    return stack_.size() == 3 && stack_[0].key == "model" && stack_[1].key == "vocab" && !stack_[2].array;
  }
  bool in_vocab_list() const {
    return stack_.size() == 3 && stack_[0].key == "model" && stack_[1].key == "vocab" && stack_[2].array;
  }
  bool in_added_token() const {
    return stack_.size() == 3 && stack_[0].key == "added_tokens" && stack_[1].array && !stack_[2].array &&
           stack_[2].key == "id";
  }
  void push(bool array) {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().count;
    stack_.push_back({array, {}, 0});
  }
  bool pop() {
    if (in_vocab_list()) {
      saw_vocab = true;
      max_id = std::max(max_id, stack_.back().count - 1);
    }
    if (in_vocab_object()) saw_vocab = true;
    stack_.pop_back();
    return true;
  }
  bool scalar() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().count;
    return true;
  }
  bool number(int64_t v) {
    if (in_vocab_object() || in_added_token()) max_id = std::max(max_id, v);
    return scalar();
  }
};

}  // namespace

CheckpointPaths CheckpointPaths::in(const std::filesystem::path& dir) {
  CheckpointPaths p;
  p.dir = dir;
  p.agent_config = dir / "rl_agent_config.json";
  p.weights = dir / "model.safetensors";
  p.tokenizer_json = dir / "tokenizer" / "tokenizer.json";
  p.tokenizer_config = dir / "tokenizer" / "tokenizer_config.json";
  p.encoder_config = dir / "encoder" / "config.json";
  return p;
}

std::string checkpoint_kind(const model::ModelConfig& c, bool synthetic_tiny) {
  const auto& e = c.encoder;
  if (synthetic_tiny) return "tiny";
  const bool regular = e.global_every == 3 && e.local_window == 128 && e.head_dim == 64 && c.head.layers == 2 &&
                       c.head.n_act == 2;
  if (regular && e.layers == 28 && e.hidden == 1024 && e.intermediate == 2624 && e.vocab_size == 50368 &&
      e.global_theta == 160000.0 && e.local_theta == 10000.0) {
    if (c.agent.max_len == 512 && c.agent.head_max_len == 192) return "english";
    if (c.agent.max_len == 1024 && c.agent.head_max_len == 256) return "typed-decisions";
  }
  if (regular && e.layers == 22 && e.hidden == 768 && e.intermediate == 1152 && e.vocab_size == 256000 &&
      e.global_theta == 160000.0 && e.local_theta == 160000.0 && c.agent.max_len == 1024 &&
      c.agent.head_max_len == 256) {
    return "multilingual";
  }
  return "custom";
}

Validation Checkpoint::validate(const std::filesystem::path& dir, Checkpoint* out) {
  Validation v;
  Checkpoint ck;
  ck.paths_ = CheckpointPaths::in(dir);
  const auto& p = ck.paths_;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    v.problems.push_back(fmt::format("{}: not a directory (a checkpoint is a folder with rl_agent_config.json, "
                                     "model.safetensors, encoder/ and tokenizer/)", dir.string()));
    return v;
  }
  bool files_ok = true;
  for (const auto* f : {&p.agent_config, &p.weights, &p.encoder_config, &p.tokenizer_json, &p.tokenizer_config}) {
    if (!std::filesystem::exists(*f, ec)) {
      v.problems.push_back(fmt::format("{}: file is missing", f->string()));
      files_ok = false;
    } else if (!std::filesystem::is_regular_file(*f, ec)) {
      v.problems.push_back(fmt::format("{}: not a regular file", f->string()));
      files_ok = false;
    } else if (std::filesystem::file_size(*f, ec) == 0) {
      v.problems.push_back(fmt::format("{}: file is empty", f->string()));
      files_ok = false;
    }
  }
  (void)files_ok;

  bool config_ok = false;
  if (std::filesystem::exists(p.agent_config, ec) && std::filesystem::exists(p.encoder_config, ec)) {
    try {
      ck.config_ = model::parse_model_config(p.encoder_config, p.agent_config, &v.warnings);
      config_ok = true;
      auto j = nlohmann::json::parse(read_small(p.agent_config), nullptr, false);
      if (j.is_object() && j.contains("synthetic") && j["synthetic"].is_object()) ck.synthetic_ = true;
      if (ck.synthetic_ && j["synthetic"].value("layout", "") == "tiny") ck.tiny_ = true;
    } catch (const Error& e) {
      v.problems.push_back(e.what());
    }
  }
  bool weights_ok = false;
  if (std::filesystem::exists(p.weights, ec)) {
    try {
      ck.weights_ = SafetensorsFile::open(p.weights);
      weights_ok = true;
    } catch (const Error& e) {
      v.problems.push_back(e.what());
    }
  }
  if (std::filesystem::exists(p.tokenizer_config, ec) && std::filesystem::file_size(p.tokenizer_config, ec) > 0) {
    auto j = nlohmann::json::parse(read_small(p.tokenizer_config), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      v.problems.push_back(fmt::format("{}: not a valid JSON object", p.tokenizer_config.string()));
    }
  }
  // Every id the tokenizer can produce must index the embedding table (backends gather rows by id).
  if (config_ok && std::filesystem::exists(p.tokenizer_json, ec) && std::filesystem::file_size(p.tokenizer_json, ec) > 0) {
    std::ifstream in(p.tokenizer_json, std::ios::binary);
    MaxIdSax sax;
    if (!nlohmann::json::sax_parse(in, &sax)) {
      v.problems.push_back(fmt::format("{}: not valid JSON", p.tokenizer_json.string()));
    } else if (!sax.saw_vocab) {
      v.problems.push_back(fmt::format("{}: field 'model.vocab' is missing", p.tokenizer_json.string()));
    } else if (sax.max_id >= ck.config_.encoder.vocab_size) {
      v.problems.push_back(fmt::format("{}: token id {} does not fit the embedding table ({}: vocab_size {}); the "
                                       "tokenizer does not belong to these weights", p.tokenizer_json.string(),
                                       sax.max_id, p.encoder_config.filename().string(),
                                       ck.config_.encoder.vocab_size));
    }
  }

  if (config_ok && weights_ok) {
    const auto expected = model::expected_tensors(ck.config_);
    std::map<std::string, const model::TensorSpec*> want;
    for (const auto& s : expected) want.emplace(s.name, &s);
    std::vector<std::string> missing, unexpected, misshaped;
    for (const auto& s : expected) {
      const TensorView* t = ck.weights_.find(s.name);
      if (t == nullptr) {
        missing.push_back(s.name + " " + shape_str(s.shape));
      } else if (t->shape != s.shape) {
        misshaped.push_back(fmt::format("{}: expected {}, found {}", s.name, shape_str(s.shape), shape_str(t->shape)));
      }
    }
    for (const auto& t : ck.weights_.tensors()) {
      if (!want.count(t.name)) unexpected.push_back(t.name + " " + shape_str(t.shape));
    }
    auto list = [&](const char* what, const std::vector<std::string>& items) {
      if (items.empty()) return;
      std::string msg = fmt::format("{}: {} {} tensor{} (for the configuration in {} and {}):", p.weights.string(),
                                    items.size(), what, items.size() == 1 ? "" : "s",
                                    p.encoder_config.filename().string(), p.agent_config.filename().string());
      for (const auto& i : items) msg += "\n    " + i;
      v.problems.push_back(msg);
    };
    list("missing", missing);
    list("unexpected", unexpected);
    list("mis-shaped", misshaped);
  }

  if (v.problems.empty() && out != nullptr) {
    ck.warnings_ = v.warnings;
    *out = std::move(ck);
  }
  return v;
}

Checkpoint Checkpoint::open(const std::filesystem::path& dir) {
  Checkpoint ck;
  Validation v = validate(dir, &ck);
  if (!v.problems.empty()) {
    std::string msg = fmt::format("invalid checkpoint {} ({} problem{}):", dir.string(), v.problems.size(),
                                  v.problems.size() == 1 ? "" : "s");
    for (const auto& pr : v.problems) msg += "\n  - " + pr;
    LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}", msg);
  }
  return ck;
}

std::string Checkpoint::kind() const { return checkpoint_kind(config_, tiny_); }

int64_t Checkpoint::parameter_count() const {
  int64_t n = 0;
  for (const auto& t : weights_.tensors()) n += t.numel();
  return n;
}

}  // namespace laya::checkpoint
