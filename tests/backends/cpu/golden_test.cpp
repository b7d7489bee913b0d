// The CPU backend against the OFFICIAL laya package (tools/oracle/model_goldens.py): for every
// committed golden, the tiny synthetic checkpoint is regenerated with the C++ synth API from the
// recorded parameters, its model.safetensors hash is checked against the one the oracle saw, and
// every recorded request's token rows are run through the backend:
//   intermediates (embed, encoder.<i>, final_norm, head.<i>, markers): nRMS <= 1e-5 on valid positions
//   logits: max |Δ| <= 1e-4;  act logits: |Δ| <= 1e-4 · max(1, |ref|)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/cpu/cpu_backend.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/integrity.h"
#include "checkpoint/synth.h"
#include "golden_support.h"
#include "support/paths.h"

namespace laya::cpu {
namespace {

namespace fs = std::filesystem;

class Keep : public engine::DumpSink {
 public:
  bool wants(std::string_view name) const override { return name != "logits" && name != "act_logits"; }
  void put(std::string_view name, const float* data, size_t rows, size_t cols) override {
    auto& t = tensors[std::string(name)];
    t.rows = rows;
    t.cols = cols;
    t.data.assign(data, data + rows * cols);
  }
  struct T {
    size_t rows = 0, cols = 0;
    std::vector<float> data;
  };
  std::map<std::string, T> tensors;
};

double nrms(const float* a, const float* ref, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - ref[i];
    num += d * d;
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

class CpuGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuGolden, MatchesOfficialPackage) {
  const auto g = test::load_golden(GetParam());
  const fs::path dir = test::make_temp_dir("laya_cpu_golden");
  const fs::path ckpt_dir = dir / "ckpt";
  test::synth_from_record(g.meta.at("synth"), ckpt_dir);
  const std::string sha = checkpoint::sha256_file(ckpt_dir / "model.safetensors");
  ASSERT_EQ(sha, g.meta.at("model_safetensors_sha256").get<std::string>())
      << "the synthetic checkpoint generator drifted since " << GetParam()
      << " was recorded: regenerate the goldens with tools/oracle/model_goldens.py";
  auto ckpt = checkpoint::Checkpoint::open(ckpt_dir);
  engine::BackendOptions opts;
  auto backend = make_cpu_backend(ckpt, opts);

  size_t n_requests = 0, n_tensors = 0;
  double worst_nrms = 0, worst_logit = 0, worst_act = 0;
  for (const auto& rec : g.meta.at("records")) {
    const auto batch = test::batch_from_rows(rec.at("rows"));
    Keep sink;
    const bool with_tensors = rec.contains("tensors");
    const auto out = backend->forward(batch, with_tensors ? &sink : nullptr);
    size_t k = 0;
    const auto& logits = rec.at("logits");
    for (size_t r = 0; r < logits.size(); ++r) {
      for (const auto& v : logits[r]) {
        const double d = std::abs(out.logits.at(k) - v.get<double>());
        worst_logit = std::max(worst_logit, d);
        EXPECT_LE(d, 1e-4) << "request " << n_requests << " row " << r << " marker " << k;
        ++k;
      }
      for (size_t a = 0; a < 2; ++a) {
        const double ref = rec.at("act_logits")[r][a].get<double>();
        const double d = std::abs(out.act_logits.at(r * 2 + a) - ref);
        worst_act = std::max(worst_act, d / std::max(1.0, std::abs(ref)));
        EXPECT_LE(d, 1e-4 * std::max(1.0, std::abs(ref))) << "request " << n_requests << " row " << r << " act " << a;
      }
    }
    EXPECT_EQ(k, out.logits.size());
    if (with_tensors) {
      for (const auto& [name, info] : rec.at("tensors").items()) {
        const auto it = sink.tensors.find(name);
        ASSERT_NE(it, sink.tensors.end()) << "backend did not dump " << name;
        const size_t rows = info.at("rows").get<size_t>(), cols = info.at("cols").get<size_t>();
        ASSERT_EQ(it->second.rows, rows) << name;
        ASSERT_EQ(it->second.cols, cols) << name;
        const float* ref = g.floats.data() + info.at("offset").get<size_t>();
        ASSERT_LE(info.at("offset").get<size_t>() + rows * cols, g.floats.size());
        const double e = nrms(it->second.data.data(), ref, rows * cols);
        worst_nrms = std::max(worst_nrms, e);
        EXPECT_LE(e, 1e-5) << "request " << n_requests << " tensor " << name;
        ++n_tensors;
      }
    }
    ++n_requests;
  }
  EXPECT_GE(n_requests, 50u);
  EXPECT_GT(n_tensors, 0u);
  std::printf("%s: %zu requests, %zu tensors; worst nRMS %.3g, logits |d| %.3g, act rel %.3g\n", GetParam().c_str(),
              n_requests, n_tensors, worst_nrms, worst_logit, worst_act);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Tiny, CpuGolden, ::testing::ValuesIn(test::golden_names()),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace laya::cpu
