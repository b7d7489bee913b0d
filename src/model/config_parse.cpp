#include "model/config_parse.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "common/json_depth.h"
#include "laya/errors.h"

namespace laya::model {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& what) {
  LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: field '{}': {}", file, field, what);
}

std::string read_text(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: file is missing", path.string());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) LAYA_FAIL(ErrorKind::io, "{}: cannot open for reading", path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Python's json module writes and reads the bare tokens NaN, Infinity and -Infinity; nlohmann does
// not. Rewrite them (outside strings) into strings so a NaN temperature reaches clamp_temperature as
// float("NaN") would in laya.
std::string python_json_to_strict(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    auto starts = [&](std::string_view tok) { return text.compare(i, tok.size(), tok) == 0; };
    if (starts("NaN")) {
      out += "\"NaN\"";
      i += 2;
    } else if (starts("-Infinity")) {
      out += "\"-Infinity\"";
      i += 8;
    } else if (starts("Infinity")) {
      out += "\"Infinity\"";
      i += 7;
    } else {
      out += c;
    }
  }
  return out;
}

json parse_json(const std::string& text, const std::string& file) {
  if (text.empty()) LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: file is empty", file);
  if (json_nesting_depth(text, kMaxCheckpointJsonDepth) > kMaxCheckpointJsonDepth)
    LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: nests deeper than {} levels", file, kMaxCheckpointJsonDepth);
  json j = json::parse(python_json_to_strict(text), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: not valid JSON", file);
  if (!j.is_object()) LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: top level is not a JSON object", file);
  return j;
}

// Python's float() on a JSON value, as clamp_temperature calls it; nullopt where it would raise.
std::optional<double> python_float(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    auto b = s.find_first_not_of(" \t\n\r\f\v");
    auto e = s.find_last_not_of(" \t\n\r\f\v");
    if (b == std::string::npos) return std::nullopt;
    s = s.substr(b, e - b + 1);
    std::string lower;
    for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string body = lower;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) body = body.substr(1);
    bool neg = !lower.empty() && lower[0] == '-';
    if (body == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (body == "inf" || body == "infinity") return neg ? -HUGE_VAL : HUGE_VAL;
    // Plain decimal / exponent literals only (strtod alone would also take hex floats).
    for (char c : body) {
      if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == '+' || c == '-' || c == '_'))
        return std::nullopt;
    }
    std::string no_us;
    for (char c : s) if (c != '_') no_us += c;
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(no_us.c_str(), &end);
    if (end == no_us.c_str() || *end != '\0') return std::nullopt;
    return d;
  }
  return std::nullopt;
}

struct Reader {
  const json& j;
  const std::string& file;
  std::vector<std::string>* warnings;
  bool log = true;

  void warn(const std::string& msg) const {
    if (log) spdlog::warn("{}", msg);
    if (warnings) warnings->push_back(msg);
  }

  int64_t integer(const char* key, int64_t dflt, bool warn_if_missing = false) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (warn_if_missing) warn(fmt::format("{}: field '{}' is missing; using the default {}", file, key, dflt));
      return dflt;
    }
    if (it->is_number_integer()) return it->get<int64_t>();
    if (it->is_number_float()) {
      double d = it->get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) return static_cast<int64_t>(d);
    }
    fail(file, key, fmt::format("expected an integer, found {}", it->dump()));
  }

  double number(const char* key, double dflt) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return dflt;
    if (it->is_number()) return it->get<double>();
    fail(file, key, fmt::format("expected a number, found {}", it->dump()));
  }

  bool boolean(const char* key, bool dflt) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return dflt;
    if (it->is_boolean()) return it->get<bool>();
    fail(file, key, fmt::format("expected true or false, found {}", it->dump()));
  }

  std::string string(const char* key, const std::string& dflt) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return dflt;
    if (it->is_string()) return it->get<std::string>();
    fail(file, key, fmt::format("expected a string, found {}", it->dump()));
  }
};

int32_t in_range(const std::string& file, const char* key, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi) fail(file, key, fmt::format("{} is outside the supported range [{}, {}]", v, lo, hi));
  return static_cast<int32_t>(v);
}

