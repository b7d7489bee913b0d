// tokenizer.json -> TokenizerImpl (simdjson DOM: the 12 MB Gemma-style file parses in milliseconds).
#include <simdjson.h>

#include "laya/errors.h"
#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/utf8.h"

namespace laya::tokenizer {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// The largest token id accepted (2^21 - 1, 8x the largest real vocabulary, Gemma's 256k). The model
// vocabulary's reverse table is dense by id, so one entry with id 2^31 - 1 (which Hugging Face
// tokenizers, keeping a hash map, accepts) made the loader allocate 2^31 strings and run out of
// memory (found by fuzz/tokenizer_json_fuzz); a Laya checkpoint's ids index its embedding table.
constexpr int64_t kMaxTokenId = (int64_t{1} << 21) - 1;

struct Ctx {
  std::string_view origin;
  [[noreturn]] void fail(std::string_view field, std::string_view what) const {
    LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: {}: {}", origin, field, what);
  }
};

bool is_null(element e) { return e.type() == simdjson::dom::element_type::NULL_VALUE; }

std::optional<element> field(object o, std::string_view key) {
  element e;
  if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
  if (is_null(e)) return std::nullopt;
  return e;
}

object as_object(const Ctx& c, element e, std::string_view name) {
  object o;
  if (e.get(o) != simdjson::SUCCESS) c.fail(name, "expected an object");
  return o;
}

std::string get_string(const Ctx& c, object o, std::string_view key, std::string_view name, std::optional<std::string_view> dflt = {}) {
  auto e = field(o, key);
  if (!e) {
    if (dflt) return std::string(*dflt);
    c.fail(fmt::format("{}.{}", name, key), "missing");
  }
  std::string_view s;
  if (e->get(s) != simdjson::SUCCESS) c.fail(fmt::format("{}.{}", name, key), "expected a string");
  return std::string(s);
}

bool get_bool(const Ctx& c, object o, std::string_view key, std::string_view name, bool dflt) {
  auto e = field(o, key);
  if (!e) return dflt;
  bool b;
  if (e->get(b) != simdjson::SUCCESS) c.fail(fmt::format("{}.{}", name, key), "expected true or false");
  return b;
}

int64_t get_int(const Ctx& c, object o, std::string_view key, std::string_view name, int64_t dflt) {
  auto e = field(o, key);
  if (!e) return dflt;
  int64_t v;
  if (e->get(v) != simdjson::SUCCESS) {
    uint64_t u;
    if (e->get(u) != simdjson::SUCCESS) c.fail(fmt::format("{}.{}", name, key), "expected an integer");
    v = int64_t(u);
  }
  return v;
}

// {"String": "..."} or {"Regex": "..."}: returns the literal, or marks a regex.
std::string get_pattern(const Ctx& c, object o, std::string_view name, bool& is_regex) {
  auto e = field(o, "pattern");
  if (!e) c.fail(fmt::format("{}.pattern", name), "missing");
  object p = as_object(c, *e, fmt::format("{}.pattern", name));
  std::string_view s;
  if (p["String"].get(s) == simdjson::SUCCESS) {
    is_regex = false;
    return std::string(s);
  }
  if (p["Regex"].get(s) == simdjson::SUCCESS) {
    is_regex = true;
    return std::string(s);
  }
  c.fail(fmt::format("{}.pattern", name), "expected {\"String\": ...} or {\"Regex\": ...}");
}

Normalizer parse_normalizer(const Ctx& c, element e, const std::string& name) {
  object o = as_object(c, e, name);
  const std::string type = get_string(c, o, "type", name);
  Normalizer n;
  if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
    n.kind = Normalizer::Kind::unicode;
    n.form = type == "NFC" ? unicode::Form::nfc : type == "NFD" ? unicode::Form::nfd : type == "NFKC" ? unicode::Form::nfkc : unicode::Form::nfkd;
  } else if (type == "Sequence") {
    n.kind = Normalizer::Kind::sequence;
    auto arr = field(o, "normalizers");
    array a;
    if (!arr || arr->get(a) != simdjson::SUCCESS) c.fail(name + ".normalizers", "expected an array");
    std::size_t i = 0;
    for (element x : a) n.children.push_back(parse_normalizer(c, x, fmt::format("{}.normalizers[{}]", name, i++)));
  } else if (type == "Replace") {
    n.kind = Normalizer::Kind::replace;
    bool regex = false;
    n.pattern = get_pattern(c, o, name, regex);
    if (regex) c.fail(name + ".pattern", "Regex patterns in a Replace normalizer are not supported");
    n.content = get_string(c, o, "content", name);
  } else if (type == "Prepend") {
    n.kind = Normalizer::Kind::prepend;
    n.content = get_string(c, o, "prepend", name);
  } else if (type == "Strip") {
    n.kind = Normalizer::Kind::strip;
    n.strip_left = get_bool(c, o, "strip_left", name, false);
    n.strip_right = get_bool(c, o, "strip_right", name, false);
  } else {
    c.fail(name + ".type", fmt::format("normalizer {:?} is not supported (supported: NFC, NFD, NFKC, NFKD, Replace, Prepend, Strip, Sequence)", type));
  }
  return n;
}

