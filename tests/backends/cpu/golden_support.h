// Reading the CPU goldens of tools/oracle/model_goldens.py (tests/data/cpu/<name>.json + .f32).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/batch.h"

namespace laya::test {

struct Golden {
  nlohmann::ordered_json meta;
  std::vector<float> floats;  // the .f32 file (little-endian float32)
};

// Names (file stems) of the committed goldens, sorted.
std::vector<std::string> golden_names();
Golden load_golden(const std::string& name);
// Regenerates the checkpoint the oracle ran from the recorded synth parameters.
void synth_from_record(const nlohmann::ordered_json& synth, const std::filesystem::path& out);
// Rows [{ids, markers, qtype}] -> a packed batch.
engine::Batch batch_from_rows(const nlohmann::ordered_json& rows);

}  // namespace laya::test
