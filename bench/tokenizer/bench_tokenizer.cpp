// Tokenizer throughput: prints a table (no assertions). Usage:
//   bench_tokenizer [FIXTURES_DIR] [SOURCE_DIR]
// Corpus: tests/data/tokenizer/corpus-modernbert.jsonl.gz (the same strings bench/tokenizer/hf_bench.py
// feeds to HF tokenizers), minus the "long_word" kind, i.e. prose, JSON, code, CJK, Arabic/Hindi,
// emoji, whitespace, added tokens, random Unicode.
#include <fmt/format.h>
#include <zlib.h>

#include <time.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "tokenizer/tokenizer.h"

using laya::tokenizer::Tokenizer;
using Clock = std::chrono::steady_clock;

static double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
// CPU time of the calling thread: on a shared, oversubscribed machine it is the stabler figure.
static double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

static std::vector<std::string> corpus(const std::filesystem::path& file, bool with_long) {
  gzFile f = gzopen(file.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + file.string());
  std::string data;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) data.append(buf, std::size_t(n));
  gzclose(f);
  std::vector<std::string> out;
  std::size_t pos = data.find('\n') + 1;  // skip the header
  while (pos < data.size()) {
    std::size_t e = data.find('\n', pos);
    if (e == std::string::npos) e = data.size();
    auto j = nlohmann::json::parse(data.substr(pos, e - pos));
    if (with_long || j["k"] != "long_word") out.push_back(j["t"].get<std::string>());
    pos = e + 1;
  }
  return out;
}

int main(int argc, char** argv) {
  const std::filesystem::path fixtures = argc > 1 ? argv[1] : "../shared/fixtures";
  const std::filesystem::path source = argc > 2 ? argv[2] : ".";
  fmt::print("| measurement | value |\n|---|---|\n");
  for (const char* name : {"tokenizer-modernbert", "tokenizer-mmbert-standin"}) {
    auto t0 = Clock::now();
    const double c0 = cpu_now();
    auto tok = Tokenizer::from_file(fixtures / name / "tokenizer.json");
    fmt::print("| load {} | {:.1f} ms wall, {:.0f} ms CPU |\n", name, secs(t0, Clock::now()) * 1e3, (cpu_now() - c0) * 1e3);
  }
  auto tok = Tokenizer::from_file(fixtures / "tokenizer-modernbert" / "tokenizer.json");
  const auto texts = corpus(source / "tests/data/tokenizer/corpus-modernbert.jsonl.gz", false);
  std::size_t bytes = 0;
  for (const auto& t : texts) bytes += t.size();

  for (int threads : {1, 2}) {
    for (int pass = 0; pass < 2; ++pass) {  // pass 0 warms the per-thread word caches
      std::atomic<std::size_t> next{0}, tokens{0};
      std::atomic<int64_t> cpu_us{0};
      auto t0 = Clock::now();
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
          const double c0 = cpu_now();
          std::vector<int32_t> ids;
          std::size_t local = 0;
          for (std::size_t i; (i = next.fetch_add(64)) < texts.size();) {
            for (std::size_t k = i; k < std::min(i + 64, texts.size()); ++k) {
              ids.clear();
              tok->encode_append(texts[k], ids);
              local += ids.size();
            }
          }
          tokens += local;
          cpu_us += int64_t((cpu_now() - c0) * 1e6);
        });
      }
      for (auto& th : pool) th.join();
      const double s = secs(t0, Clock::now());
      if (pass == 1)
        fmt::print("| corpus ({} strings, {:.2f} MB, {} tokens), {} thread(s) | {:.1f} MB/s, {:.2f} M tokens/s wall; {:.1f} MB/s per CPU-second |\n",
                   texts.size(), bytes / 1e6, tokens.load(), threads, bytes / 1e6 / s, tokens.load() / 1e6 / s,
                   bytes / 1e6 / (double(cpu_us.load()) * 1e-6));
    }
  }

  // A 48-token request: one head/option text of the kind Laya builds.
  const std::string req =
      "choice question: Which department should handle this customer request about a double charge on invoice 88213, "
      "and should we refund it today or escalate?";
  fmt::print("| 48-token request: {} tokens | ", tok->encode(req).size());
  {
    std::vector<int32_t> ids;
    const int n = 20000;
    auto t0 = Clock::now();
    double c0 = cpu_now();
    for (int i = 0; i < n; ++i) {
      ids.clear();
      tok->encode_append(req, ids);
    }
    fmt::print("{:.2f} µs wall, {:.2f} µs CPU (same text, warm cache); ", secs(t0, Clock::now()) / n * 1e6, (cpu_now() - c0) / n * 1e6);
    // Distinct texts each time (numbers change the words): closer to a cold cache.
    std::vector<std::string> reqs;
    for (int i = 0; i < 2000; ++i) reqs.push_back(fmt::format("{} ticket {} user{} code{}", req.substr(0, 100), i * 7919, i * 31, i * 131));
    t0 = Clock::now();
    c0 = cpu_now();
    for (const auto& r : reqs) {
      ids.clear();
      tok->encode_append(r, ids);
    }
    fmt::print("{:.2f} µs wall, {:.2f} µs CPU (distinct texts) |\n", secs(t0, Clock::now()) / double(reqs.size()) * 1e6,
               (cpu_now() - c0) / double(reqs.size()) * 1e6);
  }

  // 1 MiB words without whitespace (BPE must stay near-linear).
  struct Long {
    const char* name;
    std::string text;
  };
  std::vector<Long> longs;
  longs.push_back({"'a' x 1 MiB", std::string(1 << 20, 'a')});
  std::string abc, digits, lcg;
  while (abc.size() < (1u << 20)) abc += "abc";
  while (digits.size() < (1u << 20)) digits += "0123456789";
  uint64_t x = 7;
  for (int i = 0; i < (1 << 20); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    lcg.push_back(char('a' + (x >> 33) % 26));
  }
  abc.resize(1 << 20);
  digits.resize(1 << 20);
  longs.push_back({"'abc' x 1 MiB", abc});
  longs.push_back({"digits 1 MiB", digits});
  longs.push_back({"random letters 1 MiB", lcg});
  for (const auto& l : longs) {
    auto t0 = Clock::now();
    const double c0 = cpu_now();
    const auto ids = tok->encode(l.text);
    fmt::print("| {} (one word) | {:.0f} ms wall, {:.0f} ms CPU, {} tokens |\n", l.name, secs(t0, Clock::now()) * 1e3,
               (cpu_now() - c0) * 1e3, ids.size());
  }
  std::string big;
  while (big.size() < (4u << 20)) big += texts[big.size() % texts.size()] + "\n";
  auto t0 = Clock::now();
  const double c0 = cpu_now();
  const auto ids = tok->encode(big);
  fmt::print("| 4 MiB mixed text in one call | {:.0f} ms wall, {:.0f} ms CPU, {} tokens |\n", secs(t0, Clock::now()) * 1e3,
             (cpu_now() - c0) * 1e3, ids.size());
  return 0;
}
