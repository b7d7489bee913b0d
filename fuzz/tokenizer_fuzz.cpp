// Fuzzes Tokenizer::encode (src/tokenizer/) of the real ModernBERT tokenizer (loaded once from the
// shared fixtures) on arbitrary bytes: invalid UTF-8 must be a laya::Error(bad_request), valid UTF-8
// must encode without throwing, every id must be inside the vocabulary, and decoding the ids must not
// fail either.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "common.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

using namespace laya;

namespace {
std::shared_ptr<const tokenizer::Tokenizer> g_tok;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_tok = tokenizer::Tokenizer::from_file(fuzz::fixtures_dir() / "tokenizer-modernbert" / "tokenizer.json");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const bool valid = tokenizer::utf8::find_invalid(text) == std::string_view::npos;
  std::vector<int32_t> ids;
  bool ok = fuzz::guarded([&] { ids = g_tok->encode(text); }, {ErrorKind::bad_request});
  if (ok == !valid) fuzz::fail(valid ? "valid UTF-8 rejected" : "invalid UTF-8 accepted");
  if (!ok) return 0;
  for (int32_t id : ids)
    if (id < 0 || id >= g_tok->vocab_size()) fuzz::fail("token id out of the vocabulary:", std::to_string(id));
  fuzz::guarded([&] { (void)g_tok->decode(ids); }, {});
  return 0;
}
