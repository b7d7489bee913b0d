// Fuzzes parse_json (src/api/json.h) with the default ParseLimits: any byte string must either parse
// or throw JsonParseError (a laya::Error of kind bad_request). On success the value must render with
// python_dumps / python_dumps_compact / python_repr (what the server does with it) and the rendered
// JSON must parse again to an equal-shaped value (same type and size at the top).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/json.h"
#include "api/python_json.h"
#include "common.h"

using namespace laya;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  api::Json value;
  bool ok = fuzz::guarded(
      [&] {
        try {
          value = api::parse_json(text);
        } catch (const api::JsonParseError&) {
          throw;  // the documented rejection
        } catch (const Error& e) {
          fuzz::fail("parse_json threw a laya::Error that is not a JsonParseError:", e.what());
        }
      },
      {ErrorKind::bad_request});
  if (!ok) return 0;
  fuzz::guarded(
      [&] {
        std::string dumped = api::python_dumps(value);
        std::string compact = api::python_dumps_compact(value);
        (void)api::python_repr(value);
        // What we render must be JSON we accept ourselves (no NaN, no lone surrogates, same depth).
        api::Json again = api::parse_json(compact);
        if (again.type() != value.type() || again.size() != value.size())
          fuzz::fail("python_dumps_compact output parses to a different value:", compact.substr(0, 200));
        (void)api::parse_json(dumped);
      },
      {});
  return 0;
}
