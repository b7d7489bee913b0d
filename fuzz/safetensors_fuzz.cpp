// Fuzzes SafetensorsFile::open (src/checkpoint/safetensors.h): the input bytes are written to a file
// (one per fuzzing process, in /dev/shm when available) and opened. A corrupt file may only throw
// laya::Error(invalid_checkpoint); an accepted file must keep the documented invariants: every tensor's
// shape has non-negative dims whose product x dtype size equals its byte range exactly, its data lies
// inside the file, and the tensors are in offset order and cover the data section. Every byte of every
// tensor is read, so a range past the mapping is an ASan report.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "checkpoint/safetensors.h"
#include "common.h"

using namespace laya;
namespace fs = std::filesystem;

namespace {
fs::path g_file;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fs::path dir = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  g_file = dir / ("laya_safetensors_fuzz_" + std::to_string(::getpid()) + ".safetensors");
  std::atexit([] { std::error_code ec; fs::remove(g_file, ec); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::FILE* f = std::fopen(g_file.c_str(), "wb");
    if (f == nullptr) fuzz::fail("cannot write the temporary file");
    if (size != 0 && std::fwrite(data, 1, size, f) != size) fuzz::fail("cannot write the temporary file");
    std::fclose(f);
  }
  checkpoint::SafetensorsFile file;
  bool ok = fuzz::guarded([&] { file = checkpoint::SafetensorsFile::open(g_file); }, {ErrorKind::invalid_checkpoint});
  if (!ok) return 0;
  uint64_t covered = 0;
  unsigned sink = 0;
  for (const auto& t : file.tensors()) {
    uint64_t numel = 1;
    for (int64_t d : t.shape) {
      if (d < 0) fuzz::fail("accepted a negative dimension in tensor", t.name);
      if (__builtin_mul_overflow(numel, static_cast<uint64_t>(d), &numel)) fuzz::fail("shape overflows in", t.name);
    }
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(numel, checkpoint::dtype_size(t.dtype), &bytes))
      fuzz::fail("numel x dtype size overflows in", t.name);
    if (bytes != t.data.size()) fuzz::fail("shape does not match the byte range of", t.name);
    for (std::byte b : t.data) sink += static_cast<unsigned>(b);
    covered += t.data.size();
    if (file.find(t.name) != &t) fuzz::fail("find() does not return the tensor", t.name);
  }
  if (8 + file.header_size() + covered != file.file_size()) fuzz::fail("tensors do not cover the data section");
  if (sink == 0xFFFFFFFFu) std::fputc(0, stderr);  // keep the reads
  return 0;
}
