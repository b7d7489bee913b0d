#include "cli/build_info.h"

#include <fmt/format.h>
#include <openblas_config.h>
#include <openssl/crypto.h>
#include <simdjson.h>
#include <spdlog/version.h>
#include <utf8proc.h>

#include <boost/version.hpp>

#ifdef LAYA_WITH_CUDA
#include "backends/cuda/build_info.h"
#endif

// SIMDJSON_VERSION is a bare pp-number (3.0.1): stringify it.
#define LAYA_STRINGIFY2(x) #x
#define LAYA_STRINGIFY(x) LAYA_STRINGIFY2(x)

namespace laya::cli {

std::string build_description() {
  std::string out = fmt::format("laya-engine {}\n", LAYA_VERSION);
#ifdef LAYA_WITH_CUDA
  out += "backends: cpu (fp32), cuda\n";
  out += laya::cuda::build_description();
#else
  out += "backends: cpu (fp32)\n";
#endif
  out += fmt::format("compiler: g++ {}\n", __VERSION__);
  std::string blas = OPENBLAS_VERSION;
  blas.erase(0, blas.find_first_not_of(' '));
  blas.erase(blas.find_last_not_of(' ') + 1);
  out += fmt::format("libraries: {}, {}, Boost {}.{}.{}, simdjson {}, utf8proc {}, fmt {}.{}.{}, spdlog {}.{}.{}\n", blas,
                     OpenSSL_version(OPENSSL_VERSION), BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000,
                     BOOST_VERSION % 100, LAYA_STRINGIFY(SIMDJSON_VERSION), utf8proc_version(), FMT_VERSION / 10000,
                     FMT_VERSION / 100 % 100, FMT_VERSION % 100, SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH);
  return out;
}

std::vector<std::string> build_description_lines() {
  const std::string all = build_description();
  std::vector<std::string> lines;
  for (std::size_t start = 0, end; start < all.size(); start = end + 1) {
    end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    if (end > start) lines.push_back(all.substr(start, end - start));
  }
  return lines;
}

}  // namespace laya::cli
