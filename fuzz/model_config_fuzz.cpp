// Fuzzes parse_model_config_text (src/model/config_parse.h): the input is split at the first NUL byte
// (or, without one, used for both) into encoder/config.json and rl_agent_config.json texts. Corrupt or
// hostile config files may only throw laya::Error(invalid_checkpoint); an accepted config must hold
// the ranges the engine relies on (head_dim 64, one layer kind per layer, 1 <= max_len <= 8192,
// clamped temperatures in [0.5, 5]).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common.h"
#include "model/config_parse.h"

using namespace laya;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view all(reinterpret_cast<const char*>(data), size);
  size_t cut = all.find('\0');
  std::string enc(all.substr(0, cut));
  std::string agent(cut == std::string_view::npos ? all : all.substr(cut + 1));
  std::vector<std::string> warnings;
  model::ModelConfig c;
  bool ok = fuzz::guarded(
      [&] {
        c = model::parse_model_config_text(enc, "encoder/config.json", agent, "rl_agent_config.json", &warnings,
                                           /*log_warnings=*/false);
      },
      {ErrorKind::invalid_checkpoint});
  if (!ok) return 0;
  const auto& e = c.encoder;
  if (e.hidden <= 0 || e.heads <= 0 || e.hidden / e.heads != 64 || e.head_dim != 64) fuzz::fail("bad head geometry");
  if (static_cast<int32_t>(e.layer_global.size()) != e.layers) fuzz::fail("layer kinds != layers");
  if (c.agent.max_len < 1 || c.agent.max_len > model::kMaxSupportedLen) fuzz::fail("max_len out of range");
  for (double t : c.agent.temperature)
    if (!(t >= 0.5 && t <= 5.0)) fuzz::fail("temperature not clamped");
  for (const auto& [k, t] : c.agent.temperature_by_options)
    if (!(t >= 0.5 && t <= 5.0)) fuzz::fail("temperature_by_options not clamped:", k);
  return 0;
}
