#include "checkpoint/demo.h"

#include "laya/errors.h"

namespace laya::checkpoint {

std::filesystem::path demo_cache_dir() { return {}; }
std::filesystem::path resolve_model_dir(std::string_view, bool*) { LAYA_FAIL(ErrorKind::internal, "demo: not implemented yet"); }

}  // namespace laya::checkpoint
