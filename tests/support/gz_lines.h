// Reads a gzip-compressed (or plain) text file of committed golden data as lines.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

namespace laya::test {

// A file that cannot be opened fails the calling test (and yields no lines).
inline std::vector<std::string> gz_lines(const std::filesystem::path& path) {
  std::vector<std::string> lines;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    ADD_FAILURE() << "cannot open " << path;
    return lines;
  }
  std::string data;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) data.append(buf, static_cast<size_t>(n));
  gzclose(f);
  size_t start = 0;
  while (start < data.size()) {
    size_t end = data.find('\n', start);
    if (end == std::string::npos) end = data.size();
    lines.emplace_back(data, start, end - start);
    start = end + 1;
  }
  return lines;
}

}  // namespace laya::test
