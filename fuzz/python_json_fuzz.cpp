// Fuzzes the Python-compatible helpers of src/api/python_json.h on the external strings they see
// (instructions, labels, criteria keys, state text reach python_lower / python_strip / python_len /
// python_repr_string / append_python_json_string; numbers from a body reach python_float_repr and
// python_round). Input: byte 0 selects the function, the rest is the argument (valid UTF-8 only for
// the string helpers, as parse_json guarantees; raw 8 bytes as a double for the number helpers).
// None of them documents an error, so any exception or sanitizer report is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "api/json.h"
#include "api/python_json.h"
#include "common.h"

using namespace laya;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t op = data[0] % 4;
  std::string_view arg(reinterpret_cast<const char*>(data + 1), size - 1);
  fuzz::guarded(
      [&] {
        if (op == 3) {
          double d = 0;
          if (arg.size() < sizeof d) return;
          std::memcpy(&d, arg.data(), sizeof d);
          if (!std::isfinite(d)) return;  // parse_json never produces non-finite values
          std::string r = api::python_float_repr(d);
          // repr must be a JSON number we read back to the same double.
          api::Json j = api::parse_json(r);
          if (!j.is_number() || j.as_double() != d) fuzz::fail("python_float_repr does not round-trip:", r);
          int nd = static_cast<int>(static_cast<int8_t>(arg.size() > 8 ? arg[8] : 4));
          (void)api::python_round(d, nd);
          (void)api::python_dumps(api::Json::make_double(d));
          return;
        }
        if (api::find_invalid_utf8(arg) != std::string_view::npos) return;
        switch (op) {
          case 0: {
            std::string lowered = api::python_lower(arg);
            if (api::find_invalid_utf8(lowered) != std::string_view::npos) fuzz::fail("python_lower made invalid UTF-8");
            std::string_view stripped = api::python_strip(arg);
            if (stripped.size() > arg.size()) fuzz::fail("python_strip grew the string");
            break;
          }
          case 1: {
            (void)api::python_len(arg);
            std::string r = api::python_repr_string(arg);
            if (api::find_invalid_utf8(r) != std::string_view::npos) fuzz::fail("python_repr_string made invalid UTF-8");
            break;
          }
          case 2: {
            std::string lit;
            api::append_python_json_string(lit, arg);
            api::Json back = api::parse_json(lit);
            if (!back.is_string() || back.as_string() != arg) fuzz::fail("JSON string literal does not round-trip:", lit);
            break;
          }
        }
      },
      {});
  return 0;
}
