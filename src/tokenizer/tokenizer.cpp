#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "laya/errors.h"
#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/utf8.h"

namespace laya::tokenizer {

void TokenizerImpl::finish_load() {
  bpe.finish_load();
  added.build(normalizer ? &*normalizer : nullptr);
  int32_t max_id = -1;
  for (std::size_t id = 0; id < bpe.vocab_r.size(); ++id)
    if (!bpe.vocab_r[id].empty()) max_id = std::max(max_id, int32_t(id));
  for (std::size_t i = 0; i < added.tokens.size(); ++i) {
    added_by_id[added.tokens[i].id] = i;
    max_id = std::max(max_id, added.tokens[i].id);
  }
  vocab_size = max_id + 1;
  fast_byte_level = pre_tokenizer && pre_tokenizer->kind == PreTokenizer::Kind::byte_level &&
                    pre_tokenizer->use_regex && !pre_tokenizer->add_prefix_space;
}

void TokenizerImpl::encode_piece(std::string_view text, bool at_origin, std::vector<int32_t>& out) const {
  if (!pre_tokenizer) {
    bpe.tokenize(text, false, out);
    return;
  }
  if (fast_byte_level) {
    thread_local std::vector<uint32_t> ends;
    ends.clear();
    gpt2_split(text, ends);
    uint32_t prev = 0;
    for (uint32_t e : ends) {
      bpe.tokenize(text.substr(prev, e - prev), true, out);
      prev = e;
    }
    return;
  }
  thread_local PieceList in, res;
  in.clear();
  in.text.assign(text);
  in.pieces.push_back(Piece{0, uint32_t(text.size()), false, at_origin});
  pre_tokenizer->apply(in, res);
  for (const Piece& p : res.pieces) bpe.tokenize(std::string_view(res.text.data() + p.off, p.len), p.byte_level, out);
}

void TokenizerImpl::encode(std::string_view text, std::vector<int32_t>& out) const {
  if (const std::size_t bad = utf8::find_invalid(text); bad != std::string_view::npos) {
    LAYA_FAIL(ErrorKind::bad_request, "text is not valid UTF-8: invalid UTF-8 at byte {}", bad);
  }
  LAYA_REQUIRE(text.size() < (std::size_t(1) << 31), ErrorKind::too_large, "text of {} bytes is too long to tokenize", text.size());
  thread_local std::vector<Segment> raw, norm_segs;
  thread_local std::string normalized;
  added.find_matches(text, added.raw_trie, raw);
  for (const Segment& seg : raw) {
    if (seg.id >= 0) {
      out.push_back(seg.id);
      continue;
    }
    const std::string_view piece = text.substr(seg.start, seg.end - seg.start);
    std::string_view norm = piece;
    if (normalizer) {
      normalizer->apply(piece, normalized);
      norm = normalized;
    }
    added.find_matches(norm, added.normalized_trie, norm_segs);
    for (const Segment& s : norm_segs) {
      if (s.id >= 0) out.push_back(s.id);
      else encode_piece(norm.substr(s.start, s.end - s.start), seg.start == 0 && s.start == 0, out);
    }
  }
}

// ---------------------------------------------------------------- public API

Tokenizer::Tokenizer(std::unique_ptr<TokenizerImpl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

std::shared_ptr<const Tokenizer> Tokenizer::from_file(const std::filesystem::path& path) {
  std::filesystem::path file = path;
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) file /= "tokenizer.json";
  std::ifstream in(file, std::ios::binary);
  LAYA_REQUIRE(in.good(), ErrorKind::io, "cannot open tokenizer file {}", file.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  LAYA_REQUIRE(!in.bad(), ErrorKind::io, "cannot read tokenizer file {}", file.string());
  return from_json(ss.str(), file.string());
}

std::shared_ptr<const Tokenizer> Tokenizer::from_json(std::string_view json, std::string_view origin) {
  auto impl = std::make_unique<TokenizerImpl>();
  load_tokenizer_json(json, origin, *impl);
  impl->finish_load();
  return std::shared_ptr<const Tokenizer>(new Tokenizer(std::move(impl)));
}

std::vector<int32_t> Tokenizer::encode(std::string_view s) const {
  std::vector<int32_t> out;
  impl_->encode(s, out);
  return out;
}

void Tokenizer::encode_append(std::string_view s, std::vector<int32_t>& out) const {
  const std::size_t before = out.size();
  try {
    impl_->encode(s, out);
  } catch (...) {
    out.resize(before);
    throw;
  }
}

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (const int32_t* id = impl_->added.content_to_id.find(token)) return *id;
  if (const int32_t* id = impl_->bpe.vocab.find(token)) return *id;
  return std::nullopt;
}

std::string Tokenizer::id_to_token(int32_t id) const {
  if (auto it = impl_->added_by_id.find(id); it != impl_->added_by_id.end()) return impl_->added.tokens[it->second].content;
  if (id >= 0 && std::size_t(id) < impl_->bpe.vocab_r.size()) return impl_->bpe.vocab_r[std::size_t(id)];
  return {};
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    if (auto it = impl_->added_by_id.find(id); it != impl_->added_by_id.end()) {
      const AddedToken& t = impl_->added.tokens[it->second];
      if (skip_special_tokens && t.special) continue;
      tokens.push_back(t.content);
      continue;
    }
    if (id < 0 || std::size_t(id) >= impl_->bpe.vocab_r.size() || impl_->bpe.vocab_r[std::size_t(id)].empty()) continue;
    tokens.push_back(impl_->bpe.vocab_r[std::size_t(id)]);
  }
  if (!impl_->decoder) {
    std::string out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i) out.push_back(' ');
      out += tokens[i];
    }
    return out;
  }
  impl_->decoder->apply(tokens);
  std::string out;
  for (const std::string& t : tokens) out += t;
  return out;
}

int32_t Tokenizer::vocab_size() const { return impl_->vocab_size; }

}  // namespace laya::tokenizer
