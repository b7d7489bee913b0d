#include "prompt/rows.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/python_json.h"

namespace laya::prompt {

std::string replace_mask(std::string_view s, std::string_view mask) {
  if (mask.empty()) return std::string(s);
  size_t pos = s.find(mask);
  if (pos == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size());
  size_t start = 0;
  while (pos != std::string_view::npos) {
    out.append(s.substr(start, pos - start));
    out.push_back(' ');
    start = pos + mask.size();
    pos = s.find(mask, start);
  }
  out.append(s.substr(start));
  return out;
}

PackedRequest build_rows(const api::DecisionRequest& request, const tokenizer::Tokenizer& tok,
                         const tokenizer::SpecialTokens& special, const model::AgentConfig& config) {
  return build_rows(request, tok, special, RowLimits::from(config));
}

PackedRequest build_rows(const api::DecisionRequest& request, const tokenizer::Tokenizer& tok,
                         const tokenizer::SpecialTokens& special, const RowLimits& limits) {
  PackedRequest out;
  if (request.questions.empty()) return out;  // predict_batch: no tokenisation, zero usage
  const std::string& mask = special.mask_token;
  const int32_t max_len = limits.max_len, head_max_len = limits.head_max_len;
  // The state is tokenised once for every question (Agent._encode_state).
  std::vector<int32_t> state_ids = tok.encode(replace_mask(request.state_text, mask));
  out.usage.state_tokens = static_cast<int64_t>(state_ids.size());

  std::vector<int32_t> ids, markers, head;
  std::vector<std::vector<int32_t>> opts;
  for (const auto& q : request.questions) {
    std::string head_text = fmt::format("{} question: {}", api::qtype_name(q.type), replace_mask(q.instructions, mask));
    head = tok.encode(head_text);
    opts.resize(q.option_texts.size());
    int64_t opt_total = 0;
    for (size_t i = 0; i < q.option_texts.size(); ++i) {
      auto& o = opts[i];
      o.clear();
      o.push_back(special.mask_id);
      std::string text = " " + replace_mask(q.option_texts[i], mask);
      tok.encode_append(text, o);
      if (o.size() > 49) o.resize(49);  // [MASK] + the first 48 tokens
      opt_total += static_cast<int64_t>(o.size());
    }
    int64_t budget = head_max_len - opt_total;
    if (budget < 16) {
      int64_t per = std::max<int64_t>(4, (head_max_len - 16) / std::max<int64_t>(1, static_cast<int64_t>(opts.size())));
      opt_total = 0;
      for (auto& o : opts) {
        if (static_cast<int64_t>(o.size()) > per) o.resize(static_cast<size_t>(per));
        opt_total += static_cast<int64_t>(o.size());
      }
      budget = head_max_len - opt_total;
    }
    // head_ids[: max(8, budget)]
    size_t keep = static_cast<size_t>(std::max<int64_t>(8, budget));
    if (head.size() > keep) head.resize(keep);

    ids.clear();
    markers.clear();
    ids.push_back(special.cls_id);
    ids.insert(ids.end(), head.begin(), head.end());
    ids.push_back(special.sep_id);
    for (const auto& o : opts) {
      markers.push_back(static_cast<int32_t>(ids.size()));
      ids.insert(ids.end(), o.begin(), o.end());
    }
    ids.push_back(special.sep_id);
    int64_t room = std::max<int64_t>(0, static_cast<int64_t>(max_len) - static_cast<int64_t>(ids.size()) - 1);
    size_t n_state = state_ids.size();
    size_t kept = std::min<size_t>(n_state, static_cast<size_t>(room));
    if (request.state_is_list) {
      ids.insert(ids.end(), state_ids.end() - static_cast<std::ptrdiff_t>(kept), state_ids.end());
    } else {
      ids.insert(ids.end(), state_ids.begin(), state_ids.begin() + static_cast<std::ptrdiff_t>(kept));
    }
    ids.push_back(special.sep_id);
    if (static_cast<int64_t>(ids.size()) > max_len) ids.resize(static_cast<size_t>(max_len));
    size_t valid = 0;
    for (int32_t m : markers)
      if (m < max_len) ++valid;
    if (valid != q.option_texts.size())
      LAYA_FAIL(ErrorKind::unprocessable, "question {} options exceed head_max_len={}", api::python_repr_string(q.id),
                head_max_len);
    out.batch.add_row(ids, markers, static_cast<int32_t>(q.type));
    out.usage.input_tokens += static_cast<int64_t>(ids.size());
    int64_t dropped = static_cast<int64_t>(n_state - kept);
    if (dropped > 0) {
      out.usage.truncated = true;
      out.usage.truncated_questions.push_back(q.id);
      out.usage.state_tokens_dropped = std::max(out.usage.state_tokens_dropped, dropped);
    }
  }
  return out;
}

std::string usage_json(const Usage& u, bool extended) {
  std::string s = fmt::format("{{\"input_tokens\":{},\"output_tokens\":{}", u.input_tokens, u.output_tokens);
  if (extended) {
    s += fmt::format(",\"state_tokens\":{},\"state_tokens_dropped\":{},\"truncated\":{},\"truncated_questions\":[",
                     u.state_tokens, u.state_tokens_dropped, u.truncated ? "true" : "false");
    for (size_t i = 0; i < u.truncated_questions.size(); ++i) {
      if (i) s.push_back(',');
      api::append_python_json_string(s, u.truncated_questions[i]);
    }
    s += "]";
  }
  s += "}";
  return s;
}

}  // namespace laya::prompt
