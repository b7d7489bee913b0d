#include "checkpoint/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "common/json_depth.h"
#include "laya/errors.h"

namespace laya::checkpoint {
namespace {

using nlohmann::json;

// The reference Rust implementation's bound; a real header is ~20 KB.
constexpr uint64_t kMaxHeaderBytes = 100u * 1024u * 1024u;

[[noreturn]] void bad(const std::filesystem::path& p, const std::string& what) {
  LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: {}", p.string(), what);
}

bool parse_dtype(std::string_view s, DType* out) {
  if (s == "F16") *out = DType::F16;
  else if (s == "BF16") *out = DType::BF16;
  else if (s == "F32") *out = DType::F32;
  else return false;
  return true;
}

// Byte sizes of the other safetensors dtypes: a file using them is structurally checked first, so
// every unsupported tensor can be named in one message.
std::size_t foreign_dtype_size(std::string_view s) {
  if (s == "BOOL" || s == "U8" || s == "I8" || s == "F8_E5M2" || s == "F8_E4M3") return 1;
  if (s == "I16" || s == "U16") return 2;
  if (s == "I32" || s == "U32") return 4;
  if (s == "I64" || s == "U64" || s == "F64") return 8;
  return 0;
}

}  // namespace

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::F32: return "F32";
  }
  return "?";
}

std::size_t dtype_size(DType dtype) { return dtype == DType::F32 ? 4 : 2; }

SafetensorsFile::SafetensorsFile(SafetensorsFile&& o) noexcept { *this = std::move(o); }

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    header_size_ = std::exchange(o.header_size_, 0);
    tensors_ = std::move(o.tensors_);
    index_ = std::move(o.index_);
    metadata_ = std::move(o.metadata_);
    o.tensors_.clear();
    o.index_.clear();
  }
  return *this;
}

SafetensorsFile::~SafetensorsFile() { release(); }

