#include "checkpoint/integrity.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "laya/errors.h"

namespace laya::checkpoint {
namespace {

struct Known {
  const char* role;
  const char* what;
  const char* prefix;  // full hash, or the published abbreviation's head
  const char* suffix;  // abbreviation's tail ("" for a full hash)
  uint64_t size;       // 0 when unknown
};

// spec §7.3 [S9][S21]: full model.safetensors hashes; abbreviated hashes of the other English files.
constexpr Known kKnown[] = {
    {"model.safetensors", "official English model.safetensors",
     "891102d372688fc2a094dac56a384bc537b87c63f21f9f3dac0be2b7cbc8d86c", "", 842609210},
    {"model.safetensors", "official multilingual model.safetensors",
     "9d628fd971b700382ac6f65920a86f149777b2e748e0c955fb3b19695aa8f204", "", 643835514},
    {"model.safetensors", "official typed-decisions model.safetensors",
     "4fa56de72383a9d3efa9cfa78955733c81b9fc8067a587ca4beb82c78107a24e", "", 842609220},
    {"encoder/config.json", "official English encoder/config.json (abbreviated hash)", "bf3ab805", "8979", 0},
    {"rl_agent_config.json", "official English rl_agent_config.json (abbreviated hash)", "ae287b56", "bbd", 0},
    {"tokenizer/tokenizer.json", "official English/typed-decisions tokenizer.json (abbreviated hash)", "6c8aaa9a",
     "d30", 0},
    {"tokenizer/tokenizer_config.json", "official English tokenizer_config.json (abbreviated hash)", "50044de6",
     "d12", 0},
};

struct MdCtx {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~MdCtx() { EVP_MD_CTX_free(ctx); }
};

std::string hex(const unsigned char* d, unsigned n) {
  static const char* k = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < n; ++i) {
    s += k[d[i] >> 4];
    s += k[d[i] & 15];
  }
  return s;
}

bool ends_with(std::string_view s, std::string_view t) { return s.size() >= t.size() && s.substr(s.size() - t.size()) == t; }

}  // namespace

std::string sha256_hex(std::string_view data) {
  MdCtx c;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (c.ctx == nullptr || EVP_DigestInit_ex(c.ctx, EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(c.ctx, data.data(), data.size()) != 1 || EVP_DigestFinal_ex(c.ctx, md, &n) != 1) {
    LAYA_FAIL(ErrorKind::internal, "OpenSSL SHA-256 failed");
  }
  return hex(md, n);
}

std::string sha256_file(const std::filesystem::path& path, const HashProgress& progress) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) LAYA_FAIL(ErrorKind::io, "{}: cannot open: {}", path.string(), std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> guard(f, &std::fclose);
  std::error_code ec;
  const uint64_t total = std::filesystem::file_size(path, ec);
  MdCtx c;
  if (c.ctx == nullptr || EVP_DigestInit_ex(c.ctx, EVP_sha256(), nullptr) != 1) {
    LAYA_FAIL(ErrorKind::internal, "OpenSSL SHA-256 init failed");
  }
  std::vector<unsigned char> buf(1u << 20);
  uint64_t done = 0;
  for (;;) {
    std::size_t n = std::fread(buf.data(), 1, buf.size(), f);
    if (n > 0) {
      if (EVP_DigestUpdate(c.ctx, buf.data(), n) != 1) LAYA_FAIL(ErrorKind::internal, "OpenSSL SHA-256 update failed");
      done += n;
      if (progress) progress(done, total);
    }
    if (n < buf.size()) {
      if (std::ferror(f)) LAYA_FAIL(ErrorKind::io, "{}: read error: {}", path.string(), std::strerror(errno));
      break;
    }
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  if (EVP_DigestFinal_ex(c.ctx, md, &len) != 1) LAYA_FAIL(ErrorKind::internal, "OpenSSL SHA-256 final failed");
  return hex(md, len);
}

std::string known_official_file(std::string_view role, std::string_view sha, uint64_t size) {
  for (const auto& k : kKnown) {
    if (role != k.role) continue;
    std::string_view prefix = k.prefix, suffix = k.suffix;
    if (suffix.empty()) {
      if (sha == prefix && (k.size == 0 || size == k.size)) return k.what;
    } else if (sha.substr(0, prefix.size()) == prefix && ends_with(sha, suffix)) {
      return k.what;
    }
  }
  return "";
}

IntegrityReport check_integrity(const CheckpointPaths& p,
                                const std::function<void(const std::string&, uint64_t, uint64_t)>& progress) {
  IntegrityReport r;
  const std::pair<const char*, const std::filesystem::path*> files[] = {
      {"model.safetensors", &p.weights},
      {"rl_agent_config.json", &p.agent_config},
      {"encoder/config.json", &p.encoder_config},
      {"tokenizer/tokenizer.json", &p.tokenizer_json},
      {"tokenizer/tokenizer_config.json", &p.tokenizer_config},
  };
  int english_matches = 0;
  for (const auto& [role, path] : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*path, ec)) continue;
    FileHash h;
    h.role = role;
    h.path = *path;
    h.size = std::filesystem::file_size(*path, ec);
    std::string role_s = role;
    h.sha256 = sha256_file(*path, progress ? HashProgress([&](uint64_t d, uint64_t t) { progress(role_s, d, t); })
                                           : HashProgress{});
    h.known_as = known_official_file(role, h.sha256, h.size);
    if (h.role == "model.safetensors" && !h.known_as.empty()) r.official_weights = true;
    if (h.known_as.find("English") != std::string::npos) ++english_matches;
    r.files.push_back(std::move(h));
  }
  if (english_matches == 5) {
    r.verdict = "official English checkpoint, unmodified";
  } else if (r.official_weights) {
    r.verdict = "official weights (" + r.files.front().known_as + "), other files modified or unknown";
  } else {
    r.verdict = "modified or unknown";
  }
  return r;
}

}  // namespace laya::checkpoint
