#include "server/http_server.h"

#include <sys/socket.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "api/error_body.h"
#include "laya/errors.h"
#include "runtime/busy_poll.h"
#include "server/json_array.h"

namespace laya::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using runtime::Clock;

bool bearer_matches(std::string_view header, std::string_view api_key) {
  static constexpr std::string_view kPrefix = "Bearer ";
  const size_t want = kPrefix.size() + api_key.size();
  unsigned diff = header.size() == want ? 0u : 1u;
  // Always walk the expected length so the time does not depend on where the first mismatch is.
  for (size_t i = 0; i < want; ++i) {
    const unsigned char expected = i < kPrefix.size() ? kPrefix[i] : api_key[i - kPrefix.size()];
    const unsigned char got = i < header.size() ? static_cast<unsigned char>(header[i]) : 0u;
    diff |= static_cast<unsigned>(expected ^ got);
  }
  return diff == 0;
}

bool is_json_content_type(std::string_view ct) {
  const size_t semi = ct.find(';');
  if (semi != std::string_view::npos) ct = ct.substr(0, semi);
  while (!ct.empty() && (ct.front() == ' ' || ct.front() == '\t')) ct.remove_prefix(1);
  while (!ct.empty() && (ct.back() == ' ' || ct.back() == '\t')) ct.remove_suffix(1);
  static constexpr std::string_view kJson = "application/json";
  if (ct.size() != kJson.size()) return false;
  for (size_t i = 0; i < ct.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(ct[i])) != kJson[i]) return false;
  }
  return true;
}

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// A request id given by the client is echoed when it is short and printable; otherwise we make one.
bool usable_request_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

std::string new_request_id() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t seed = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);
  return fmt::format("{:016x}", seed + counter.fetch_add(1) * 0x9e3779b97f4a7c15ull);
}

std::string status_route(std::string_view target) {
  const size_t q = target.find('?');
  return std::string(q == std::string_view::npos ? target : target.substr(0, q));
}

// Several requests of one /batch call, run as one job: rows back to back, outputs split per item.
class BatchPrepared : public runtime::Prepared {
 public:
  std::vector<std::unique_ptr<runtime::Prepared>> items;
  engine::Batch rows;
  const engine::Batch& batch() const override { return rows; }
  std::string render(std::span<const float> logits, std::span<const float> act, int32_t n_act) const override {
    std::string out = "[";
    size_t m = 0, a = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      const auto& b = items[i]->batch();
      const size_t nm = static_cast<size_t>(b.total_markers());
      const size_t na = static_cast<size_t>(b.rows()) * static_cast<size_t>(n_act);
      if (i) out += ',';
      out += items[i]->render(logits.subspan(m, nm), act.subspan(a, na), n_act);
      m += nm;
      a += na;
    }
    out += ']';
    return out;
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
struct HttpServer::Impl {
  HttpServer& owner;
  ServerOptions opt;
  runtime::Scheduler& scheduler;
  const runtime::Pipeline& pipeline;
  runtime::WorkerPool& pool;
  Metrics& metrics;
  net::io_context ioc;
  std::optional<tcp::acceptor> acceptor;
  std::vector<std::thread> threads;
  std::mutex inflight_mu;
  std::condition_variable inflight_cv;
  bool stopped = false;
  // Busy polling (opt.busy_poll > 0): at most one I/O thread polls; the others park here, outside
  // the io_context (see io_loop).
  std::atomic<bool> poller{false};
  std::mutex park_mu;
  std::condition_variable park_cv;

  Impl(HttpServer& o, ServerOptions op, runtime::Scheduler& s, const runtime::Pipeline& p, runtime::WorkerPool& w,
       Metrics& m)
      : owner(o), opt(std::move(op)), scheduler(s), pipeline(p), pool(w), metrics(m),
        ioc(std::max(1, opt.io_threads)) {
    opt.busy_poll = std::clamp(opt.busy_poll, std::chrono::microseconds{0}, runtime::kMaxBusyPoll);
  }

