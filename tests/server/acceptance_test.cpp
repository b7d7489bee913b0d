// Acceptance: the real `laya-engine serve` (demo checkpoint, fp32 CPU backend) on loopback.
// Answers must be byte-identical to `laya-engine decide`, alone, batched with concurrent requests
// and through the batch route; every error path, overload, deadline, drain and recovery is driven
// over real sockets against the real process.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <future>
#include <set>

#include "support/paths.h"
#include "http_client.h"
#include "server_process.h"

namespace laya::test {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> read_lines(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::filesystem::path requests_file() { return source_dir() / "tests" / "server" / "requests.jsonl"; }

// `laya-engine decide` on the same requests: the reference bodies.
std::vector<std::string> decide_outputs() {
  const std::string cmd = "LAYA_CACHE_DIR='" + test_cache_dir().string() + "' '" + engine_binary().string() +
                          "' decide --model demo --threads 1 --input '" + requests_file().string() + "' 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 65536> buf{};
  size_t n;
  while (p && (n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  if (p) ::pclose(p);
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\n') {
      lines.push_back(out.substr(start, i - start));
      start = i + 1;
    }
  }
  return lines;
}

std::string metric_line(const std::string& metrics, const std::string& prefix) {
  const size_t at = metrics.find("\n" + prefix);
  if (at == std::string::npos) return "";
  const size_t end = metrics.find('\n', at + 1);
  return metrics.substr(at + 1, end - at - 1);
}

// Polls /metrics until every `lines` entry is present (up to 10 s): orders events by server state.
bool wait_metrics(uint16_t port, std::vector<std::string> lines) {
  for (int i = 0; i < 1000; ++i) {
    const auto m = http_get(port, "/metrics").body;
    bool all = true;
    for (const auto& l : lines) all = all && m.find("\n" + l + "\n") != std::string::npos;
    if (all) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}
const std::vector<std::string> kOneRunning = {"laya_inflight_requests 1", "laya_admitted_requests 0"};

TEST(Acceptance, AnswersAreByteIdenticalToDecide) {
  const auto requests = read_lines(requests_file());
  const auto expected = decide_outputs();
  ASSERT_EQ(expected.size(), requests.size()) << "decide failed";
  ServerProcess s({});
  ASSERT_NE(s.port(), 0) << s.log_text();
  // One at a time.
  for (size_t i = 0; i < requests.size(); ++i) {
    auto r = http_post(s.port(), "/v1/systemone", requests[i]);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.body, expected[i]) << "request " << i;
    EXPECT_EQ(r.header("x-laya-demo-checkpoint"), "true");
  }
  // Concurrently, on a server whose forwards are slowed (a sleep before each, numerics untouched) so
  // that requests queue up and share forwards: every answer must still be its own, byte for byte.
  {
    ServerProcess slow({"--fault-inject-delay-ms", "300"});
    ASSERT_NE(slow.port(), 0) << slow.log_text();
    for (int round = 0; round < 2; ++round) {
      std::vector<std::future<HttpReply>> fs;
      for (size_t i = 0; i < requests.size(); ++i) {
        fs.push_back(std::async(std::launch::async, [&, i] { return http_post(slow.port(), "/v1/systemone", requests[i]); }));
      }
      for (size_t i = 0; i < requests.size(); ++i) EXPECT_EQ(fs[i].get().body, expected[i]) << "concurrent request " << i;
    }
    auto m = http_get(slow.port(), "/metrics").body;
    const auto count = metric_line(m, "laya_batch_requests_count"), sum = metric_line(m, "laya_batch_requests_sum");
    ASSERT_FALSE(count.empty());
    const double forwards = std::stod(count.substr(count.rfind(' ') + 1));
    const double reqs = std::stod(sum.substr(sum.rfind(' ') + 1));
    EXPECT_EQ(reqs, 2.0 * static_cast<double>(requests.size()));
    EXPECT_LT(forwards, reqs) << "no forward carried more than one request:\n" << m;
  }
  // The batch route: one array in, the same answers out, in order.
  std::string arr = "[", want = "[";
  for (size_t i = 0; i < requests.size(); ++i) {
    arr += (i ? "," : "") + requests[i];
    want += (i ? "," : "") + expected[i];
  }
  auto b = http_post(s.port(), "/v1/systemone/batch", arr + "]");
  EXPECT_EQ(b.status, 200);
  EXPECT_EQ(b.body, want + "]");
  auto m = http_get(s.port(), "/metrics").body;
  EXPECT_NE(metric_line(m, "laya_batch_requests_count"), "") << m;
}

TEST(Acceptance, ErrorPaths) {
  ServerProcess s({"--header-timeout-ms", "300", "--api-key", "k3y"});
  ASSERT_NE(s.port(), 0) << s.log_text();
  const std::map<std::string, std::string> json_auth{{"Content-Type", "application/json"}, {"Authorization", "Bearer k3y"}};
  const std::string ok = read_lines(requests_file()).front();

  auto r = http_post(s.port(), "/v1/systemone", ok, {{"Content-Type", "application/json"}});
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, R"({"detail":"invalid or missing bearer token"})");
  EXPECT_EQ(http_post(s.port(), "/v1/systemone", ok, {{"Content-Type", "application/json"}, {"Authorization", "Bearer k3x"}}).status, 401);
  EXPECT_EQ(http_get(s.port(), "/health").status, 200);  // public
  EXPECT_EQ(http_get(s.port(), "/metrics").status, 200);  // public

  r = http_post(s.port(), "/v1/systemone", "{\"state\": ", json_auth);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, R"({"detail":"request body must be valid JSON"})");

