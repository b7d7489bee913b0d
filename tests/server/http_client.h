// Minimal blocking HTTP/1.1 client for server tests (Beast, loopback).
#pragma once

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <map>
#include <string>

namespace laya::test {

struct HttpReply {
  int status = 0;  // 0: no response (connection closed or error)
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string error;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct HttpRequestSpec {
  std::string method = "POST";
  std::string target = "/v1/systemone";
  std::string body;
  std::map<std::string, std::string> headers{{"Content-Type", "application/json"}};
};

class HttpConnection {
 public:
  explicit HttpConnection(uint16_t port) : socket_(ioc_) {
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  }
  HttpReply send(const HttpRequestSpec& spec) {
    namespace http = boost::beast::http;
    HttpReply out;
    try {
      http::request<http::string_body> req{http::string_to_verb(spec.method), spec.target, 11};
      req.set(http::field::host, "127.0.0.1");
      for (const auto& [k, v] : spec.headers) req.set(k, v);
      req.body() = spec.body;
      req.prepare_payload();
      http::write(socket_, req);
      out = read();
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    return out;
  }
  HttpReply read() {
    namespace http = boost::beast::http;
    HttpReply out;
    try {
      http::response_parser<http::string_body> parser;
      parser.body_limit(64 * 1024 * 1024);
      http::read(socket_, buffer_, parser);
      const auto& res = parser.get();
      out.status = res.result_int();
      out.body = res.body();
      for (const auto& f : res) {
        std::string name(f.name_string());
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.headers[name] = std::string(f.value());
      }
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    return out;
  }
  void write_raw(const std::string& bytes) { boost::asio::write(socket_, boost::asio::buffer(bytes)); }
  // True when the server closed the connection (EOF or reset) within `within`.
  bool closed_by_peer(std::chrono::milliseconds within) {
    socket_.non_blocking(false);
    timeval tv{static_cast<time_t>(within.count() / 1000), static_cast<suseconds_t>((within.count() % 1000) * 1000)};
    setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(socket_.native_handle(), buf, sizeof buf, 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
    }
  }
  void close() {
    boost::system::error_code ec;
    socket_.close(ec);
  }
  boost::asio::ip::tcp::socket& socket() { return socket_; }

 private:
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
};

inline HttpReply http_call(uint16_t port, const HttpRequestSpec& spec) {
  try {
    HttpConnection c(port);
    return c.send(spec);
  } catch (const std::exception& e) {
    HttpReply r;
    r.error = e.what();
    return r;
  }
}

inline HttpReply http_get(uint16_t port, const std::string& target, std::map<std::string, std::string> headers = {}) {
  HttpRequestSpec s;
  s.method = "GET";
  s.target = target;
  s.headers = std::move(headers);
  return http_call(port, s);
}

inline HttpReply http_post(uint16_t port, const std::string& target, const std::string& body,
                           std::map<std::string, std::string> headers = {{"Content-Type", "application/json"}}) {
  HttpRequestSpec s;
  s.target = target;
  s.body = body;
  s.headers = std::move(headers);
  return http_call(port, s);
}

}  // namespace laya::test