  void do_accept();
  void io_loop();
  void poll_while_wanted(Clock::time_point& last_event);
  bool poll_wanted(Clock::time_point last_event) const {
    return owner.inflight_.load() > 0 || Clock::now() < last_event + opt.busy_poll;
  }
  void inflight_delta(int d) {
    owner.inflight_.fetch_add(d);
    metrics.add_inflight(d);
    if (d < 0) {
      std::lock_guard lock(inflight_mu);
      inflight_cv.notify_all();
    }
  }
  std::unique_ptr<runtime::Prepared> prepare(const std::string& route, const std::string& body) const {
    if (route == "/v1/systemone") return pipeline.prepare(body);
    const auto parts = split_json_array(body);
    if (parts.empty()) LAYA_FAIL(ErrorKind::bad_request, "request body must be a non-empty JSON array of requests");
    if (parts.size() > opt.max_batch_items) {
      LAYA_FAIL(ErrorKind::too_large, "too many requests in batch ({} > {})", parts.size(), opt.max_batch_items);
    }
    auto out = std::make_unique<BatchPrepared>();
    for (size_t i = 0; i < parts.size(); ++i) {
      try {
        out->items.push_back(pipeline.prepare(parts[i]));
      } catch (const Error& e) {
        throw Error(e.kind(), fmt::format("requests[{}]: {}", i, e.what()));
      }
      out->rows.append(out->items.back()->batch());
    }
    return out;
  }
};

namespace {

struct RequestCtx {
  std::string id;
  std::string route;
  Clock::time_point start;
  Clock::time_point deadline = Clock::time_point::max();
  std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  uint64_t generation = 0;
  bool responded = false;     // strand only
  bool disconnected = false;  // strand only
  size_t in_bytes = 0;
  int32_t rows = 0, tokens = 0;
  double tokenize_ms = 0, queue_ms = 0, inference_ms = 0;
  int32_t batch_requests = 0;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, HttpServer::Impl& srv)
      : stream_(std::move(socket)), srv_(srv), idle_timer_(stream_.get_executor()),
        deadline_timer_(stream_.get_executor()) {}

