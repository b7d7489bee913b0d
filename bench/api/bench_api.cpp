// CPU cost of one request outside the model: parse + validate, build rows (tokenisation), decode +
// serialise. Prints a table of per-stage p50/p90 in microseconds; asserts nothing.
// Usage: bench_api [FIXTURES_DIR] [ITERATIONS]   (FIXTURES_DIR defaults to $LAYA_FIXTURES_DIR or ../shared/fixtures)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/request.h"
#include "decode/answers.h"
#include "prompt/rows.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace laya;

double us(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }

struct Stats {
  std::vector<double> v;
  double pct(double p) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
  }
};

std::string words(int n) {
  static const char* w[] = {"the", "customer", "was", "charged", "twice", "for", "an", "order", "please", "refund",
                            "duplicate", "today", "invoice", "login", "error", "shipping"};
  std::string s;
  for (int i = 0; i < n; ++i) s += std::string(i ? " " : "") + w[(i * 7 + 3) % 16];
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  fs::path fx = argc > 1 ? fs::path(argv[1])
                         : fs::path(std::getenv("LAYA_FIXTURES_DIR") ? std::getenv("LAYA_FIXTURES_DIR") : "../shared/fixtures");
  int iters = argc > 2 ? std::atoi(argv[2]) : 2000;
  auto tok = tokenizer::Tokenizer::from_file(fx / "tokenizer-modernbert" / "tokenizer.json");
  auto special = tokenizer::load_special_tokens(fx / "tokenizer-modernbert" / "original" / "tokenizer_config.json", *tok);
  model::AgentConfig cfg;  // English: 512 / 192
  cfg.temperature = {1.6369030475616455, 1.2514300346374512, 1.983399510383606};
  cfg.temperature_by_options = {{"choice:3-5", 1.7601518630981445}, {"choice:2", 1.9063563346862793},
                                {"noul:2", 1.983399510383606}, {"score:3-5", 1.2514300346374512}};

  std::string small = R"({"state": ")" + words(14) +
                      R"(", "questions": {"refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"}}})";
  std::string big = R"({"state": ")" + words(520) + R"(", "questions": {)";
  for (int i = 0; i < 16; ++i) {
    if (i) big += ",";
    if (i % 3 == 0)
      big += fmt::format(R"("q{}": {{"type": "choice", "instructions": "Which team should handle this?", "criteria": {{"billing": "Charges and refunds", "technical": "Software problems", "sales": "Buying"}}}})", i);
    else if (i % 3 == 1)
      big += fmt::format(R"("q{}": {{"type": "score", "instructions": "How urgent is the request?", "criteria": ["Not urgent", "Soon", "Immediately"]}})", i);
    else
      big += fmt::format(R"("q{}": {{"type": "noul", "instructions": "Does the customer ask for a refund?"}})", i);
  }
  big += "}}";

  fmt::print("| request | tokens | parse+validate | rows (incl. tokenisation) | state tokenisation | decode+serialise | total | total excl. state tokenisation |\n");
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  for (auto [name, body] : {std::pair<const char*, std::string*>{"1 question, ~48 tokens", &small},
                            std::pair<const char*, std::string*>{"16 questions, ~512-token rows", &big}}) {
    Stats parse, rows, state_tok, dec, total;
    int64_t tokens = 0;
    for (int it = 0; it < iters; ++it) {
      auto t0 = Clock::now();
      api::DecisionRequest req = api::parse_request(*body);
      auto t1 = Clock::now();
      prompt::PackedRequest p = prompt::build_rows(req, *tok, special, cfg);
      auto t2 = Clock::now();
      std::vector<float> logits(static_cast<size_t>(p.batch.total_markers()), 0.25f);
      for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>(i % 5) * 0.7f;
      std::vector<float> act(static_cast<size_t>(p.batch.rows()) * 2, 1.0f);
      std::string out = decode::decode_response(req, p, logits, act, 2, cfg);
      auto t3 = Clock::now();
      auto s0 = Clock::now();
      auto ids = tok->encode(req.state_text);
      auto s1 = Clock::now();
      parse.v.push_back(us(t0, t1));
      rows.v.push_back(us(t1, t2));
      dec.v.push_back(us(t2, t3));
      total.v.push_back(us(t0, t3));
      state_tok.v.push_back(us(s0, s1));
      tokens = p.usage.input_tokens;
      if (out.empty() || ids.empty()) return 1;
    }
    double st = state_tok.pct(0.5);
    fmt::print("| {} | {} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} |\n", name, tokens, parse.pct(0.5),
               rows.pct(0.5), st, dec.pct(0.5), total.pct(0.5), total.pct(0.5) - st);
  }
  fmt::print("\np50 in microseconds over {} iterations, one thread.\n", iters);
  return 0;
}