PreTokenizer::Prepend parse_prepend_scheme(const Ctx& c, object o, const std::string& name) {
  if (auto e = field(o, "prepend_scheme")) {
    std::string_view s;
    if (e->get(s) != simdjson::SUCCESS) c.fail(name + ".prepend_scheme", "expected a string");
    if (s == "always") return PreTokenizer::Prepend::always;
    if (s == "first") return PreTokenizer::Prepend::first;
    if (s == "never") return PreTokenizer::Prepend::never;
    c.fail(name + ".prepend_scheme", fmt::format("unknown scheme {:?}", s));
  }
  // Older files: add_prefix_space (default true).
  return get_bool(c, o, "add_prefix_space", name, true) ? PreTokenizer::Prepend::always : PreTokenizer::Prepend::never;
}

PreTokenizer parse_pre_tokenizer(const Ctx& c, element e, const std::string& name) {
  object o = as_object(c, e, name);
  const std::string type = get_string(c, o, "type", name);
  PreTokenizer p;
  if (type == "ByteLevel") {
    p.kind = PreTokenizer::Kind::byte_level;
    p.add_prefix_space = get_bool(c, o, "add_prefix_space", name, true);
    p.use_regex = get_bool(c, o, "use_regex", name, true);
  } else if (type == "Metaspace") {
    p.kind = PreTokenizer::Kind::metaspace;
    p.replacement = get_string(c, o, "replacement", name, "\xE2\x96\x81");
    std::size_t i = 0;
    if (p.replacement.empty() || utf8::find_invalid(p.replacement) != std::string_view::npos ||
        (utf8::next(p.replacement, i), i != p.replacement.size()))
      c.fail(name + ".replacement", "expected one character");
    p.prepend_scheme = parse_prepend_scheme(c, o, name);
    p.split = get_bool(c, o, "split", name, true);
  } else if (type == "Split") {
    p.kind = PreTokenizer::Kind::split;
    bool regex = false;
    p.pattern = get_pattern(c, o, name, regex);
    if (regex) {
      if (p.pattern != kGpt2Pattern)
        c.fail(name + ".pattern", fmt::format("Regex {:?} is not supported (only the GPT-2 pattern and literal strings)", p.pattern));
      p.gpt2_regex = true;
    }
    const std::string b = get_string(c, o, "behavior", name);
    if (b == "Removed") p.behavior = SplitBehavior::removed;
    else if (b == "Isolated") p.behavior = SplitBehavior::isolated;
    else if (b == "MergedWithPrevious") p.behavior = SplitBehavior::merged_with_previous;
    else if (b == "MergedWithNext") p.behavior = SplitBehavior::merged_with_next;
    else if (b == "Contiguous") p.behavior = SplitBehavior::contiguous;
    else c.fail(name + ".behavior", fmt::format("unknown behavior {:?}", b));
    p.invert = get_bool(c, o, "invert", name, false);
  } else if (type == "Sequence") {
    p.kind = PreTokenizer::Kind::sequence;
    auto arr = field(o, "pretokenizers");
    array a;
    if (!arr || arr->get(a) != simdjson::SUCCESS) c.fail(name + ".pretokenizers", "expected an array");
    std::size_t i = 0;
    for (element x : a) p.children.push_back(parse_pre_tokenizer(c, x, fmt::format("{}.pretokenizers[{}]", name, i++)));
  } else {
    c.fail(name + ".type", fmt::format("pre-tokenizer {:?} is not supported (supported: ByteLevel, Metaspace, Split, Sequence)", type));
  }
  return p;
}

