#include "checkpoint/demo.h"

#include <unistd.h>

#include <cstdlib>
#include <random>

#include "checkpoint/synth.h"
#include "laya/errors.h"

namespace laya::checkpoint {
namespace fs = std::filesystem;

namespace {
constexpr uint64_t kDemoSeed = 20260924;  // laya 0.3.20's release date: any fixed value works
constexpr const char* kDemoName = "demo-v1";
}  // namespace

fs::path demo_cache_dir() {
  if (const char* d = std::getenv("LAYA_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "laya-engine";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "laya-engine";
  return fs::temp_directory_path() / "laya-engine-cache";
}

std::filesystem::path resolve_model_dir(std::string_view model_arg, bool* is_demo) {
  if (is_demo) *is_demo = model_arg == kDemoModel;
  if (model_arg != kDemoModel) {
    fs::path p(model_arg);
    std::error_code ec;
    if (model_arg.empty() || !fs::exists(p, ec)) {
      LAYA_FAIL(ErrorKind::not_found, "model directory '{}' does not exist (pass a checkpoint folder or 'demo')",
                model_arg);
    }
    return p;
  }
  const fs::path cache = demo_cache_dir();
  const fs::path dir = cache / kDemoName;
  std::error_code ec;
  if (fs::is_regular_file(dir / "model.safetensors", ec)) return dir;
  fs::create_directories(cache, ec);
  if (ec) LAYA_FAIL(ErrorKind::io, "cannot create the demo cache directory {}: {}", cache.string(), ec.message());
  // Generate beside the target and rename: the rename is atomic, and a process that loses the race
  // finds the winner's complete directory and discards its own.
  std::random_device rd;
  const fs::path tmp = cache / fmt::format(".{}.tmp-{}-{}", kDemoName, ::getpid(), rd());
  SynthOptions o;
  o.layout = "tiny";
  o.seed = kDemoSeed;
  o.out = tmp;
  try {
    write_synthetic_checkpoint(o);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  fs::rename(tmp, dir, ec);
  if (ec) {
    fs::remove_all(tmp);
    if (!fs::is_regular_file(dir / "model.safetensors")) {
      LAYA_FAIL(ErrorKind::io, "cannot install the demo checkpoint at {}: {}", dir.string(), ec.message());
    }
  }
  return dir;
}

}  // namespace laya::checkpoint
