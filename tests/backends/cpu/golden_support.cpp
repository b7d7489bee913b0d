#include "golden_support.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "checkpoint/synth.h"
#include "support/paths.h"

namespace laya::test {

namespace fs = std::filesystem;

namespace {
fs::path data_dir() { return source_dir() / "tests" / "data" / "cpu"; }
}  // namespace

std::vector<std::string> golden_names() {
  std::vector<std::string> names;
  if (!fs::exists(data_dir())) return names;
  for (const auto& e : fs::directory_iterator(data_dir()))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Golden load_golden(const std::string& name) {
  Golden g;
  g.meta = nlohmann::ordered_json::parse(read_text(data_dir() / (name + ".json")));
  const std::string bytes = read_text(data_dir() / g.meta.at("tensor_file").get<std::string>());
  if (bytes.size() % 4 != 0) throw std::runtime_error(name + ": tensor file size is not a multiple of 4");
  g.floats.resize(bytes.size() / 4);
  std::memcpy(g.floats.data(), bytes.data(), bytes.size());  // the test hosts are little-endian
  return g;
}

void synth_from_record(const nlohmann::ordered_json& s, const fs::path& out) {
  checkpoint::SynthOptions o;
  o.layout = s.at("layout").get<std::string>();
  o.seed = s.at("seed").get<uint64_t>();
  o.out = out;
  auto opt = [&](const char* key, int& field) {
    if (s.contains(key)) field = s.at(key).get<int>();
  };
  opt("layers", o.layers);
  opt("hidden", o.hidden);
  opt("intermediate", o.intermediate);
  opt("local_window", o.local_window);
  opt("max_len", o.max_len);
  opt("head_max_len", o.head_max_len);
  checkpoint::write_synthetic_checkpoint(o);
}

engine::Batch batch_from_rows(const nlohmann::ordered_json& rows) {
  engine::Batch b;
  for (const auto& r : rows) {
    const auto ids = r.at("ids").get<std::vector<int32_t>>();
    const auto markers = r.at("markers").get<std::vector<int32_t>>();
    b.add_row(ids, markers, r.at("qtype").get<int32_t>());
  }
  return b;
}

}  // namespace laya::test
