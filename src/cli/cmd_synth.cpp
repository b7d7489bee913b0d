// `laya-engine synth --layout L --seed N [--tokenizer PATH] [tiny overrides] OUT`
#include <fmt/format.h>

#include <memory>

#include "checkpoint/synth.h"
#include "cli/command.h"

namespace laya::cli {
namespace {

Registration reg("synth", "Write a synthetic checkpoint (random weights) in the official layout",
                 [](CLI::App& sub) -> RunFn {
  auto o = std::make_shared<checkpoint::SynthOptions>();
  sub.add_option("--layout", o->layout, "tiny | english | typed-decisions | multilingual")
      ->check(CLI::IsMember({"tiny", "english", "typed-decisions", "multilingual"}))
      ->default_val("tiny");
  sub.add_option("--seed", o->seed, "random seed (same seed, same bytes)")->default_val(0);
  sub.add_option("--tokenizer", o->tokenizer,
                 "tokenizer folder or tokenizer.json to embed (english/typed-decisions/multilingual; default: "
                 "$LAYA_FIXTURES_DIR/tokenizer-modernbert or -mmbert-standin)");
  sub.add_option("--layers", o->layers, "override: encoder layers");
  sub.add_option("--hidden", o->hidden, "override: hidden size (multiple of 64)");
  sub.add_option("--intermediate", o->intermediate, "override: GeGLU intermediate size");
  sub.add_option("--local-window", o->local_window, "override: local_attention (even)");
  sub.add_option("--max-len", o->max_len, "override: max_len");
  sub.add_option("--head-max-len", o->head_max_len, "override: head_max_len");
  sub.add_option("--amp-dtype", o->amp_dtype, "rl_agent_config.json amp_dtype (bf16 | fp16 | '' to leave it out)")
      ->capture_default_str();
  sub.add_flag("--overwrite", o->overwrite, "write into a non-empty directory");
  sub.add_option("OUT", o->out, "output directory")->required();
  return [o] {
    checkpoint::write_synthetic_checkpoint(*o);
    fmt::print(stderr, "wrote synthetic {} checkpoint (seed {}) to {}\n", o->layout, o->seed, o->out.string());
    return 0;
  };
});

}  // namespace
}  // namespace laya::cli