  void run() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->wait_for_request(); });
  }

 private:
  using Response = http::response<http::string_body>;

  // Keep-alive: wait (up to idle_timeout) for the first byte of the next request, then give the
  // client header_timeout to send the whole header.
  void wait_for_request() {
    if (buffer_.size() > 0) return read_header();
    idle_timer_.expires_after(srv_.opt.idle_timeout);
    idle_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->close();
    });
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
      self->idle_timer_.cancel();
      if (ec) return self->close();
      self->read_header();
    });
  }

  void read_header() {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    parser_->body_limit(boost::none);  // set per route once the header is known
    stream_.expires_after(srv_.opt.header_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) {
      if (ec == http::error::header_limit) return reply_simple(431, "request header too large", true);
      if (ec != http::error::end_of_stream && ec != beast::error::timeout && ec != net::error::operation_aborted) {
        if (&ec.category() == &http::make_error_code(http::error::end_of_stream).category()) return reply_simple(400, "malformed HTTP request", true);
      }
      return close();
    }
    ctx_ = std::make_shared<RequestCtx>();
    ctx_->start = Clock::now();
    ctx_->generation = ++generation_;
    const auto& req = parser_->get();
    const auto given_id = req["X-Request-Id"];
    ctx_->id = usable_request_id({given_id.data(), given_id.size()}) ? std::string(given_id) : new_request_id();
    ctx_->route = status_route({req.target().data(), req.target().size()});
    const auto& route = ctx_->route;
    const bool decision = route == "/v1/systemone" || route == "/v1/systemone/batch";
    const bool known = decision || route == "/health" || route == "/ready" || route == "/info" || route == "/metrics";
    const bool is_public = route == "/health" || route == "/metrics" || route == "/ready";

    if (!known) return reply_early(404, "Not Found");
    if (decision != (req.method() == http::verb::post) ||
        (!decision && req.method() != http::verb::get && req.method() != http::verb::head)) {
      return reply_early(405, "Method Not Allowed");
    }
    if (!is_public && !srv_.opt.api_key.empty()) {
      const auto auth = req[http::field::authorization];
      if (!bearer_matches({auth.data(), auth.size()}, srv_.opt.api_key)) {
        return reply_early(401, "invalid or missing bearer token");
      }
    }
    if (decision) {
      const auto ct = req[http::field::content_type];
      if (!is_json_content_type({ct.data(), ct.size()})) return reply_early(415, "Content-Type must be application/json");
      // A declared length over the cap is refused before any of the body is read; the parser's
      // body_limit is the streaming cap for chunked bodies and understated lengths.
      if (parser_->content_length() && *parser_->content_length() > srv_.opt.max_body_bytes) {
        return reply_early(413, "request body too large");
      }
      parser_->body_limit(srv_.opt.max_body_bytes);
    } else {
      parser_->body_limit(64 * 1024);
    }
    stream_.expires_after(srv_.opt.body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code e, size_t) { self->on_body(e); });
  }

  void on_body(beast::error_code ec) {
    if (ec) {
      if (ec == http::error::body_limit) return reply_early(413, "request body too large");
      return close();  // timeout, reset, malformed chunking: nobody to answer
    }
    stream_.expires_never();
    keep_alive_ = parser_->get().keep_alive();
    head_ = parser_->get().method() == http::verb::head;
    const auto& route = ctx_->route;
    if (route == "/health") return reply_json(200, health_body());
    if (route == "/ready") {
      const auto st = srv_.scheduler.state();
      if (st == runtime::State::ready && !srv_.owner.draining()) return reply_json(200, R"({"status":"ready"})");
      const char* why = srv_.owner.draining() ? "draining" : runtime::to_string(st);
      return reply_json(503, fmt::format(R"x({{"status":"{}","detail":"not ready ({})"}})x", why, why));
    }
    if (route == "/info") return reply_json(200, info_body());
    if (route == "/metrics") {
      auto res = make_response(200, srv_.metrics.scrape(&srv_.scheduler));
      res->set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      return write(std::move(res));
    }
    start_decision();
  }

  // ---- decision requests ---------------------------------------------------------------------
  void start_decision() {
    auto ctx = ctx_;
    std::string body = parser_->release().body();
    ctx->in_bytes = body.size();
    std::shared_ptr<runtime::Ticket> ticket;
    try {
      ticket = std::make_shared<runtime::Ticket>(srv_.scheduler.admit());
    } catch (const Error& e) {
      srv_.metrics.count_dropped(e.kind() == ErrorKind::overloaded ? "overloaded" : "unavailable");
      return reply_error(http_status(e.kind()), e.what());
    }
    srv_.inflight_delta(+1);
    counted_ = true;
    if (srv_.opt.deadline.count() > 0) {
      ctx->deadline = ctx->start + srv_.opt.deadline;
      deadline_timer_.expires_at(ctx->deadline);
      deadline_timer_.async_wait([self = shared_from_this(), ctx](beast::error_code ec) {
        if (ec || ctx->responded) return;
        ctx->cancelled->store(true);  // the executor drops it if it has not started
        self->srv_.metrics.count_dropped("deadline");
        self->reply_error(504, "deadline exceeded");
      });
    }
    watch_disconnect(ctx);
    auto self = shared_from_this();
    auto prepare_and_submit = [self, ctx, ticket, body = std::move(body)]() mutable {
      const auto t0 = Clock::now();
      std::shared_ptr<runtime::Prepared> prepared;
      try {
        prepared = self->srv_.prepare(ctx->route, body);
      } catch (const Error& e) {
        const int status = http_status(e.kind());
        // Upstream answers 500 with a fixed text for anything that is not the client's fault.
        std::string msg = status >= 500 ? "inference failed" : e.what();
        if (status >= 500) spdlog::error("request {}: preparing failed: {}", ctx->id, e.what());
        return self->post_reply(ctx, status, std::move(msg));
      } catch (const std::exception& e) {
        spdlog::error("request {}: preparing failed: {}", ctx->id, e.what());
        return self->post_reply(ctx, 500, "inference failed");
      }
      ctx->tokenize_ms = ms_since(t0);
      ctx->rows = prepared->batch().rows();
      ctx->tokens = prepared->batch().tokens();
      if (ctx->cancelled->load()) return self->post_reply(ctx, 504, "deadline exceeded");
      runtime::Job job;
      job.batch = std::shared_ptr<const engine::Batch>(prepared, &prepared->batch());
      job.deadline = ctx->deadline;
      job.cancelled = ctx->cancelled;
      // Decoding is cheap and bounded (<= max_questions answers): it runs on the connection's I/O
      // strand, one thread hop fewer than a round trip through the pool.
      job.done = [self, ctx, prepared](runtime::Outcome&& o) {
        net::post(self->stream_.get_executor(),
                  [self, ctx, prepared, o = std::move(o)]() { self->on_outcome(ctx, *prepared, o); });
      };
      self->srv_.scheduler.submit(std::move(*ticket), std::move(job));
    };
    // A small body is tokenised right here on the strand (tens of microseconds): handing it to the
    // pool costs a thread wake-up, which on a VM whose other cores sleep (the executor busy in a
    // ~1 ms forward) costs ~40 us. Larger bodies go to the pool so one request cannot stall the
    // I/O threads for long.
    if (ctx->in_bytes <= kInlinePrepareBytes) return prepare_and_submit();
    srv_.pool.post(std::move(prepare_and_submit));
  }

  // Connection strand.
  void on_outcome(const std::shared_ptr<RequestCtx>& ctx, const runtime::Prepared& prepared,
                  const runtime::Outcome& o) {
    if (ctx != ctx_ || ctx->responded) return;  // answered already (deadline) or the client left
    ctx->queue_ms = o.queue_ms;
    ctx->inference_ms = o.inference_ms;
    ctx->batch_requests = o.batch_requests;
    using S = runtime::Outcome::Status;
    switch (o.status) {
      case S::ok: break;
      case S::deadline: srv_.metrics.count_dropped("deadline"); return deliver(ctx, 504, "deadline exceeded", false);
      case S::cancelled: srv_.metrics.count_dropped("cancelled"); return deliver(ctx, 504, "deadline exceeded", false);
      case S::unavailable: srv_.metrics.count_dropped("unavailable"); return deliver(ctx, 503, "model unavailable", false);
      case S::failed: return deliver(ctx, 500, "inference failed", false);
    }
    std::string body;
    try {
      body = prepared.render(o.logits, o.act_logits, o.n_act);
    } catch (const std::exception& e) {
      spdlog::error("request {}: decoding failed: {}", ctx->id, e.what());
      return deliver(ctx, 500, "inference failed", false);
    }
    srv_.metrics.observe_request(o.queue_ms, ctx->tokenize_ms, o.inference_ms, ms_since(ctx->start));
    deliver(ctx, 200, std::move(body), true);
  }

  void post_reply(const std::shared_ptr<RequestCtx>& ctx, int status, std::string body, bool ok = false) {
    net::post(stream_.get_executor(), [self = shared_from_this(), ctx, status, body = std::move(body), ok]() mutable {
      self->deliver(ctx, status, std::move(body), ok);
    });
  }

  // Connection strand.
  void deliver(const std::shared_ptr<RequestCtx>& ctx, int status, std::string body, bool ok) {
    if (ctx != ctx_ || ctx->responded) return;  // answered already (deadline) or gone
    if (ok) return reply_json(status, std::move(body));
    reply_error(status, body);
  }

  // A client that goes away while its request waits is noticed here (EOF on a readable socket);
  // its job is then dropped before it reaches the model.
  void watch_disconnect(const std::shared_ptr<RequestCtx>& ctx) {
    if (buffer_.size() > 0) return;  // the client already sent more (pipelining): it is there
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this(), ctx](beast::error_code ec) {
      if (ec || ctx != self->ctx_ || ctx->responded) return;
      char c;
      const ssize_t n = ::recv(self->stream_.socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) return;  // more data: pipelined request
      ctx->cancelled->store(true);
      ctx->disconnected = true;
      self->srv_.metrics.count_dropped("disconnected");
      self->log_request(499, 0);
      self->finish_request();
      self->close();
    });
  }

  // ---- responses -----------------------------------------------------------------------------
  std::shared_ptr<Response> make_response(int status, std::string body) {
    auto res = std::make_shared<Response>(static_cast<http::status>(status), parser_ ? parser_->get().version() : 11);
    res->set(http::field::server, "laya-engine");
    res->set(http::field::content_type, "application/json");
    if (ctx_) res->set("X-Request-Id", ctx_->id);
    if (srv_.opt.demo) res->set("X-Laya-Demo-Checkpoint", "true");
    res->body() = std::move(body);
    return res;
  }

  std::string health_body() const {
    nlohmann::ordered_json j;
    j["status"] = "ok";
    j["loaded"] = srv_.opt.loaded;
    j["device"] = srv_.opt.device_label;
    return j.dump();
  }

  std::string info_body() const {
    nlohmann::ordered_json j = srv_.opt.info;
    const auto bi = srv_.scheduler.backend_info();
    j["state"] = srv_.owner.draining() ? "draining" : runtime::to_string(srv_.scheduler.state());
    j["backend"] = bi.backend;
    j["device"] = bi.device;
    j["precision"] = bi.precision;
    j["demo"] = srv_.opt.demo;
    if (srv_.opt.demo) j["demo_note"] = "demo checkpoint: random weights, answers are meaningless";
    j["limits"]["max_body_bytes"] = srv_.opt.max_body_bytes;
    j["limits"]["max_batch_items"] = srv_.opt.max_batch_items;
    j["limits"]["deadline_ms"] = srv_.opt.deadline.count();
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  void reply_json(int status, std::string body) {
    if (ctx_ && (ctx_->route == "/v1/systemone" || ctx_->route == "/v1/systemone/batch")) {
      if (ctx_->responded) return;
      ctx_->responded = true;
      deadline_timer_.cancel();
      const double total = ms_since(ctx_->start);
      auto res = make_response(status, std::move(body));
      if (status == 200) {
        res->set("Server-Timing", fmt::format("queue;dur={:.3f}, tokenize;dur={:.3f}, inference;dur={:.3f}, total;dur={:.3f}",
                                              ctx_->queue_ms, ctx_->tokenize_ms, ctx_->inference_ms, total));
        res->set("X-Inference-Time-Ms", fmt::format("{:.3f}", ctx_->inference_ms));
      }
      log_request(status, res->body().size());
      finish_request();
      if (ctx_->disconnected) return;
      boost::system::error_code ignored;
      stream_.socket().cancel(ignored);  // the disconnect watch
      return write(std::move(res));
    }
    write(make_response(status, std::move(body)));
  }

  void reply_error(int status, std::string_view message) {
    if (status == 500) {
      // Never leak internal text to clients: upstream always says "inference failed".
      message = "inference failed";
    }
    auto body = api::error_body(message);
    if (status == 429 || status == 503) retry_after_ = true;
    reply_json(status, std::move(body));
  }

  // Answer without reading the body (auth, content type, declared size, routing): the unread body
  // is still on the wire, so the connection closes after the response.
  void reply_early(int status, std::string_view message) {
    keep_alive_ = false;
    head_ = false;
    force_close_ = true;
    const bool decision = ctx_->route == "/v1/systemone" || ctx_->route == "/v1/systemone/batch";
    if (decision) return reply_error(status, message);
    write(make_response(status, api::error_body(message)));
  }

  void reply_simple(int status, std::string_view message, bool close_after) {
    force_close_ = close_after;
    keep_alive_ = false;
    write(make_response(status, api::error_body(message)));
  }

  void finish_request() {
    if (counted_) {
      counted_ = false;
      srv_.inflight_delta(-1);
    }
  }

  void log_request(int status, size_t out_bytes) {
    srv_.metrics.count_request(ctx_->route, status);
    if (spdlog::should_log(spdlog::level::info)) {
      spdlog::info("request id={} route={} status={} in_bytes={} out_bytes={} rows={} tokens={} batch_requests={} "
                   "queue_ms={:.3f} tokenize_ms={:.3f} inference_ms={:.3f} total_ms={:.3f}",
                   ctx_->id, ctx_->route, status, ctx_->in_bytes, out_bytes, ctx_->rows, ctx_->tokens,
                   ctx_->batch_requests, ctx_->queue_ms, ctx_->tokenize_ms, ctx_->inference_ms, ms_since(ctx_->start));
    }
  }

  void write(std::shared_ptr<Response> res) {
    if (ctx_ && ctx_->route != "/v1/systemone" && ctx_->route != "/v1/systemone/batch") {
      srv_.metrics.count_request(ctx_->route, res->result_int());
    }
    if (retry_after_) res->set(http::field::retry_after, "1");
    retry_after_ = false;
    const bool close_after = force_close_ || !keep_alive_ || srv_.owner.draining();
    res->keep_alive(!close_after);
    if (head_) {
      res->content_length(res->body().size());
      res->body().clear();
    } else {
      res->prepare_payload();
    }
    stream_.expires_after(srv_.opt.body_timeout);  // a client that never reads must not pin us
    http::async_write(stream_, *res, [self = shared_from_this(), res, close_after](beast::error_code ec, size_t) {
      if (ec || close_after) return self->shutdown();
      self->stream_.expires_never();
      self->parser_.reset();
      self->keep_alive_ = true;
      self->force_close_ = false;
      self->wait_for_request();
    });
  }

  // Half-close after the last response, then read and discard what the client still sends (at most
  // kLingerBytes, for at most kLingerTime) before closing: a socket closed with unread input is
  // reset, and the reset can destroy the response in the client's buffers or fail the client's
  // pending write (a 413 answered before the body was read). The request is accounted as finished
  // at once.
  void shutdown() {
    finish_request();
    idle_timer_.cancel();
    deadline_timer_.cancel();
    boost::system::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    stream_.expires_after(kLingerTime);  // one budget for the whole drain
    linger(kLingerBytes);
  }

  void linger(size_t budget) {
    stream_.async_read_some(net::buffer(linger_buf_),
                            [self = shared_from_this(), budget](beast::error_code ec, size_t n) {
                              if (ec || n >= budget) return self->close();
                              self->linger(budget - n);
                            });
  }

  void close() {
    finish_request();
    idle_timer_.cancel();
    deadline_timer_.cancel();
    boost::system::error_code ec;
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  HttpServer::Impl& srv_;
  std::optional<http::request_parser<http::string_body>> parser_;
  net::steady_timer idle_timer_;
  net::steady_timer deadline_timer_;
  std::shared_ptr<RequestCtx> ctx_;
  uint64_t generation_ = 0;
  bool keep_alive_ = true;
  bool head_ = false;
  bool force_close_ = false;
  bool retry_after_ = false;
  bool counted_ = false;
  static constexpr size_t kLingerBytes = size_t{1} << 20;
  static constexpr size_t kInlinePrepareBytes = 2048;  // see start_decision
  static constexpr std::chrono::milliseconds kLingerTime{1000};
  std::array<char, 4096> linger_buf_{};
};

}  // namespace

