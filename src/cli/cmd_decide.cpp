// laya-engine decide: one request JSON per line (stdin or --input FILE) -> one response JSON per
// line on stdout, byte-identical to the HTTP server's body (same runtime::ModelPipeline stages).
//
//   laya-engine decide --model DIR|demo [--backend cpu|cuda] [--device N] [--threads N]
//                      [--input FILE] [--dump DIR --dump-names embed,encoder.0,...]
//
// A line that fails (bad JSON, invalid question, ...) prints the official error body
// {"detail":"..."} on stdout in its place and the run continues; the exit code is 1 if any line
// failed. Blank lines are skipped. Diagnostics go to stderr.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/error_body.h"
#include "cli/backend_factory.h"
#include "cli/command.h"
#include "cli/jsonl.h"
#include "common/log.h"
#include "engine/parts.h"
#include "laya/errors.h"
#include "runtime/model_pipeline.h"

namespace laya::cli {
namespace {

namespace fs = std::filesystem;

// Writes the selected intermediates of one request as DIR/<line>/<name>.f32 (little-endian float32,
// row-major) with DIR/<line>/index.json giving each name's [rows, cols].
class FileDumps : public engine::DumpSink {
 public:
  FileDumps(fs::path dir, std::set<std::string> names) : dir_(std::move(dir)), names_(std::move(names)) {}
  bool wants(std::string_view name) const override {
    return names_.empty() || names_.count(std::string(name)) > 0;
  }
  void put(std::string_view name, const float* data, size_t rows, size_t cols) override {
    fs::create_directories(dir_);
    std::ofstream out(dir_ / (std::string(name) + ".f32"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(rows * cols * sizeof(float)));
    LAYA_REQUIRE(out.good(), ErrorKind::io, "{}: cannot write dump {}", dir_.string(), name);
    index_[std::string(name)] = {rows, cols};
  }
  void finish() {
    if (index_.empty()) return;
    std::ofstream(dir_ / "index.json") << index_.dump() << "\n";
  }

 private:
  fs::path dir_;
  std::set<std::string> names_;
  nlohmann::json index_ = nlohmann::json::object();
};

struct DecideArgs {
  std::string model;
  engine::BackendOptions backend;
  std::string input;
  std::string dump_dir;
  std::string dump_names;
};

int run_decide(const DecideArgs& a) {
  LoadedModel m = load_model(a.model, a.backend);
  runtime::ModelPipeline pipeline(m.tokenizer, m.special, m.config().agent);
  std::set<std::string> dump_names;
  {
    std::stringstream ss(a.dump_names);
    std::string n;
    while (std::getline(ss, n, ','))
      if (!n.empty()) dump_names.insert(n);
  }

  auto decide = [&](const std::string& line, std::size_t lineno) {
    auto prepared = pipeline.prepare(line);
    engine::ForwardResult r;
    if (!a.dump_dir.empty()) {
      FileDumps sink(fs::path(a.dump_dir) / std::to_string(lineno), dump_names);
      r = m.backend->forward(prepared->batch(), &sink);
      sink.finish();
    } else {  // in parts where the request exceeds one forward (a dump needs the whole batch at once)
      r = engine::forward_in_parts(*m.backend, prepared->batch());
    }
    return prepared->render(r.logits, r.act_logits, r.n_act);
  };
  auto error_body = [](const std::exception& e, std::size_t lineno) {
    spdlog::error("line {}: {}", lineno, e.what());
    const auto* err = dynamic_cast<const Error*>(&e);
    return err ? api::error_body(*err) : api::error_body("inference failed");
  };
  const std::size_t failed =
      run_json_lines(a.input, decide, error_body, {.echo_errors = false, .flush_each_line = true});
  if (failed > 0) {
    fmt::print(stderr, "decide: {} of the requests failed\n", failed);
    return 1;
  }
  return 0;
}

Registration reg("decide", "Answer requests (one JSON per line) with the model", [](CLI::App& sub) -> RunFn {
  auto a = std::make_shared<DecideArgs>();
  sub.add_option("--model", a->model, "checkpoint directory, or 'demo' (random weights)")->required();
  sub.add_option("--backend", a->backend.backend, "cpu | cuda")->capture_default_str();
  sub.add_option("--device", a->backend.device, "GPU index (cuda)")->capture_default_str();
  sub.add_option("--threads", a->backend.threads, "CPU threads (0 = all cores)")->capture_default_str();
  sub.add_option("--precision", a->backend.precision, "cuda: auto (the checkpoint's amp_dtype) | bf16 | fp16")
      ->capture_default_str();
  sub.add_option("--input", a->input, "file with one request JSON per line (default: stdin)");
  sub.add_option("--dump", a->dump_dir, "write intermediates per request to DIR/<line>/<name>.f32");
  sub.add_option("--dump-names", a->dump_names,
                 "comma-separated dump names (embed, encoder.<i>, final_norm, head.<i>, markers, logits, "
                 "act_logits); default all");
  return [a] { return run_decide(*a); };
});

}  // namespace
}  // namespace laya::cli
