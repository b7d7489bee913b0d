// Runs `laya-engine serve` as a child process on an ephemeral loopback port (acceptance tests).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/paths.h"
#include "http_client.h"

namespace laya::test {

// The demo checkpoint is generated once per build tree, not per test.
inline std::filesystem::path test_cache_dir() { return std::filesystem::path(LAYA_BINARY_DIR) / "test-cache"; }

class ServerProcess {
 public:
  explicit ServerProcess(std::vector<std::string> extra_args, std::vector<std::string> env = {}) {
    log_ = make_temp_dir("laya-serve-log") / "stderr.txt";
    std::vector<std::string> args = {engine_binary().string(), "serve", "--model", "demo", "--port", "0",
                                     "--threads", "1", "--workers", "2"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      const int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, 1);
      ::setenv("LAYA_CACHE_DIR", test_cache_dir().c_str(), 1);
      for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // Wait for "listening on 127.0.0.1:PORT", then for /ready.
    const std::regex re("listening on [^ ]+:([0-9]+)");
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
      std::smatch m;
      const std::string text = log_text();
      if (std::regex_search(text, m, re)) {
        port_ = static_cast<uint16_t>(std::stoi(m[1]));
        break;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    while (port_ && std::chrono::steady_clock::now() < until) {
      if (http_get(port_, "/ready").status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~ServerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string log_text() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void signal(int sig) { ::kill(pid_, sig); }
  // Exit status after waiting (up to `within`), or -1 when still running / killed by a signal.
  int wait_exit(std::chrono::milliseconds within) {
    const auto until = std::chrono::steady_clock::now() + within;
    while (std::chrono::steady_clock::now() < until) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::filesystem::path log_;
};

}  // namespace laya::test