  r = http_post(s.port(), "/v1/systemone", ok, {{"Content-Type", "text/plain"}, {"Authorization", "Bearer k3y"}});
  EXPECT_EQ(r.status, 415);

  nlohmann::ordered_json many = {{"state", "s"}, {"questions", nlohmann::ordered_json::object()}};
  for (int i = 0; i < 65; ++i) many["questions"]["q" + std::to_string(i)] = {{"type", "noul"}, {"instructions", "?"}};
  r = http_post(s.port(), "/v1/systemone", many.dump(), json_auth);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body, R"x({"detail":"too many questions (65 > 64)"})x");

  r = http_post(s.port(), "/v1/systemone", R"({"state":"s","questions":{"q":{"type":"pick","instructions":"?"}}})", json_auth);
  EXPECT_EQ(r.status, 422);

  {  // Oversized, streamed: 3 MiB chunked against the 2 MiB cap; answered once the cap is crossed.
    HttpConnection c(s.port());
    c.write_raw("POST /v1/systemone HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer k3y\r\n"
                "Transfer-Encoding: chunked\r\n\r\n");
    const std::string chunk = "100000\r\n" + std::string(0x100000, ' ') + "\r\n";
    try {
      for (int i = 0; i < 3; ++i) c.write_raw(chunk);
    } catch (const std::exception&) {
      // the server may close before the last chunk is accepted: that is the point
    }
    auto big = c.read();
    EXPECT_EQ(big.status, 413) << big.error;
    EXPECT_EQ(big.body, R"({"detail":"request body too large"})");
  }
  {  // Declared too large: refused from the header alone.
    HttpConnection c(s.port());
    c.write_raw("POST /v1/systemone HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer k3y\r\n"
                "Content-Length: 3000000\r\n\r\n");
    EXPECT_EQ(c.read().status, 413);
  }
  {  // Slow client: the header never completes.
    HttpConnection c(s.port());
    c.write_raw("POST /v1/systemone HTTP/1.1\r\nHost: x\r\n");
    EXPECT_TRUE(c.closed_by_peer(5000ms));
  }
  EXPECT_EQ(http_post(s.port(), "/v1/systemone", ok, json_auth).status, 200);  // still healthy
}