Decoder parse_decoder(const Ctx& c, element e, const std::string& name) {
  object o = as_object(c, e, name);
  const std::string type = get_string(c, o, "type", name);
  Decoder d;
  if (type == "ByteLevel") {
    d.kind = Decoder::Kind::byte_level;
  } else if (type == "Metaspace") {
    d.kind = Decoder::Kind::metaspace;
    d.replacement = get_string(c, o, "replacement", name, "\xE2\x96\x81");
    d.prepend = parse_prepend_scheme(c, o, name) != PreTokenizer::Prepend::never;
  } else if (type == "ByteFallback") {
    d.kind = Decoder::Kind::byte_fallback;
  } else if (type == "Fuse") {
    d.kind = Decoder::Kind::fuse;
  } else if (type == "Strip") {
    d.kind = Decoder::Kind::strip;
    d.content = get_string(c, o, "content", name, " ");
    d.start = std::size_t(std::max<int64_t>(0, get_int(c, o, "start", name, 0)));
    d.stop = std::size_t(std::max<int64_t>(0, get_int(c, o, "stop", name, 0)));
  } else if (type == "Replace") {
    d.kind = Decoder::Kind::replace;
    bool regex = false;
    d.pattern = get_pattern(c, o, name, regex);
    if (regex) c.fail(name + ".pattern", "Regex patterns in a Replace decoder are not supported");
    d.content = get_string(c, o, "content", name);
  } else if (type == "Sequence") {
    d.kind = Decoder::Kind::sequence;
    auto arr = field(o, "decoders");
    array a;
    if (!arr || arr->get(a) != simdjson::SUCCESS) c.fail(name + ".decoders", "expected an array");
    std::size_t i = 0;
    for (element x : a) d.children.push_back(parse_decoder(c, x, fmt::format("{}.decoders[{}]", name, i++)));
  } else {
    c.fail(name + ".type", fmt::format("decoder {:?} is not supported (supported: ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence)", type));
  }
  return d;
}

void parse_model(const Ctx& c, element e, Bpe& bpe) {
  object o = as_object(c, e, "model");
  const std::string type = get_string(c, o, "type", "model", "BPE");
  if (type != "BPE") c.fail("model.type", fmt::format("model {:?} is not supported (only BPE)", type));
  if (auto d = field(o, "dropout")) {
    double p = 0;
    if (d->get(p) != simdjson::SUCCESS) c.fail("model.dropout", "expected a number");
    if (p > 0) c.fail("model.dropout", "BPE dropout makes tokenization random; only null or 0 is supported");
  }
  if (auto u = field(o, "unk_token")) {
    std::string_view s;
    if (u->get(s) != simdjson::SUCCESS) c.fail("model.unk_token", "expected a string");
    bpe.unk_token = std::string(s);
  }
  bpe.continuing_subword_prefix = get_string(c, o, "continuing_subword_prefix", "model", "");
  bpe.end_of_word_suffix = get_string(c, o, "end_of_word_suffix", "model", "");
  bpe.fuse_unk = get_bool(c, o, "fuse_unk", "model", false);
  bpe.byte_fallback = get_bool(c, o, "byte_fallback", "model", false);
  bpe.ignore_merges = get_bool(c, o, "ignore_merges", "model", false);

  auto ve = field(o, "vocab");
  object vocab;
  if (!ve || ve->get(vocab) != simdjson::SUCCESS) c.fail("model.vocab", "expected an object of token -> id");
  bpe.vocab.reserve(vocab.size());
  for (auto [key, value] : vocab) {
    uint64_t id;
    if (value.get(id) != simdjson::SUCCESS) c.fail(fmt::format("model.vocab[{:?}]", key), "expected a non-negative id");
    if (id > uint64_t{kMaxTokenId}) c.fail(fmt::format("model.vocab[{:?}]", key), fmt::format("id {} is above the largest supported, {}", id, kMaxTokenId));
    bpe.vocab.insert(key, int32_t(id));
    if (bpe.vocab_r.size() <= id) bpe.vocab_r.resize(id + 1);
    bpe.vocab_r[id] = std::string(key);
  }

  auto me = field(o, "merges");
  array merges;
  if (!me || me->get(merges) != simdjson::SUCCESS) c.fail("model.merges", "expected an array");
  bpe.merges.reserve(merges.size());
  const std::size_t prefix_len = bpe.continuing_subword_prefix.size();
  uint32_t rank = 0;
  std::string merged;
  for (element m : merges) {
    std::string_view a, b;
    std::string_view line;
    if (m.get(line) == simdjson::SUCCESS) {  // "a b" (split at the first space)
      const std::size_t sp = line.find(' ');
      if (sp == std::string_view::npos) c.fail(fmt::format("model.merges[{}]", rank), fmt::format("{:?} is not \"a b\"", line));
      a = line.substr(0, sp);
      b = line.substr(sp + 1);
    } else {
      array pair;
      if (m.get(pair) != simdjson::SUCCESS || pair.size() != 2 || pair.at(0).get(a) != simdjson::SUCCESS ||
          pair.at(1).get(b) != simdjson::SUCCESS)
        c.fail(fmt::format("model.merges[{}]", rank), "expected \"a b\" or [\"a\", \"b\"]");
    }
    const int32_t* ia = bpe.vocab.find(a);
    const int32_t* ib = bpe.vocab.find(b);
    if (!ia || !ib) c.fail(fmt::format("model.merges[{}]", rank), fmt::format("token {:?} is not in the vocabulary", !ia ? a : b));
    if (b.size() < prefix_len) c.fail(fmt::format("model.merges[{}]", rank), "right token shorter than continuing_subword_prefix");
    merged.assign(a);
    merged.append(b.substr(prefix_len));
    const int32_t* im = bpe.vocab.find(merged);
    if (!im) c.fail(fmt::format("model.merges[{}]", rank), fmt::format("merged token {:?} is not in the vocabulary", merged));
    bpe.merges.insert(*ia, *ib, MergeMap::Value{rank, *im});
    ++rank;
  }
}

}  // namespace