void HttpServer::Impl::do_accept() {
  acceptor->async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == net::error::operation_aborted || !acceptor->is_open()) return;
      spdlog::warn("accept failed: {}", ec.message());
    } else {
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Session>(std::move(socket), *this)->run();
    }
    if (acceptor->is_open()) do_accept();
  });
}

// An I/O thread. Without busy polling: ioc.run(). With it, a thread blocks in run_one() only when
// nothing is in flight and the last event is older than opt.busy_poll; otherwise one thread (the
// poller) runs ioc.poll() in a loop, which also runs the reactor with a zero timeout, so socket
// events and the executor's posted outcomes are picked up by a running thread. The other threads
// park on park_cv meanwhile rather than in run_one(): a thread blocked in run_one() would take the
// reactor into a blocking epoll_wait, where the poller could no longer see socket events (Asio
// lets one thread at a time run the reactor), and each event would wake it again. (A thread that
// was already blocked in run_one() when another became the poller keeps the reactor until its
// next event, then parks: one ordinary wake-up per switch from idle to polling.)
// So while polling, one thread serves every connection: a small request is ~20-35 us of I/O-thread
// work (the per-stage table in docs/benchmarks/http.md), so one thread keeps up with ~30k req/s,
// above the GPU engine's 11.5k at c = 256. Parked threads that join as helpers under load were
// tried and cost 6-8 us at c = 1 on 2 vCPUs (same page).
// Returns when the io_context stops (stop(), or no work left), as ioc.run() does.
void HttpServer::Impl::io_loop() {
  if (opt.busy_poll.count() == 0) {
    ioc.run();
    return;
  }
  auto last_event = Clock::now() - opt.busy_poll;
  while (!ioc.stopped()) {
    if (!poll_wanted(last_event)) {
      if (ioc.run_one() > 0) last_event = Clock::now();
      continue;
    }
    if (!poller.exchange(true)) {
      poll_while_wanted(last_event);
      {
        std::lock_guard lock(park_mu);
        poller.store(false);
      }
      park_cv.notify_all();
      continue;
    }
    std::unique_lock lock(park_mu);
    park_cv.wait(lock, [&] { return !poller.load() || ioc.stopped(); });
    last_event = Clock::now() - opt.busy_poll;  // the poller just found nothing to do for that long
  }
}