void SafetensorsFile::release() noexcept {
  if (base_ != nullptr) ::munmap(const_cast<std::byte*>(base_), size_);
  base_ = nullptr;
  size_ = 0;
}

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) bad(path, "file is missing");
    LAYA_FAIL(ErrorKind::io, "{}: cannot open: {}", path.string(), std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    bad(path, "not a regular file");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    bad(path, "file is empty (a safetensors file starts with an 8-byte header length)");
  }
  if (size < 8) {
    ::close(fd);
    bad(path, fmt::format("file is truncated: {} bytes, shorter than the 8-byte header length", size));
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  ::close(fd);
  if (map == MAP_FAILED) LAYA_FAIL(ErrorKind::io, "{}: cannot memory-map: {}", path.string(), std::strerror(map_errno));

  SafetensorsFile f;
  f.path_ = path;
  f.base_ = static_cast<const std::byte*>(map);
  f.size_ = size;  // from here on the destructor unmaps on any throw

  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(f.base_[i]);
  if (n > kMaxHeaderBytes) bad(path, fmt::format("header length {} exceeds the {} byte limit", n, kMaxHeaderBytes));
  if (n > size - 8) {
    bad(path, fmt::format("header length {} is larger than the file ({} bytes after the length field): truncated "
                          "or not a safetensors file", n, size - 8));
  }
  if (n < 2) bad(path, fmt::format("header length {} is too small to hold a JSON object", n));
  f.header_size_ = n;
  std::string_view header(reinterpret_cast<const char*>(f.base_ + 8), n);
  if (json_nesting_depth(header, kMaxCheckpointJsonDepth) > kMaxCheckpointJsonDepth)
    bad(path, fmt::format("header nests deeper than {} levels: not a safetensors header", kMaxCheckpointJsonDepth));

  // Track top-level keys during parsing: nlohmann would silently keep only the last duplicate.
  std::set<std::string> seen;
  std::string duplicate;
  json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1) {
      auto k = parsed.get<std::string>();
      if (!seen.insert(k).second && duplicate.empty()) duplicate = k;
    }
    return true;
  };
  json h = json::parse(header.begin(), header.end(), cb, /*allow_exceptions=*/false);
  if (h.is_discarded()) bad(path, "header is not valid JSON");
  if (!h.is_object()) bad(path, "header is not a JSON object");
  if (!duplicate.empty()) bad(path, fmt::format("tensor '{}' appears more than once in the header", duplicate));

  const uint64_t data_size = size - 8 - n;
  struct Range {
    uint64_t begin, end;
    std::size_t tensor;
  };
  std::vector<Range> ranges;
  std::vector<std::string> unsupported;
  for (auto it = h.begin(); it != h.end(); ++it) {
    const std::string& name = it.key();
    if (name == "__metadata__") {
      if (!it->is_object()) bad(path, "__metadata__ is not an object");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) bad(path, fmt::format("__metadata__.{} is not a string", m.key()));
        f.metadata_[m.key()] = m->get<std::string>();
      }
      continue;
    }
    const json& t = *it;
    if (!t.is_object()) bad(path, fmt::format("tensor '{}': entry is not an object", name));
    auto dt = t.find("dtype");
    auto sh = t.find("shape");
    auto off = t.find("data_offsets");
    if (dt == t.end() || !dt->is_string()) bad(path, fmt::format("tensor '{}': missing or non-string 'dtype'", name));
    if (sh == t.end() || !sh->is_array()) bad(path, fmt::format("tensor '{}': missing or non-list 'shape'", name));
    if (off == t.end() || !off->is_array() || off->size() != 2) {
      bad(path, fmt::format("tensor '{}': 'data_offsets' must be a list [begin, end]", name));
    }
    TensorView v;
    v.name = name;
    std::size_t elem_size = 0;
    if (parse_dtype(dt->get<std::string>(), &v.dtype)) {
      elem_size = dtype_size(v.dtype);
    } else {
      elem_size = foreign_dtype_size(dt->get<std::string>());
      if (elem_size == 0) bad(path, fmt::format("tensor '{}': unknown dtype '{}'", name, dt->get<std::string>()));
      unsupported.push_back(fmt::format("tensor '{}': dtype '{}' is not supported (only F16, BF16, F32)", name,
                                        dt->get<std::string>()));
    }
    uint64_t numel = 1;
    bool overflow = false;
    for (const auto& dim : *sh) {
      if (!dim.is_number_unsigned()) bad(path, fmt::format("tensor '{}': shape {} has a non-integer or negative dimension", name, sh->dump()));
      uint64_t dv = dim.get<uint64_t>();
      // Each dimension must fit TensorView::shape (int64): after a 0 dimension the product check
      // alone let 2^64-1 through, stored as -1.
      if (dv > (uint64_t{1} << 62) || (dv != 0 && numel > (uint64_t{1} << 62) / dv)) overflow = true;
      numel *= dv;
      v.shape.push_back(static_cast<int64_t>(dv));
    }
    // numel x dtype size must not wrap either: [2^62] x F32 wrapped to 0 bytes and matched
    // data_offsets [0, 0], accepting a tensor whose shape promises 16 EiB that are not there.
    if (!overflow && numel > (uint64_t{1} << 62) / elem_size) overflow = true;
    if (overflow) bad(path, fmt::format("tensor '{}': shape {} is too large", name, sh->dump()));
    for (const auto& o : *off) {
      if (!o.is_number_unsigned()) bad(path, fmt::format("tensor '{}': data_offsets {} are not non-negative integers", name, off->dump()));
    }
    uint64_t b = (*off)[0].get<uint64_t>(), e = (*off)[1].get<uint64_t>();
    if (e < b) bad(path, fmt::format("tensor '{}': data_offsets [{}, {}] end before they begin", name, b, e));
    if (e > data_size) {
      bad(path, fmt::format("tensor '{}': data_offsets [{}, {}] lie outside the data section ({} bytes): file "
                            "truncated or offsets out of range", name, b, e, data_size));
    }
    const uint64_t want = numel * elem_size;
    if (e - b != want) {
      bad(path, fmt::format("tensor '{}': shape {} x {} needs {} bytes but data_offsets [{}, {}] hold {}", name,
                            sh->dump(), dt->get<std::string>(), want, b, e, e - b));
    }
    v.data = std::span<const std::byte>(f.base_ + 8 + n + b, e - b);
    ranges.push_back({b, e, f.tensors_.size()});
    f.tensors_.push_back(std::move(v));
  }

  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t pos = 0;
  for (const auto& r : ranges) {
    const auto& name = f.tensors_[r.tensor].name;
    if (r.begin < pos) {
      bad(path, fmt::format("tensor '{}': data_offsets [{}, {}] overlap the previous tensor (which ends at {})", name,
                            r.begin, r.end, pos));
    }
    if (r.begin > pos) {
      bad(path, fmt::format("tensor '{}': data_offsets [{}, {}] leave a gap of {} unused bytes before it", name,
                            r.begin, r.end, r.begin - pos));
    }
    pos = r.end;
  }
  if (pos != data_size) {
    bad(path, fmt::format("the data section has {} bytes but the tensors cover only {}: trailing bytes or a gap",
                          data_size, pos));
  }

  if (!unsupported.empty()) {
    std::string msg = unsupported.front();
    for (std::size_t i = 1; i < unsupported.size(); ++i) msg += "; " + unsupported[i];
    bad(path, msg);
  }

  std::vector<TensorView> ordered;
  ordered.reserve(ranges.size());
  for (const auto& r : ranges) ordered.push_back(std::move(f.tensors_[r.tensor]));
  f.tensors_ = std::move(ordered);
  for (std::size_t i = 0; i < f.tensors_.size(); ++i) f.index_.emplace(f.tensors_[i].name, i);
  return f;
}