void load_tokenizer_json(std::string_view json, std::string_view origin, TokenizerImpl& impl) {
  const Ctx c{origin};
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  element root;
  if (auto err = parser.parse(padded).get(root); err != simdjson::SUCCESS)
    LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: not valid JSON: {}", origin, simdjson::error_message(err));
  object o = as_object(c, root, "(root)");

  auto model = field(o, "model");
  if (!model) c.fail("model", "missing");
  parse_model(c, *model, impl.bpe);
  if (auto e = field(o, "normalizer")) impl.normalizer = parse_normalizer(c, *e, "normalizer");
  if (auto e = field(o, "pre_tokenizer")) impl.pre_tokenizer = parse_pre_tokenizer(c, *e, "pre_tokenizer");
  if (auto e = field(o, "decoder")) impl.decoder = parse_decoder(c, *e, "decoder");

  if (auto e = field(o, "added_tokens")) {
    array a;
    if (e->get(a) != simdjson::SUCCESS) c.fail("added_tokens", "expected an array");
    std::size_t i = 0;
    for (element x : a) {
      const std::string name = fmt::format("added_tokens[{}]", i++);
      object t = as_object(c, x, name);
      AddedToken tok;
      tok.content = get_string(c, t, "content", name);
      const int64_t id = get_int(c, t, "id", name, -1);
      if (id < 0) c.fail(name + ".id", "expected a non-negative id");
      if (id > kMaxTokenId) c.fail(name + ".id", fmt::format("id {} is above the largest supported, {}", id, kMaxTokenId));
      tok.special = get_bool(c, t, "special", name, false);
      tok.single_word = get_bool(c, t, "single_word", name, false);
      tok.lstrip = get_bool(c, t, "lstrip", name, false);
      tok.rstrip = get_bool(c, t, "rstrip", name, false);
      tok.normalized = get_bool(c, t, "normalized", name, !tok.special);
      if (utf8::find_invalid(tok.content) != std::string_view::npos) c.fail(name + ".content", "not valid UTF-8");
      // HF gives a token already in the model vocabulary that vocabulary's id.
      if (const int32_t* vid = impl.bpe.vocab.find(tok.content)) tok.id = *vid;
      else tok.id = int32_t(id);
      if (impl.added.content_to_id.find(tok.content)) continue;  // duplicate content: first wins
      impl.added.content_to_id.insert(tok.content, tok.id);
      impl.added.tokens.push_back(std::move(tok));
    }
  }
}

}  // namespace laya::tokenizer
