// Shared helpers of the libFuzzer harnesses: the one rule every harness enforces is that only
// laya::Error may leave a parser, and only with a kind the caller documents.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <typeinfo>

#include "laya/errors.h"

namespace laya::fuzz {

// A finding: print why and abort, so libFuzzer saves the input as a crash.
[[noreturn]] inline void fail(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "FUZZ FINDING: %s %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void expect_kind(const Error& e, std::initializer_list<ErrorKind> allowed) {
  for (ErrorKind k : allowed)
    if (e.kind() == k) return;
  fail("laya::Error of an unexpected kind:", std::string(to_string(e.kind())) + ": " + e.what());
}

// The shared fixtures: $LAYA_FIXTURES_DIR, else the configured default (../shared/fixtures).
inline std::filesystem::path fixtures_dir() {
  if (const char* env = std::getenv("LAYA_FIXTURES_DIR"); env != nullptr && *env != '\0') return env;
  return LAYA_FIXTURES_DIR_DEFAULT;
}

// Runs `f`; a laya::Error of an allowed kind is a clean rejection (returns false), a normal return
// is true, and every other exception is a finding (std::bad_alloc included: the parsers document
// size limits, so none may run out of memory).
template <class F>
bool guarded(F&& f, std::initializer_list<ErrorKind> allowed) {
  try {
    f();
    return true;
  } catch (const Error& e) {
    expect_kind(e, allowed);
  } catch (const std::exception& e) {
    fail("non-laya exception escaped:", std::string(typeid(e).name()) + ": " + e.what());
  } catch (...) {
    fail("unknown exception escaped");
  }
  return false;
}

}  // namespace laya::fuzz

