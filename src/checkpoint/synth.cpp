#include "checkpoint/synth.h"

#include "laya/errors.h"

namespace laya::checkpoint {

void write_synthetic_checkpoint(const SynthOptions&) { LAYA_FAIL(ErrorKind::internal, "synth: not implemented yet"); }
TinyTokenizerFiles make_tiny_tokenizer() { LAYA_FAIL(ErrorKind::internal, "synth: not implemented yet"); }

}  // namespace laya::checkpoint
