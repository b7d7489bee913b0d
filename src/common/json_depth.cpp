#include "common/json_depth.h"

namespace laya {

std::size_t json_nesting_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, max_depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size() && max_depth <= limit; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote included
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) max_depth = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return max_depth;
}

}  // namespace laya
