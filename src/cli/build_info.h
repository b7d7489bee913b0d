#pragma once
#include <string>
namespace laya::cli {
// Multi-line description of this binary: version, backends, CUDA build, library versions.
std::string build_description();
}  // namespace laya::cli
