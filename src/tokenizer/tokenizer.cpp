// Temporary stub so that dependants link while the implementation lands.
#include "tokenizer/tokenizer.h"

#include "laya/errors.h"

namespace laya::tokenizer {
class TokenizerImpl {};
Tokenizer::Tokenizer(std::unique_ptr<TokenizerImpl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;
std::shared_ptr<const Tokenizer> Tokenizer::from_file(const std::filesystem::path& p) {
  LAYA_FAIL(ErrorKind::internal, "tokenizer not implemented yet ({})", p.string());
}
std::shared_ptr<const Tokenizer> Tokenizer::from_json(std::string_view, std::string_view o) {
  LAYA_FAIL(ErrorKind::internal, "tokenizer not implemented yet ({})", o);
}
std::vector<int32_t> Tokenizer::encode(std::string_view s) const {
  std::vector<int32_t> out;
  encode_append(s, out);
  return out;
}
void Tokenizer::encode_append(std::string_view, std::vector<int32_t>&) const {}
std::optional<int32_t> Tokenizer::token_to_id(std::string_view) const { return std::nullopt; }
std::string Tokenizer::id_to_token(int32_t) const { return {}; }
std::string Tokenizer::decode(std::span<const int32_t>, bool) const { return {}; }
int32_t Tokenizer::vocab_size() const { return 0; }
}  // namespace laya::tokenizer
