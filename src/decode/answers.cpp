#include "decode/answers.h"

#include <cmath>

#include <fmt/format.h>

#include "api/python_json.h"
#include "decode/numerics.h"
#include "laya/errors.h"

namespace laya::decode {

namespace {

void append_rounded(std::string& out, double x) { api::append_python_float(out, api::python_round(x, 4)); }

std::string_view bucket_size(size_t k) { return k <= 2 ? "2" : k <= 5 ? "3-5" : k <= 10 ? "6-10" : "11+"; }

}  // namespace

double temperature_for(const model::AgentConfig& config, model::QType type, size_t k) {
  std::string key = fmt::format("{}:{}", api::qtype_name(type), bucket_size(k));
  auto it = config.temperature_by_options.find(key);
  if (it != config.temperature_by_options.end()) return it->second;
  return config.temperature[static_cast<size_t>(type)];
}

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")

Answer decode_answer(model::QType type, std::span<const float> logits, std::span<const float> act,
                     const model::AgentConfig& config) {
  const size_t k = logits.size();
  LAYA_ASSERT(k >= 1, "a question without options");
  Answer a;
  // z = logits / T: numpy 2 casts the Python float temperature to float32 (NEP 50).
  const float t = static_cast<float>(temperature_for(config, type, k));
  std::vector<float> z(k);
  float zmax = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < k; ++i) {
    LAYA_ASSERT(std::isfinite(logits[i]), "non-finite logit {} of option {}", logits[i], i);
    z[i] = logits[i] / t;
    zmax = std::fmax(zmax, z[i]);
  }
  a.probs.resize(k);
  for (size_t i = 0; i < k; ++i) a.probs[i] = numpy_exp_f32(z[i] - zmax);
  const float sum = numpy_sum_f32(a.probs);
  for (auto& p : a.probs) p = p / sum;
  // argmax: the first maximum wins
  float best = a.probs[0];
  for (size_t i = 1; i < k; ++i) {
    if (a.probs[i] > best) {
      best = a.probs[i];
      a.winner = static_cast<int32_t>(i);
    }
  }
  a.answer_confidence = static_cast<double>(std::fmin(std::fmax(best, 0.0f), 1.0f));
  // confidence_from_probs: 1 - H(p)/log(k), float32 throughout (np.float32 op Python float -> f32)
  if (k < 2) {
    a.confidence = 1.0;
  } else {
    std::vector<float> terms(k);
    const float lo = 1e-12f;
    for (size_t i = 0; i < k; ++i) {
      float c = std::fmin(std::fmax(a.probs[i], lo), 1.0f);
      terms[i] = a.probs[i] * numpy_log_f32(c);
    }
    float ent = -numpy_sum_f32(terms);
    float ratio = ent / static_cast<float>(std::log(static_cast<double>(k)));
    float conf = 1.0f - ratio;
    conf = std::fmin(std::fmax(conf, 0.0f), 1.0f);
    a.confidence = static_cast<double>(conf);
  }
  if (type == model::QType::score) {
    std::vector<double> w(k);
    for (size_t i = 0; i < k; ++i) w[i] = static_cast<double>(i) * static_cast<double>(a.probs[i]);
    a.score = numpy_sum_f64(w);
  }
  if (type == model::QType::noul) {
    LAYA_ASSERT(k == 2, "a noul question with {} options", k);
    double p1 = static_cast<double>(a.probs[1]);
    a.confidence = std::max(p1, 1.0 - p1);
  }
  // act_probability = torch.softmax(act.float(), -1)[0]
  if (!act.empty()) {
    for (float v : act) LAYA_ASSERT(std::isfinite(v), "non-finite action logit {}", v);
    std::vector<float> ap(act.size());
    torch_softmax_f32(act, ap);
    a.act_probability = static_cast<double>(ap[0]);
  }
  return a;
}

#pragma GCC pop_options

std::string decode_response(const api::DecisionRequest& request, const prompt::PackedRequest& packed,
                            std::span<const float> logits, std::span<const float> act_logits, int32_t n_act,
                            const model::AgentConfig& config, const ResponseOptions& options) {
  const auto& batch = packed.batch;
  const size_t nq = request.questions.size();
  LAYA_ASSERT(static_cast<size_t>(batch.rows()) == nq, "{} rows for {} questions", batch.rows(), nq);
  LAYA_ASSERT(logits.size() == static_cast<size_t>(batch.total_markers()), "{} logits for {} markers", logits.size(),
              batch.total_markers());
  LAYA_ASSERT(n_act >= 1 && act_logits.size() == nq * static_cast<size_t>(n_act), "{} action logits for {} rows",
              act_logits.size(), nq);
  std::string out;
  out.reserve(256 + nq * 256);
  out += "{\"model\":\"laya-rl-agent\",\"answers\":{";
  for (size_t r = 0; r < nq; ++r) {
    const auto& q = request.questions[r];
    const size_t k = static_cast<size_t>(batch.row_markers(static_cast<int32_t>(r)));
    LAYA_ASSERT(k == q.n_options(), "question {}: {} markers for {} options", q.id, k, q.n_options());
    auto lg = logits.subspan(static_cast<size_t>(batch.marker_offsets[r]), k);
    auto act = act_logits.subspan(r * static_cast<size_t>(n_act), static_cast<size_t>(n_act));
    Answer a = decode_answer(q.type, lg, act, config);
    if (r) out.push_back(',');
    api::append_python_json_string(out, q.id);
    out += ":{\"type\":";
    switch (q.type) {
      case model::QType::choice: {
        out += "\"choice\",\"choice\":";
        api::append_python_json_string(out, q.option_keys[static_cast<size_t>(a.winner)]);
        out += ",\"probabilities\":{";
        for (size_t i = 0; i < k; ++i) {
          if (i) out.push_back(',');
          api::append_python_json_string(out, q.option_keys[i]);
          out.push_back(':');
          append_rounded(out, static_cast<double>(a.probs[i]));
        }
        out += "},\"confidence\":";
        append_rounded(out, a.confidence);
        break;
      }
      case model::QType::score: {
        out += "\"score\",\"score\":";
        append_rounded(out, a.score);
        out += ",\"legend\":{";
        for (size_t i = 0; i < k; ++i) {
          if (i) out.push_back(',');
          out += fmt::format("\"{}\":", i);
          const api::Json& c = q.legend[i];
          if (options.legend_as_text && !c.is_string()) {
            api::append_python_json_string(out, api::python_dumps(c));
          } else {
            api::append_python_json(out, c, api::JsonSeparators::compact);
          }
        }
        out += "},\"probabilities\":{";
        for (size_t i = 0; i < k; ++i) {
          if (i) out.push_back(',');
          out += fmt::format("\"{}\":", i);
          append_rounded(out, static_cast<double>(a.probs[i]));
        }
        out += "},\"confidence\":";
        append_rounded(out, a.confidence);
        break;
      }
      case model::QType::noul: {
        out += "\"noul\",\"noul\":";
        append_rounded(out, static_cast<double>(a.probs[1]));
        out += ",\"confidence\":";
        append_rounded(out, a.confidence);
        break;
      }
    }
    out += ",\"answer_confidence\":";
    append_rounded(out, a.answer_confidence);
    out += ",\"action\":{\"act_probability\":";
    append_rounded(out, a.act_probability);
    out += "}}";
  }
  out += "},\"usage\":";
  out += prompt::usage_json(packed.usage, options.extended_usage);
  if (options.routing) {
    out += ",\"routing\":";
    api::append_python_json(out, *options.routing, api::JsonSeparators::compact);
  }
  out += "}";
  return out;
}

}  // namespace laya::decode