// The slowed forwards below (--fault-inject-delay-ms) keep the model busy while a test queues
// requests behind it; they are long (seconds) so that a loaded CI machine still gets every request
// queued in time.
TEST(Acceptance, DisconnectedClientNeverReachesTheModel) {
  ServerProcess s({"--fault-inject-delay-ms", "3000"});
  ASSERT_NE(s.port(), 0) << s.log_text();
  const std::string ok = read_lines(requests_file()).front();
  auto blocker = std::async(std::launch::async, [&] { return http_post(s.port(), "/v1/systemone", ok); });
  ASSERT_TRUE(wait_metrics(s.port(), kOneRunning));
  {
    HttpConnection c(s.port());
    c.write_raw("POST /v1/systemone HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                std::to_string(ok.size()) + "\r\n\r\n" + ok);
    ASSERT_TRUE(wait_metrics(s.port(), {"laya_queue_depth 1"}));
  }  // closed while queued behind the blocker
  EXPECT_EQ(blocker.get().status, 200);
  std::this_thread::sleep_for(100ms);
  auto m = http_get(s.port(), "/metrics").body;
  EXPECT_EQ(metric_line(m, "laya_requests_dropped_total{reason=\"disconnected\"}"),
            "laya_requests_dropped_total{reason=\"disconnected\"} 1") << m;
  EXPECT_EQ(metric_line(m, "laya_batch_requests_count"), "laya_batch_requests_count 1");  // one forward only
}

TEST(Acceptance, QueueFullIs429AndDeadlineIs504) {
  ServerProcess s({"--queue-size", "1", "--deadline-ms", "10000", "--fault-inject-delay-ms", "3000"});
  ASSERT_NE(s.port(), 0) << s.log_text();
  const std::string ok = read_lines(requests_file()).front();
  auto running = std::async(std::launch::async, [&] { return http_post(s.port(), "/v1/systemone", ok); });
  ASSERT_TRUE(wait_metrics(s.port(), kOneRunning));
  auto queued = std::async(std::launch::async, [&] { return http_post(s.port(), "/v1/systemone", ok); });
  ASSERT_TRUE(wait_metrics(s.port(), {"laya_queue_depth 1"}));
  auto rejected = http_post(s.port(), "/v1/systemone", ok);
  EXPECT_EQ(rejected.status, 429);
  EXPECT_EQ(rejected.header("retry-after"), "1");
  EXPECT_EQ(running.get().status, 200);
  EXPECT_EQ(queued.get().status, 200);  // 3 + 3 s < 10 s deadline

  // Three in a row at 2 s per forward and a 3 s deadline, one request per forward (so a loaded
  // machine cannot batch the first two together): only the first answers in time.
  ServerProcess d({"--deadline-ms", "3000", "--fault-inject-delay-ms", "2000", "--max-batch-rows", "1"});
  ASSERT_NE(d.port(), 0) << d.log_text();
  std::vector<std::future<HttpReply>> fs;
  for (int i = 0; i < 3; ++i) {
    fs.push_back(std::async(std::launch::async, [&] { return http_post(d.port(), "/v1/systemone", ok); }));
    std::this_thread::sleep_for(50ms);
  }
  // The first to arrive runs (2 s); the second starts at ~2 s and would end at ~4 s, past its
  // deadline; the third is still queued at its deadline. Arrival order is not asserted.
  std::multiset<int> statuses;
  for (auto& f : fs) {
    auto r = f.get();
    statuses.insert(r.status);
    if (r.status == 504) {
      EXPECT_EQ(r.body, R"({"detail":"deadline exceeded"})");
    }
  }
  EXPECT_EQ(statuses, (std::multiset<int>{200, 504, 504}));
  EXPECT_TRUE(wait_metrics(d.port(), {"laya_batch_requests_count 2"}));  // the second forward ends
  std::this_thread::sleep_for(300ms);  // room for a wrong third forward to show up
  auto m = http_get(d.port(), "/metrics").body;
  // The third never reached the model: only two forwards ran.
  EXPECT_EQ(metric_line(m, "laya_batch_requests_count"), "laya_batch_requests_count 2") << m;
}

TEST(Acceptance, SigtermDrainsInFlightRequestsAndExitsZero) {
  ServerProcess s({"--fault-inject-delay-ms", "1000", "--max-batch-rows", "1"});
  ASSERT_NE(s.port(), 0) << s.log_text();
  const auto requests = read_lines(requests_file());
  std::vector<std::future<HttpReply>> fs;
  for (int i = 0; i < 4; ++i) fs.push_back(std::async(std::launch::async, [&] { return http_post(s.port(), "/v1/systemone", requests[0]); }));
  ASSERT_TRUE(wait_metrics(s.port(), {"laya_inflight_requests 4"}));
  s.signal(SIGTERM);
  bool listener_closed = false;  // polled: the signal is handled asynchronously
  for (int i = 0; i < 500 && !listener_closed; ++i) {
    listener_closed = http_get(s.port(), "/ready").status == 0;
    if (!listener_closed) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(listener_closed);
  for (auto& f : fs) EXPECT_EQ(f.get().status, 200);
  EXPECT_EQ(s.wait_exit(10s), 0) << s.log_text();
}

TEST(Acceptance, InjectedEngineFailureRecovers) {
  ServerProcess s({"--fault-inject-forward", "2"});
  ASSERT_NE(s.port(), 0) << s.log_text();
  const std::string ok = read_lines(requests_file()).front();
  auto first = http_post(s.port(), "/v1/systemone", ok);
  EXPECT_EQ(first.status, 200);
  auto failed = http_post(s.port(), "/v1/systemone", ok);
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body, R"({"detail":"inference failed"})");
  auto again = http_post(s.port(), "/v1/systemone", ok);
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(http_get(s.port(), "/ready").status, 200);
  auto m = http_get(s.port(), "/metrics").body;
  EXPECT_EQ(metric_line(m, "laya_engine_recoveries"), "laya_engine_recoveries 1");
}

TEST(Acceptance, InfoAndHealthDescribeTheServer) {
  ServerProcess s({});
  ASSERT_NE(s.port(), 0) << s.log_text();
  EXPECT_NE(s.log_text().find("DEMO checkpoint"), std::string::npos);
  // What the binary was built with, at start-up and in /info.
  EXPECT_NE(s.log_text().find("laya-engine serve: build: backends: cpu"), std::string::npos) << s.log_text();
  auto h = http_get(s.port(), "/health");
  EXPECT_EQ(h.status, 200);
  auto hj = nlohmann::json::parse(h.body);
  EXPECT_EQ(hj["status"], "ok");
  auto info = nlohmann::json::parse(http_get(s.port(), "/info").body);
  EXPECT_EQ(info["demo"], true);
  EXPECT_EQ(info["backend"], "cpu");
  EXPECT_EQ(info["state"], "ready");
  EXPECT_EQ(info["limits"]["max_questions"], 64);
  EXPECT_NE(info["build"].get<std::string>().find("backends: cpu"), std::string::npos);
  EXPECT_EQ(info["batching"]["busy_poll_us"], 0);  // auto: off on the CPU backend
  // The CPU backend takes a batch of any size in one forward.
  EXPECT_EQ(info["batching"]["forward_capacity"],
            nlohmann::json({{"rows", nullptr}, {"tokens", nullptr}, {"markers", nullptr}}));
  EXPECT_FALSE(info.contains("cuda"));  // the graph policy only where it applies
  EXPECT_EQ(http_get(s.port(), "/metrics").body.find("laya_graph_"), std::string::npos);
}

// `serve OPTION=VALUE` does not start, and its message names the option.
void expect_start_refused_naming_option(const std::string& option_eq_value) {
  ServerProcess s({option_eq_value});
  EXPECT_EQ(s.port(), 0) << option_eq_value;
  const std::string name = option_eq_value.substr(0, option_eq_value.find('='));
  EXPECT_NE(s.log_text().find(name), std::string::npos) << s.log_text();
}

// --busy-poll-us / LAYA_BUSY_POLL_US: reported in /info, same answers as decide, drain on SIGTERM
// with requests in flight (an I/O thread polls throughout), refused out of range.
TEST(Acceptance, BusyPollingOptionServesTheSameAnswers) {
  const auto requests = read_lines(requests_file());
  const auto expected = decide_outputs();
  ASSERT_EQ(expected.size(), requests.size()) << "decide failed";
  {
    // Forwards slowed by 200 ms (numerics untouched) so that the drain finds requests in flight.
    ServerProcess s({"--max-batch-rows", "1", "--fault-inject-delay-ms", "200"}, {"LAYA_BUSY_POLL_US=300"});
    ASSERT_NE(s.port(), 0) << s.log_text();
    auto info = nlohmann::json::parse(http_get(s.port(), "/info").body);
    EXPECT_EQ(info["batching"]["busy_poll_us"], 300);
    for (size_t i = 0; i < requests.size(); ++i) {
      EXPECT_EQ(http_post(s.port(), "/v1/systemone", requests[i]).body, expected[i]) << "request " << i;
    }
    std::vector<std::future<HttpReply>> fs;
    for (int i = 0; i < 4; ++i) {
      fs.push_back(std::async(std::launch::async, [&] { return http_post(s.port(), "/v1/systemone", requests[0]); }));
    }
    ASSERT_TRUE(wait_metrics(s.port(), {"laya_inflight_requests 4"}));
    s.signal(SIGTERM);
    for (auto& f : fs) EXPECT_EQ(f.get().body, expected[0]);
    EXPECT_EQ(s.wait_exit(10s), 0) << s.log_text();
  }
  for (const char* bad : {"10001", "-5", "fast"}) expect_start_refused_naming_option(std::string("--busy-poll-us=") + bad);
}

// The batching limits are checked at start-up (a forward takes at least one row and one token;
// the CUDA engine also sizes its workspace by them), naming the option.
TEST(Acceptance, BatchLimitOptionsAreValidated) {
  for (const char* bad : {"--max-batch-tokens=0", "--max-batch-tokens=-5", "--max-batch-tokens=lots",
                          "--max-batch-rows=0", "--max-batch-rows=-1"})
    expect_start_refused_naming_option(bad);
  ServerProcess ok({"--max-batch-tokens", "600", "--max-batch-rows", "3"});
  ASSERT_NE(ok.port(), 0) << ok.log_text();
  EXPECT_EQ(http_get(ok.port(), "/ready").status, 200);
  auto info = nlohmann::json::parse(http_get(ok.port(), "/info").body);
  EXPECT_EQ(info["batching"]["max_batch_tokens"], 600) << info.dump();
  EXPECT_EQ(info["batching"]["max_batch_rows"], 3) << info.dump();
}

// The CUDA graph cache's options are checked at start-up whatever the backend (a CPU server accepts
// valid ones and ignores them).
TEST(Acceptance, GraphCacheOptionsAreValidated) {
  for (const char* bad : {"--graph-admit-after=0", "--graph-admit-after=1001", "--graph-max-tokens=-1",
                          "--graph-cache-shapes=-3", "--graph-cache-bytes=lots"})
    expect_start_refused_naming_option(bad);
  ServerProcess ok({"--graph-admit-after", "1000", "--graph-max-tokens", "0", "--graph-cache-shapes", "0"});
  ASSERT_NE(ok.port(), 0) << ok.log_text();
  EXPECT_EQ(http_get(ok.port(), "/ready").status, 200);
}

}  // namespace
}  // namespace laya::test
