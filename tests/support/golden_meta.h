// Reading the official golden cases (fixtures/goldens/<set>/): JSON files and the agent config and
// special tokens recorded in each set's meta.json. Header-only: tests that include it already link
// laya_api, laya_model and laya_tokenizer.
#pragma once

#include <cstdint>
#include <filesystem>

#include "api/json.h"
#include "model/config.h"
#include "support/paths.h"
#include "tokenizer/special_tokens.h"

namespace laya::test {

inline api::Json read_json(const std::filesystem::path& p) { return api::parse_json(read_text(p)); }

inline model::AgentConfig config_from_meta(const api::Json& meta) {
  model::AgentConfig c;
  c.max_len = static_cast<int32_t>(meta.find("max_len")->as_double());
  c.head_max_len = static_cast<int32_t>(meta.find("head_max_len")->as_double());
  for (size_t i = 0; i < 3; ++i) c.temperature[i] = meta.find("temperature")->items()[i].as_double();
  for (const auto& [k, v] : meta.find("temperature_by_options")->members()) c.temperature_by_options[k] = v.as_double();
  return c;
}

inline tokenizer::SpecialTokens special_from_meta(const api::Json& meta) {
  const api::Json& st = *meta.find("special_tokens");
  tokenizer::SpecialTokens s;
  s.mask_token = st.find("mask_token")->as_string();
  s.cls_id = static_cast<int32_t>(st.find("cls_id")->as_double());
  s.sep_id = static_cast<int32_t>(st.find("sep_id")->as_double());
  s.pad_id = static_cast<int32_t>(st.find("pad_id")->as_double());
  s.mask_id = static_cast<int32_t>(st.find("mask_id")->as_double());
  s.unk_id = static_cast<int32_t>(st.find("unk_id")->as_double());
  return s;
}

}  // namespace laya::test