EncoderConfig parse_encoder(const json& j, const std::string& file, std::vector<std::string>* warnings, bool log) {
  Reader r{j, file, warnings, log};
  EncoderConfig e;
  e.model_type = r.string("model_type", "");
  if (e.model_type != "modernbert") {
    fail(file, "model_type", fmt::format("'{}' is not supported (expected \"modernbert\")", e.model_type));
  }
  // Defaults are ModernBertConfig's (transformers 5.17): what the official loader would use.
  e.vocab_size = in_range(file, "vocab_size", r.integer("vocab_size", 50368, true), 1, 16'777'216);
  e.hidden = in_range(file, "hidden_size", r.integer("hidden_size", 768, true), 1, 65536);
  e.heads = in_range(file, "num_attention_heads", r.integer("num_attention_heads", 12, true), 1, 1024);
  e.intermediate = in_range(file, "intermediate_size", r.integer("intermediate_size", 1152, true), 1, 1 << 20);
  e.layers = in_range(file, "num_hidden_layers", r.integer("num_hidden_layers", 22, true), 1, 1024);
  e.max_position_embeddings =
      in_range(file, "max_position_embeddings", r.integer("max_position_embeddings", 8192), 1, 1 << 24);
  e.local_window = in_range(file, "local_attention", r.integer("local_attention", 128), 2, 1 << 24);
  if (e.hidden % 64 != 0) {
    fail(file, "hidden_size", fmt::format("{} is not a multiple of 64 (the engine needs head_dim 64)", e.hidden));
  }
  if (e.hidden % e.heads != 0 || e.hidden / e.heads != 64) {
    fail(file, "num_attention_heads",
         fmt::format("{} heads for hidden_size {} give head_dim {}; only head_dim 64 is supported", e.heads,
                     e.hidden, static_cast<double>(e.hidden) / e.heads));
  }
  e.head_dim = 64;
  e.norm_eps = r.number("norm_eps", 1e-5);
  if (!(e.norm_eps > 0.0) || !std::isfinite(e.norm_eps) || e.norm_eps > 1.0) {
    fail(file, "norm_eps", fmt::format("{} is not a usable LayerNorm epsilon (0 < eps <= 1)", e.norm_eps));
  }
  for (const char* key : {"attention_bias", "mlp_bias", "norm_bias"}) {
    if (r.boolean(key, false)) fail(file, key, "biases are not supported (Laya's encoder has none)");
  }
  std::string act = r.string("hidden_activation", "gelu");
  if (act != "gelu") fail(file, "hidden_activation", fmt::format("'{}' is not supported (expected \"gelu\")", act));

  // Layer kinds: layer_types wins; else global_attn_every_n_layers (default 3).
  auto lt = j.find("layer_types");
  if (lt != j.end() && !lt->is_null()) {
    if (!lt->is_array()) fail(file, "layer_types", "expected a list of \"full_attention\"/\"sliding_attention\"");
    if (static_cast<int64_t>(lt->size()) != e.layers) {
      fail(file, "layer_types", fmt::format("has {} entries but num_hidden_layers is {}", lt->size(), e.layers));
    }
    for (std::size_t i = 0; i < lt->size(); ++i) {
      const auto& v = (*lt)[i];
      if (v == "full_attention") {
        e.layer_global.push_back(true);
      } else if (v == "sliding_attention") {
        e.layer_global.push_back(false);
      } else {
        fail(file, fmt::format("layer_types[{}]", i), fmt::format("{} is not a supported layer type", v.dump()));
      }
    }
    // global_every describes the pattern only when it is periodic from 0; 0 means "irregular".
    e.global_every = 0;
    for (int32_t n = 1; n <= e.layers; ++n) {
      bool ok = true;
      for (int32_t i = 0; i < e.layers && ok; ++i) ok = e.layer_global[i] == (i % n == 0);
      if (ok) {
        e.global_every = n;
        break;
      }
    }
    if (j.contains("global_attn_every_n_layers")) {
      auto n = r.integer("global_attn_every_n_layers", 3);
      if (n != e.global_every) {
        r.warn(fmt::format("{}: layer_types and global_attn_every_n_layers={} disagree; layer_types wins "
                           "(as in transformers 5)", file, n));
      }
    }
  } else {
    e.global_every = in_range(file, "global_attn_every_n_layers", r.integer("global_attn_every_n_layers", 3), 1, 1 << 20);
    for (int32_t i = 0; i < e.layers; ++i) e.layer_global.push_back(i % e.global_every == 0);
  }

  // RoPE thetas: rope_parameters.<kind>.rope_theta wins, else {global,local}_rope_theta, else defaults.
  e.global_theta = r.number("global_rope_theta", 160000.0);
  e.local_theta = r.number("local_rope_theta", 10000.0);
  auto rp = j.find("rope_parameters");
  if (rp != j.end() && !rp->is_null()) {
    if (!rp->is_object()) fail(file, "rope_parameters", "expected an object {full_attention: {...}, sliding_attention: {...}}");
    for (auto it = rp->begin(); it != rp->end(); ++it) {
      const std::string field = "rope_parameters." + it.key();
      double* target = nullptr;
      if (it.key() == "full_attention") {
        target = &e.global_theta;
      } else if (it.key() == "sliding_attention") {
        target = &e.local_theta;
      } else {
        fail(file, field, "unknown key (transformers 5 expects only full_attention and sliding_attention)");
      }
      if (it->is_null()) continue;
      if (!it->is_object()) fail(file, field, "expected an object");
      auto type = it->find("rope_type");
      if (type != it->end() && *type != "default") {
        fail(file, field + ".rope_type", fmt::format("{} is not supported (only \"default\")", type->dump()));
      }
      auto theta = it->find("rope_theta");
      if (theta != it->end() && !theta->is_null()) {
        if (!theta->is_number()) fail(file, field + ".rope_theta", "expected a number");
        *target = theta->get<double>();
      }
    }
  }
  if (!(e.global_theta > 0) || !std::isfinite(e.global_theta)) {
    fail(file, "global_rope_theta", fmt::format("{} is not a usable RoPE base", e.global_theta));
  }
  if (!(e.local_theta > 0) || !std::isfinite(e.local_theta)) {
    fail(file, "local_rope_theta", fmt::format("{} is not a usable RoPE base", e.local_theta));
  }
  return e;
}

