// The tiny layout's tokenizer: a small byte-level BPE in the exact format of ModernBERT's
// tokenizer.json (NFC normalizer, ByteLevel pre-tokenizer without prefix space, BPE over the 256
// GPT-2 byte symbols plus merges, ByteLevel decoder, [CLS] $A [SEP] template, specials at the end
// with [MASK] lstrip), trained deterministically on a small built-in English + JSON corpus.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "checkpoint/synth.h"

namespace laya::checkpoint {
namespace {

using ojson = nlohmann::ordered_json;

constexpr int kMerges = 400;

// Text of the kind Laya sees: questions, options, JSON states, conversations.
constexpr const char* kCorpus[] = {
    "choice question: Which team should handle this ticket? Pick the best option for the customer.",
    "score question: How urgent is this request on a scale from one to five?",
    "noul question: Does the customer ask for a refund? false: no refund is requested. true: the customer wants "
    "their money back.",
    "Please refund the duplicate charge. I was billed twice for the same order and I would like the second payment "
    "returned to my card as soon as possible.",
    "The user wants to cancel the subscription before the next billing date. They mention that the service was "
    "slow and the support team did not answer their emails.",
    "{\"role\": \"user\", \"content\": \"Hello, my package has not arrived yet and the tracking number does not "
    "work.\"}",
    "{\"role\": \"assistant\", \"content\": \"I am sorry to hear that. Let me check the status of your order.\"}",
    "{\"order_id\": 12345, \"status\": \"shipped\", \"items\": [\"laptop\", \"charger\"], \"total\": 1299.99, "
    "\"currency\": \"USD\", \"express\": true, \"notes\": null}",
    "{\"customer\": {\"name\": \"Alice\", \"tier\": \"gold\", \"country\": \"DE\"}, \"messages\": 3, \"sentiment\": "
    "\"negative\"}",
    "billing, shipping, technical support, account access, sales, returns, complaints, feedback, other",
    "Is the message spam? Is the answer correct? Should the agent escalate to a human? Is the tone polite?",
    "very low, low, medium, high, very high; strongly disagree, disagree, neutral, agree, strongly agree",
    "The quick brown fox jumps over the lazy dog. A decision model reads the state and scores each option.",
    "Classify the intent of the message. Rate the quality of the reply. Decide whether the request is allowed.",
    "The weather today is sunny with a light wind from the west. Tomorrow there will be rain in the morning.",
    "Error: connection timed out after 30 seconds while contacting the payment server. Retrying in 5 minutes.",
    "def handler(event, context): return {\"statusCode\": 200, \"body\": json.dumps(result)}",
    "Thank you for your patience. Your refund of 49.90 EUR has been processed and will appear within 3 to 5 days.",
    "The product arrived damaged and the box was open. I want a replacement or my money back, please help me.",
    "Summary: the user is satisfied with the answer, the issue is resolved, no further action is needed.",
    "questions: [{\"id\": \"intent\", \"type\": \"choice\", \"options\": [\"buy\", \"sell\", \"ask\"]}]",
    "state: the conversation so far, including every message of the user and of the assistant, in order.",
};

std::vector<std::string> byte_symbols() {
  // GPT-2 bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 + n.
  std::vector<std::string> sym(256);
  int n = 0;
  auto utf8 = [](int cp) {
    std::string s;
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
  };
  for (int b = 0; b < 256; ++b) {
    bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    sym[b] = utf8(printable ? b : 256 + n++);
  }
  return sym;
}

// ASCII approximation of the GPT-2 pre-tokenizer regex; only used to collect training words.
std::vector<std::string> pre_tokenize(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  auto cls = [](unsigned char c) { return std::isalpha(c) ? 0 : std::isdigit(c) ? 1 : std::isspace(c) ? 2 : 3; };
  while (i < text.size()) {
    std::size_t start = i;
    if (text[i] == ' ' && i + 1 < text.size() && cls(text[i + 1]) != 2) ++i;
    int k = cls(static_cast<unsigned char>(text[i]));
    while (i < text.size() && cls(static_cast<unsigned char>(text[i])) == k) ++i;
    out.push_back(text.substr(start, i - start));
  }
  return out;
}

}  // namespace

TinyTokenizerFiles make_tiny_tokenizer() {
  const auto sym = byte_symbols();
  std::map<std::vector<std::string>, int64_t> words;
  for (const char* doc : kCorpus) {
    for (const auto& w : pre_tokenize(doc)) {
      std::vector<std::string> s;
      for (unsigned char c : w) s.push_back(sym[c]);
      ++words[s];
    }
  }
  std::vector<std::pair<std::vector<std::string>, int64_t>> corpus(words.begin(), words.end());

  // Vocabulary: the 256 byte symbols ordered by code point, then merges in order, then specials.
  std::vector<std::string> vocab = sym;
  std::sort(vocab.begin(), vocab.end(), [](const std::string& a, const std::string& b) {
    auto cp = [](const std::string& s) {
      auto c0 = static_cast<unsigned char>(s[0]);
      return c0 < 0x80 ? static_cast<int>(c0) : ((c0 & 0x1F) << 6) | (static_cast<unsigned char>(s[1]) & 0x3F);
    };
    return cp(a) < cp(b);
  });
  std::vector<std::pair<std::string, std::string>> merges;
  for (int m = 0; m < kMerges; ++m) {
    std::map<std::pair<std::string, std::string>, int64_t> pairs;
    for (const auto& [w, n] : corpus) {
      for (std::size_t i = 0; i + 1 < w.size(); ++i) pairs[{w[i], w[i + 1]}] += n;
    }
    const std::pair<std::string, std::string>* best = nullptr;
    int64_t best_n = 1;  // a merge must occur at least twice
    for (const auto& [p, n] : pairs) {  // map order: ties go to the lexicographically smallest pair
      if (n > best_n) {
        best = &p;
        best_n = n;
      }
    }
    if (best == nullptr) break;
    auto pair = *best;
    merges.push_back(pair);
    vocab.push_back(pair.first + pair.second);
    for (auto& [w, n] : corpus) {
      std::vector<std::string> r;
      for (std::size_t i = 0; i < w.size(); ++i) {
        if (i + 1 < w.size() && w[i] == pair.first && w[i + 1] == pair.second) {
          r.push_back(pair.first + pair.second);
          ++i;
        } else {
          r.push_back(w[i]);
        }
      }
      w = std::move(r);
    }
  }

  const int32_t base = static_cast<int32_t>(vocab.size());
  const char* specials[] = {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"};
  ojson added = ojson::array();
  ojson decoder = ojson::object();
  for (int i = 0; i < 5; ++i) {
    const bool lstrip = std::string(specials[i]) == "[MASK]";
    added.push_back({{"id", base + i}, {"content", specials[i]}, {"single_word", false}, {"lstrip", lstrip},
                     {"rstrip", false}, {"normalized", false}, {"special", true}});
    decoder[std::to_string(base + i)] = {{"content", specials[i]}, {"lstrip", lstrip}, {"normalized", false},
                                         {"rstrip", false}, {"single_word", false}, {"special", true}};
  }
  auto special = [&](const char* s, int i) {
    return ojson{{"id", s}, {"ids", {base + i}}, {"tokens", {s}}};
  };
  auto tok = [](const char* kind, const char* id) { return ojson{{kind, {{"id", id}, {"type_id", 0}}}}; };

  ojson t;
  t["version"] = "1.0";
  t["truncation"] = nullptr;
  t["padding"] = nullptr;
  t["added_tokens"] = added;
  t["normalizer"] = {{"type", "NFC"}};
  t["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  t["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single", {tok("SpecialToken", "[CLS]"), tok("Sequence", "A"), tok("SpecialToken", "[SEP]")}},
      {"pair",
       {tok("SpecialToken", "[CLS]"), tok("Sequence", "A"), tok("SpecialToken", "[SEP]"), tok("Sequence", "B"),
        tok("SpecialToken", "[SEP]")}},
      {"special_tokens",
       {{"[CLS]", special("[CLS]", 1)}, {"[MASK]", special("[MASK]", 4)}, {"[PAD]", special("[PAD]", 3)},
        {"[SEP]", special("[SEP]", 2)}, {"[UNK]", special("[UNK]", 0)}}}};
  t["decoder"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  ojson v = ojson::object();
  for (std::size_t i = 0; i < vocab.size(); ++i) v[vocab[i]] = static_cast<int64_t>(i);
  ojson mg = ojson::array();
  for (const auto& [a, b] : merges) mg.push_back({a, b});
  t["model"] = {{"type", "BPE"},          {"dropout", nullptr},    {"unk_token", nullptr},
                {"continuing_subword_prefix", nullptr}, {"end_of_word_suffix", nullptr},
                {"fuse_unk", false},      {"byte_fallback", false}, {"ignore_merges", false},
                {"vocab", v},             {"merges", mg}};

  ojson c;
  c["added_tokens_decoder"] = decoder;
  c["clean_up_tokenization_spaces"] = true;
  c["cls_token"] = "[CLS]";
  c["mask_token"] = "[MASK]";
  c["model_max_length"] = 1000000000000000019884624838656.0;
  c["pad_token"] = "[PAD]";
  c["sep_token"] = "[SEP]";
  c["tokenizer_class"] = "PreTrainedTokenizerFast";
  c["model_input_names"] = {"input_ids", "attention_mask"};
  c["unk_token"] = "[UNK]";

  TinyTokenizerFiles f;
  f.tokenizer_json = t.dump(2, ' ', /*ensure_ascii=*/false);
  f.tokenizer_config_json = c.dump(2, ' ', false) + "\n";
  f.vocab_size = base + 5;
  return f;
}

}  // namespace laya::checkpoint
