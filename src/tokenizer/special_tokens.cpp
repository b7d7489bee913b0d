#include "tokenizer/special_tokens.h"

#include "laya/errors.h"

namespace laya::tokenizer {
SpecialTokens load_special_tokens(const std::filesystem::path& p, const Tokenizer&) {
  LAYA_FAIL(ErrorKind::internal, "special tokens not implemented yet ({})", p.string());
}
}  // namespace laya::tokenizer
