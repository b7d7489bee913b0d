// `laya-engine check DIR`: validate and describe a checkpoint; exit 0 when valid, 1 otherwise.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>

#include "checkpoint/checkpoint.h"
#include "checkpoint/integrity.h"
#include "cli/build_info.h"
#include "cli/command.h"
#include "model/config_parse.h"
#include "model/inventory.h"

namespace laya::cli {
namespace {

struct CheckArgs {
  std::string dir;
  bool no_hash = false;
};

std::string layer_kinds(const model::EncoderConfig& e) {
  std::string s;
  for (std::size_t i = 0; i < e.layer_global.size(); ++i) {
    if (e.layer_global[i]) s += (s.empty() ? "" : ",") + std::to_string(i);
  }
  return s;
}

int run_check(const CheckArgs& a) {
  checkpoint::Checkpoint ck;
  auto v = checkpoint::Checkpoint::validate(a.dir, &ck);
  const bool ok = v.problems.empty();
  const auto paths = checkpoint::CheckpointPaths::in(a.dir);
  fmt::print("checkpoint: {}\n", a.dir);
  if (ok) {
    const auto& c = ck.config();
    const auto& e = c.encoder;
    fmt::print("kind: {}{}\n", ck.kind(), ck.is_synthetic() ? " (synthetic: random weights, answers are meaningless)" : "");
    fmt::print("model_name: {}   encoder: {}\n", c.agent.model_name, c.agent.encoder_name);
    fmt::print("encoder: {} layers, hidden {}, {} heads x {}, intermediate {}, vocab {}, norm_eps {}\n", e.layers,
               e.hidden, e.heads, e.head_dim, e.intermediate, e.vocab_size, e.norm_eps);
    fmt::print("attention: global layers [{}], local window {} (|i-j| <= {}), rope theta global {} / local {}\n",
               layer_kinds(e), e.local_window, e.local_window / 2, e.global_theta, e.local_theta);
    fmt::print("head: {} layers, {} heads, ffn {}, act_head {} -> {} actions\n", c.head.layers, c.head.heads,
               c.head.ffn, c.head.act_hidden, c.head.n_act);
    fmt::print("lengths: max_len {}, head_max_len {}   amp_dtype {}\n", c.agent.max_len, c.agent.head_max_len,
               c.agent.amp_dtype);
    fmt::print("temperature (choice, score, noul): [{}, {}, {}]", c.agent.temperature[0], c.agent.temperature[1],
               c.agent.temperature[2]);
    if (c.agent.temperature != c.agent.temperature_raw) {
      fmt::print("  (file: [{}, {}, {}])", c.agent.temperature_raw[0], c.agent.temperature_raw[1],
                 c.agent.temperature_raw[2]);
    }
    fmt::print("\n");
    for (const auto& [k, t] : c.agent.temperature_by_options) {
      double raw = c.agent.temperature_by_options_raw.at(k);
      fmt::print("  bucket {:<12} {}{}\n", k, t, raw == t ? "" : fmt::format("  (file: {}, clamped)", raw));
    }
    std::map<std::string, int> dtypes;
    for (const auto& t : ck.weights().tensors()) ++dtypes[std::string(checkpoint::dtype_name(t.dtype))];
    std::string dt;
    for (const auto& [k, n] : dtypes) dt += fmt::format("{}{} {}", dt.empty() ? "" : ", ", n, k);
    fmt::print("tensors: {} ({}), {} parameters, model.safetensors {} bytes\n", ck.weights().tensors().size(), dt,
               ck.parameter_count(), ck.weights().file_size());
  }
  if (!a.no_hash) {
    const bool tty = ::isatty(2) != 0;
    auto progress = [tty](const std::string& role, uint64_t done, uint64_t total) {
      if (!tty || total < (64u << 20)) return;
      if (done % (16u << 20) != 0 && done != total) return;
      fmt::print(stderr, "\rhashing {}: {:3d}% ({} / {} MiB)", role, total ? done * 100 / total : 100, done >> 20,
                 total >> 20);
      if (done == total) fmt::print(stderr, "\n");
    };
    auto rep = checkpoint::check_integrity(paths, progress);
    fmt::print("sha256:\n");
    for (const auto& f : rep.files) {
      fmt::print("  {}  {:<32} {:>11} bytes{}\n", f.sha256, f.role, f.size,
                 f.known_as.empty() ? "" : "  = " + f.known_as);
    }
    fmt::print("integrity: {}\n", rep.verdict);
  }
  for (const auto& w : v.warnings) fmt::print("warning: {}\n", w);
  // What this binary can run the checkpoint with (backends, CUDA arches and library versions).
  fmt::print("engine build:\n");
  for (const auto& line : build_description_lines()) fmt::print("  {}\n", line);
  if (ok) {
    fmt::print("result: OK\n");
    return 0;
  }
  fmt::print("result: INVALID ({} problem{})\n", v.problems.size(), v.problems.size() == 1 ? "" : "s");
  for (const auto& p : v.problems) {
    fmt::print("problem: {}\n", p);
    fmt::print(stderr, "laya-engine check: {}\n", p);
  }
  return 1;
}

Registration reg("check", "Validate and describe a checkpoint directory (exit 0 valid, 1 invalid)",
                 [](CLI::App& sub) -> RunFn {
  auto a = std::make_shared<CheckArgs>();
  sub.add_option("DIR", a->dir, "checkpoint directory")->required();
  sub.add_flag("--no-hash", a->no_hash, "skip the SHA-256 of the files");
  return [a] { return run_check(*a); };
});

}  // namespace
}  // namespace laya::cli
