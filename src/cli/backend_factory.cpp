#include "cli/backend_factory.h"

#include "backends/cpu/cpu_backend.h"
#include "checkpoint/demo.h"
#include "common/log.h"
#include "laya/errors.h"
#ifdef LAYA_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

namespace laya::cli {

bool has_backend(std::string_view name) {
  if (name == "cpu") return true;
#ifdef LAYA_WITH_CUDA
  if (name == "cuda") return true;
#endif
  return false;
}

std::unique_ptr<engine::Backend> make_backend(const checkpoint::Checkpoint& ckpt, const engine::BackendOptions& options) {
  // Checked for every backend so a typo never passes silently; the CPU backend is fp32 whatever it
  // says (as laya's CPU path ignores amp_dtype), the CUDA backend resolves it (cuda/precision.h).
  LAYA_REQUIRE(options.precision == "auto" || options.precision == "bf16" || options.precision == "fp16",
               ErrorKind::bad_request, "--precision must be auto, bf16 or fp16 (got '{}')", options.precision);
  if (options.backend == "cpu") return cpu::make_cpu_backend(ckpt, options);
  if (options.backend == "cuda") {
#ifdef LAYA_WITH_CUDA
    return laya::cuda::make_cuda_backend(ckpt, options);
#else
    LAYA_FAIL(ErrorKind::bad_request, "backend 'cuda': this binary was built without the CUDA backend "
              "(configure with -DLAYA_WITH_CUDA=ON, e.g. the cuda preset)");
#endif
  }
  LAYA_FAIL(ErrorKind::bad_request, "unknown backend '{}' (use cpu or cuda)", options.backend);
}

LoadedModel load_model(std::string_view model_arg, const engine::BackendOptions& options, bool with_backend) {
  LoadedModel m;
  m.dir = checkpoint::resolve_model_dir(model_arg, &m.is_demo);
  m.checkpoint.emplace(checkpoint::Checkpoint::open(m.dir));
  for (const auto& w : m.checkpoint->warnings()) spdlog::warn("{}: {}", m.dir.string(), w);
  if (m.is_demo || m.checkpoint->is_synthetic())
    spdlog::warn("{}: synthetic checkpoint with random weights: its answers are meaningless", m.dir.string());
  const auto& paths = m.checkpoint->paths();
  m.tokenizer = tokenizer::Tokenizer::from_file(paths.tokenizer_json);
  m.special = tokenizer::load_special_tokens(paths.tokenizer_config, *m.tokenizer);
  if (with_backend) m.backend = make_backend(*m.checkpoint, options);
  return m;
}

}  // namespace laya::cli
