// Fuzzes parse_request (src/api/request.h) on an HTTP body, then, for accepted requests, what the
// server does next before the forward pass: build_rows (src/prompt/) with the real ModernBERT
// tokenizer and its special tokens (loaded once) under the typed-decisions limits (max_len 1024,
// head_max_len 256). parse_request may only throw laya::Error bad_request / too_large /
// unprocessable; build_rows only unprocessable (options past the row); the packed batch must pass
// engine::Batch::validate (the check backends run, which throws `internal` = a 500) and the usage
// object must render.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "api/request.h"
#include "common.h"
#include "prompt/rows.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

using namespace laya;

namespace {
std::shared_ptr<const tokenizer::Tokenizer> g_tok;
tokenizer::SpecialTokens g_special;
constexpr prompt::RowLimits kLimits{1024, 256};
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto dir = fuzz::fixtures_dir() / "tokenizer-modernbert";
  g_tok = tokenizer::Tokenizer::from_file(dir / "tokenizer.json");
  g_special = tokenizer::load_special_tokens(dir / "original" / "tokenizer_config.json", *g_tok);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  api::DecisionRequest req;
  bool ok = fuzz::guarded([&] { req = api::parse_request(body); },
                          {ErrorKind::bad_request, ErrorKind::too_large, ErrorKind::unprocessable});
  if (!ok) return 0;
  prompt::PackedRequest packed;
  ok = fuzz::guarded([&] { packed = prompt::build_rows(req, *g_tok, g_special, kLimits); }, {ErrorKind::unprocessable});
  if (!ok) return 0;
  if (packed.batch.rows() != static_cast<int32_t>(req.questions.size())) fuzz::fail("row count != question count");
  for (int32_t r = 0; r < packed.batch.rows(); ++r) {
    if (packed.batch.row_markers(r) != static_cast<int32_t>(req.questions[static_cast<size_t>(r)].n_options()))
      fuzz::fail("marker count != option count");
  }
  fuzz::guarded(
      [&] {
        if (packed.batch.rows() > 0) packed.batch.validate(g_tok->vocab_size(), kLimits.max_len);
        (void)prompt::usage_json(packed.usage);
      },
      {});
  return 0;
}