const TensorView* SafetensorsFile::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorView& SafetensorsFile::at(std::string_view name) const {
  const TensorView* t = find(name);
  if (t == nullptr) LAYA_FAIL(ErrorKind::invalid_checkpoint, "{}: tensor '{}' is missing", path_.string(), name);
  return *t;
}

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  json h = json::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  uint64_t off = 0;
  std::set<std::string> names;
  for (const auto& t : tensors) {
    LAYA_ASSERT(names.insert(t.name).second, "duplicate tensor name {}", t.name);
    uint64_t numel = 1;
    for (auto d : t.shape) numel *= static_cast<uint64_t>(d);
    uint64_t bytes = numel * dtype_size(t.dtype);
    h[t.name] = {{"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {off, off + bytes}}};
    off += bytes;
  }
  std::string header = h.dump();  // nlohmann sorts object keys, like the Python writer
  while ((header.size() + 8) % 8 != 0) header += ' ';

  std::FILE* fp = std::fopen(path.c_str(), "wb");
  if (fp == nullptr) LAYA_FAIL(ErrorKind::io, "{}: cannot open for writing: {}", path.string(), std::strerror(errno));
  auto write = [&](const void* p, std::size_t n) {
    if (n != 0 && std::fwrite(p, 1, n, fp) != n) {
      std::fclose(fp);
      LAYA_FAIL(ErrorKind::io, "{}: write failed: {}", path.string(), std::strerror(errno));
    }
  };
  uint8_t len[8];
  uint64_t hl = header.size();
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(hl >> (8 * i));
  write(len, 8);
  write(header.data(), header.size());
  std::vector<std::byte> buf;
  for (const auto& t : tensors) {
    uint64_t numel = 1;
    for (auto d : t.shape) numel *= static_cast<uint64_t>(d);
    buf.assign(numel * dtype_size(t.dtype), std::byte{0});
    if (t.fill) t.fill(buf);
    write(buf.data(), buf.size());
  }
  if (std::fclose(fp) != 0) LAYA_FAIL(ErrorKind::io, "{}: close failed: {}", path.string(), std::strerror(errno));
}

}  // namespace laya::checkpoint