void HttpServer::Impl::poll_while_wanted(Clock::time_point& last_event) {
  while (!ioc.stopped()) {
    if (ioc.poll() > 0) {
      last_event = Clock::now();
      continue;
    }
    if (!poll_wanted(last_event)) return;
    std::this_thread::yield();  // give the CPU to a thread queued behind us (see Scheduler::poll_for_work)
  }
}

HttpServer::HttpServer(ServerOptions options, runtime::Scheduler& scheduler, const runtime::Pipeline& pipeline,
                       runtime::WorkerPool& pool, Metrics& metrics)
    : impl_(std::make_unique<Impl>(*this, std::move(options), scheduler, pipeline, pool, metrics)) {
  impl_->metrics.set_build_info({{"version", LAYA_VERSION}});
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::start() {
  auto& I = *impl_;
  boost::system::error_code ec;
  const auto addr = net::ip::make_address(I.opt.host, ec);
  if (ec) LAYA_FAIL(ErrorKind::io, "invalid --host '{}': {}", I.opt.host, ec.message());
  const tcp::endpoint ep(addr, I.opt.port);
  // Its own strand: begin_drain()'s close() and an accept completion that re-arms async_accept
  // must never run at once on two I/O threads (Asio objects are not thread-safe; that race read a
  // descriptor the close had just freed).
  I.acceptor.emplace(net::make_strand(I.ioc));
  I.acceptor->open(ep.protocol(), ec);
  if (!ec) I.acceptor->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) I.acceptor->bind(ep, ec);
  if (!ec) I.acceptor->listen(net::socket_base::max_listen_connections, ec);
  if (ec) LAYA_FAIL(ErrorKind::io, "cannot listen on {}:{}: {}", I.opt.host, I.opt.port, ec.message());
  bound_port_ = I.acceptor->local_endpoint().port();
  I.do_accept();
  for (int i = 0; i < std::max(1, I.opt.io_threads); ++i) I.threads.emplace_back([&I] { I.io_loop(); });
}

void HttpServer::begin_drain() {
  if (draining_.exchange(true)) return;
  auto& I = *impl_;
  if (I.acceptor) {
    net::post(I.acceptor->get_executor(), [&I] {  // the acceptor's strand: see start()
      boost::system::error_code ec;
      I.acceptor->close(ec);
    });
  }
  I.scheduler.drain();
}

bool HttpServer::wait_inflight(Clock::time_point until) {
  std::unique_lock lock(impl_->inflight_mu);
  return impl_->inflight_cv.wait_until(lock, until, [&] { return inflight_.load() == 0; });
}

void HttpServer::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  impl_->ioc.stop();  // ends a busy poll too
  {
    std::lock_guard lock(impl_->park_mu);  // parked threads check ioc.stopped() under it
  }
  impl_->park_cv.notify_all();
  for (auto& t : impl_->threads) t.join();
  impl_->threads.clear();
}

}  // namespace laya::server
