#pragma once
#include <string>
#include <vector>
namespace laya::cli {
// Multi-line description of this binary: version, backends, CUDA build, library versions.
std::string build_description();
// The same, one entry per non-empty line.
std::vector<std::string> build_description_lines();
}  // namespace laya::cli
