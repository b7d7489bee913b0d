#include "server/json_array.h"

#include "api/json.h"
#include "laya/errors.h"

namespace laya::server {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

[[noreturn]] void not_array() {
  LAYA_FAIL(ErrorKind::bad_request, "request body must be a JSON array of decision requests");
}

}  // namespace

std::vector<std::string_view> split_json_array(std::string_view s) {
  const size_t n = s.size();
  // A leading UTF-8 BOM, as parse_json accepts on a single request's body (found by
  // fuzz/json_array_fuzz: "\xEF\xBB\xBF[1,3]" was a 400 here).
  size_t i = api::utf8_bom_length(s);
  auto skip_ws = [&] {
    while (i < n && is_ws(s[i])) ++i;
  };
  skip_ws();
  if (i >= n || s[i] != '[') not_array();
  ++i;
  std::vector<std::string_view> out;
  skip_ws();
  if (i < n && s[i] == ']') {
    ++i;
    skip_ws();
    if (i != n) not_array();
    return out;
  }
  for (;;) {
    skip_ws();
    const size_t start = i;
    int depth = 0;
    bool in_string = false;
    for (; i < n; ++i) {
      const char c = s[i];
      if (in_string) {
        if (c == '\\') {
          ++i;  // skip the escaped character
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if (c == ']' || c == '}') {
        if (depth == 0) break;  // the closing bracket of the outer array
        --depth;
      } else if (c == ',' && depth == 0) {
        break;
      }
    }
    if (in_string || depth != 0 || i >= n || s[i] == '}') not_array();
    size_t end = i;
    while (end > start && is_ws(s[end - 1])) --end;
    if (end == start) not_array();  // empty element: "[,]" or "[1,]"
    out.push_back(s.substr(start, end - start));
    if (s[i] == ',') {
      ++i;
      continue;
    }
    ++i;  // ']'
    skip_ws();
    if (i != n) not_array();
    return out;
  }
}

}  // namespace laya::server
