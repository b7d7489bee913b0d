// Fuzzes Tokenizer::from_json (src/tokenizer/json_load.cpp), a checkpoint's tokenizer.json: any byte
// string must either load or throw laya::Error(invalid_checkpoint). A tokenizer that loads must then
// encode a few fixed texts (ASCII, accents, CJK, emoji, whitespace runs, special-token look-alikes)
// to ids inside its vocabulary and decode them; the one error encode may raise is the lazy
// invalid_checkpoint of a BPE whose unk_token is missing from the vocabulary (as Hugging Face
// tokenizers, which also loads such a file and fails only on a text that needs the unknown token).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common.h"
#include "tokenizer/tokenizer.h"

using namespace laya;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  std::shared_ptr<const tokenizer::Tokenizer> tok;
  if (!fuzz::guarded([&] { tok = tokenizer::Tokenizer::from_json(json); }, {ErrorKind::invalid_checkpoint})) return 0;
  if (!tok) fuzz::fail("from_json returned no tokenizer");
  static constexpr std::string_view kTexts[] = {
      "Hello, world! The ticket #4521 is urgent.", "  leading and   inner  spaces\n\ttabs ",
      "caf\xc3\xa9 na\xc3\xafve \xc3\x85ngstr\xc3\xb6m", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xf0\x9f\x98\x80 ok",
      "[CLS] [SEP] [MASK] <s> </s>", "",
  };
  const int32_t vocab = tok->vocab_size();
  for (std::string_view text : kTexts) {
    std::vector<int32_t> ids;
    if (!fuzz::guarded([&] { ids = tok->encode(text); }, {ErrorKind::invalid_checkpoint})) continue;
    for (int32_t id : ids)
      if (id < 0 || id >= vocab) fuzz::fail("encode produced an id outside the vocabulary");
    fuzz::guarded([&] { (void)tok->decode(ids); }, {});
  }
  return 0;
}
