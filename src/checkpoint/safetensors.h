// A strict, read-only safetensors reader over a memory map, and a streaming writer.
//
// The reader validates the whole header before anything is exposed: 8-byte little-endian header
// length inside the file, valid JSON object, known dtypes (F16, BF16, F32; others rejected by name),
// product(shape) x dtype size == byte range, ranges inside the data section, sorted by offset,
// non-overlapping and covering it exactly, no duplicate names. `__metadata__` is tolerated.
// Every failure is a laya::Error(invalid_checkpoint) naming the file and the tensor/field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace laya::checkpoint {

enum class DType { F16, BF16, F32 };

std::string_view dtype_name(DType dtype);   // "F16" | "BF16" | "F32" (safetensors spelling)
std::size_t dtype_size(DType dtype);

struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::span<const std::byte> data;  // inside the mapping; may be unaligned (read with memcpy)

  int64_t numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

class SafetensorsFile {
 public:
  static SafetensorsFile open(const std::filesystem::path& path);

  SafetensorsFile() = default;  // empty: no file, no tensors

  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& other) noexcept;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  ~SafetensorsFile();

  const TensorView* find(std::string_view name) const;
  const TensorView& at(std::string_view name) const;  // throws invalid_checkpoint naming the tensor
  const std::vector<TensorView>& tensors() const { return tensors_; }  // in data-offset order
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  std::size_t file_size() const { return size_; }
  std::size_t header_size() const { return header_size_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  void release() noexcept;

  std::filesystem::path path_;
  const std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  std::size_t header_size_ = 0;
  std::vector<TensorView> tensors_;
  std::map<std::string, std::size_t, std::less<>> index_;
  std::map<std::string, std::string> metadata_;
};

// A tensor to write: its bytes are produced on demand by `fill` (called once, in file order, with a
// buffer of exactly numel x dtype_size bytes), so an 842 MB file is streamed, never held twice.
struct TensorToWrite {
  std::string name;
  DType dtype = DType::F16;
  std::vector<int64_t> shape;
  std::function<void(std::span<std::byte>)> fill;
};

// Writes tensors in the given order (header keys sorted, as the Python writer does; data in the
// given order), header padded with spaces to a multiple of 8 bytes. Writes to `path` directly.
void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace laya::checkpoint