void clamp_into(Reader& r, const std::string& bucket, const json& raw, double* applied, double* raw_out) {
  auto f = python_float(raw);
  *raw_out = f ? *f : std::numeric_limits<double>::quiet_NaN();
  *applied = f ? clamp_temperature(*f) : 1.0;
  if (!f || *f != *applied) {
    r.warn(fmt::format("{}: temperature {}={} is invalid or outside [0.5, 5]; using {}. Treat confidence from "
                       "this entry as uncalibrated.", r.file, bucket, raw.dump(), *applied));
  }
}

AgentConfig parse_agent(const json& j, const std::string& file, const EncoderConfig& enc, HeadConfig* head,
                        std::vector<std::string>* warnings, bool log) {
  Reader r{j, file, warnings, log};
  AgentConfig a;
  // laya._verify_compatibility requires both keys.
  if (!j.contains("encoder")) fail(file, "encoder", "is missing (required by laya)");
  if (!j.contains("head_layers")) fail(file, "head_layers", "is missing (required by laya)");
  a.encoder_name = r.string("encoder", "");
  a.model_name = r.string("model_name", "");
  a.amp_dtype = r.string("amp_dtype", "fp16");  // laya: cfg.get("amp_dtype", "fp16")
  if (a.amp_dtype != "bf16" && a.amp_dtype != "fp16") {
    r.warn(fmt::format("{}: amp_dtype '{}' is neither bf16 nor fp16; laya treats it as fp16", file, a.amp_dtype));
    a.amp_dtype = "fp16";
  }
  head->layers = in_range(file, "head_layers", r.integer("head_layers", 2), 0, 64);
  head->heads = std::max(1, enc.hidden / 64);
  head->ffn = 4 * enc.hidden;
  head->act_hidden = 256;

  const int64_t max_supported = std::min<int64_t>(kMaxSupportedLen, enc.max_position_embeddings);
  a.max_len = in_range(file, "max_len", r.integer("max_len", 512), 1, max_supported);
  a.head_max_len = in_range(file, "head_max_len", r.integer("head_max_len", 192), 1, kMaxSupportedLen);

  auto ac = j.find("act_costs");
  if (ac != j.end() && !ac->is_null()) {
    if (!ac->is_object()) fail(file, "act_costs", "expected an object {action: cost}");
    for (auto it = ac->begin(); it != ac->end(); ++it) {
      if (!it->is_number()) fail(file, "act_costs." + it.key(), "expected a number");
      a.act_costs[it.key()] = it->get<double>();
    }
  }
  head->n_act = static_cast<int32_t>(a.act_costs.size()) + 1;

  auto t = j.find("temperature");
  if (t != j.end()) {
    if (!t->is_array() || t->size() != 3) {
      fail(file, "temperature", fmt::format("expected a list of 3 numbers (choice, score, noul), found {}", t->dump()));
    }
    static const char* kNames[3] = {"temperature[0]", "temperature[1]", "temperature[2]"};
    for (int i = 0; i < 3; ++i) clamp_into(r, kNames[i], (*t)[i], &a.temperature[i], &a.temperature_raw[i]);
  }
  auto tb = j.find("temperature_by_options");
  if (tb != j.end() && !tb->is_null()) {
    if (!tb->is_object()) fail(file, "temperature_by_options", "expected an object {\"type:bucket\": T}");
    for (auto it = tb->begin(); it != tb->end(); ++it) {
      clamp_into(r, it.key(), *it, &a.temperature_by_options[it.key()], &a.temperature_by_options_raw[it.key()]);
    }
  }
  return a;
}

}  // namespace

double clamp_temperature(double t) {
  if (!std::isfinite(t)) return 1.0;
  return std::min(5.0, std::max(0.5, t));
}

ModelConfig parse_model_config_text(const std::string& encoder_json, const std::string& encoder_name,
                                    const std::string& agent_json, const std::string& agent_name,
                                    std::vector<std::string>* warnings, bool log_warnings) {
  ModelConfig c;
  json ej = parse_json(encoder_json, encoder_name);
  json aj = parse_json(agent_json, agent_name);
  c.encoder = parse_encoder(ej, encoder_name, warnings, log_warnings);
  c.agent = parse_agent(aj, agent_name, c.encoder, &c.head, warnings, log_warnings);
  return c;
}

ModelConfig parse_model_config(const std::filesystem::path& encoder_config_json,
                               const std::filesystem::path& agent_config_json, std::vector<std::string>* warnings) {
  std::string e = read_text(encoder_config_json);
  std::string a = read_text(agent_config_json);
  return parse_model_config_text(e, encoder_config_json.string(), a, agent_config_json.string(), warnings);
}

}  // namespace laya::model
