#include "tokenizer/special_tokens.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "laya/errors.h"

namespace laya::tokenizer {
namespace {

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  LAYA_REQUIRE(in.good(), ErrorKind::io, "cannot open {}", p.string());
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: not valid JSON: {}", p.string(), e.what());
  }
}

// "[CLS]" or {"content": "[CLS]", ...}; null/absent -> nothing.
std::optional<std::string> token_text(const nlohmann::json& j, const std::string& key, const std::filesystem::path& file) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) {
    auto c = it->find("content");
    if (c != it->end() && c->is_string()) return c->get<std::string>();
  }
  LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: {} must be a string or {{\"content\": ...}}", file.string(), key);
}

}  // namespace

SpecialTokens load_special_tokens(const std::filesystem::path& config_path, const Tokenizer& tok) {
  const nlohmann::json config = read_json(config_path);
  LAYA_REQUIRE(config.is_object(), ErrorKind::invalid_checkpoint, "{}: expected a JSON object", config_path.string());
  const std::filesystem::path map_path = config_path.parent_path() / "special_tokens_map.json";
  nlohmann::json map = nlohmann::json::object();
  std::error_code ec;
  if (std::filesystem::exists(map_path, ec)) {
    map = read_json(map_path);
    LAYA_REQUIRE(map.is_object(), ErrorKind::invalid_checkpoint, "{}: expected a JSON object", map_path.string());
  }
  SpecialTokens st;
  auto resolve = [&](const std::string& key, int32_t& id, std::string* text) {
    // transformers loads tokenizer_config.json, then lets special_tokens_map.json override it.
    std::optional<std::string> t = token_text(map, key, map_path);
    std::filesystem::path from = map_path;
    if (!t) {
      t = token_text(config, key, config_path);
      from = config_path;
    }
    if (!t) return;
    const auto found = tok.token_to_id(*t);
    LAYA_REQUIRE(found.has_value(), ErrorKind::invalid_checkpoint, "{}: {} {:?} is not a token of the tokenizer", from.string(), key, *t);
    id = *found;
    if (text) *text = *t;
  };
  resolve("cls_token", st.cls_id, nullptr);
  resolve("sep_token", st.sep_id, nullptr);
  resolve("pad_token", st.pad_id, nullptr);
  resolve("mask_token", st.mask_id, &st.mask_token);
  resolve("unk_token", st.unk_id, nullptr);
  return st;
}

}  // namespace laya::tokenizer
